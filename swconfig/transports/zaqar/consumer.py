# Copyright 2026 swconfig developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Consuming ZAQAR_SIGNAL signals, in the background.

Each engine claims the messages of the queues of the waiting ZAQAR_SIGNAL
deployments it owns (the engine's partition): one request per deployment
per round. A message is deleted only after its signal is stored, keyed
by the message id, so a crash in between loses nothing and a message
claimed again is not stored twice.
"""

from collections.abc import Iterable
from collections.abc import Iterator
import json

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.transports import base
from swconfig.transports.zaqar import client


def queue_for(deployment_id: str, action_revision: int) -> str:
    """The signal queue of one action of a deployment."""
    return client.queue_name('s', f'{deployment_id}-{action_revision}')


class SignalConsumer(base.SharedTask):
    name = 'zaqar-signals'

    def __init__(self, transport: str, sink: base.SignalSink) -> None:
        self.transport = transport
        self.sink = sink
        self.stored = 0  # by the last round, for tests and the log

    def interval(self) -> float:
        return CONF.zaqar.signal_poll_interval

    def max_interval(self) -> float:
        return CONF.zaqar.max_retry_interval

    def items(self) -> Iterable[tuple[str, dict]]:
        return ((deployment['id'], deployment)
                for deployment in db_api.software_deployments_waiting(
                    swconfig_context.get_admin_context(), self.transport))

    def handle(self, owned: Iterator[dict]) -> None:
        self.stored = sum(self.consume(deployment) for deployment in owned)

    def consume(self, deployment: dict) -> int:
        """Claim, store and delete the messages of one deployment's
        queue; returns how many signals it stored."""
        queue = queue_for(deployment['id'], deployment['action_revision'])
        try:
            messages = client.claim(queue)
        except exception.NotFound:
            return 0  # nothing posted yet
        stored = 0
        for message in messages:
            stored += self.sink.receive(
                deployment['id'], deployment['action_revision'],
                f'zaqar:{message["id"]}',
                body=json.dumps(message.get('body')).encode(),
                where=f'message {message["id"]} in {queue}')
            client.delete_message(queue, message['id'],
                                  message.get('claim_id'))
        return stored
