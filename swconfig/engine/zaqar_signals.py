"""Consuming ZAQAR_SIGNAL signals, in the background.

Each engine claims the messages of the queues of the waiting ZAQAR_SIGNAL
deployments it owns (``coordination``): one request per deployment per
round. A message is deleted only after its signal is stored, keyed by
the message id, so a crash in between loses nothing and a message
claimed again is not stored twice.
"""

import json

from oslo_log import log

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common import signal_body
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import background
from swconfig.engine import coordination
from swconfig.engine import remote_signals
from swconfig.transports import zaqar
from swconfig.transports import zaqar_signal

LOG = log.getLogger(__name__)
TRANSPORT = zaqar_signal.ZaqarSignalTransport.name


class ZaqarSignalConsumer(background.Worker):
    name = 'zaqar-signals'

    def interval(self) -> float:
        return CONF.zaqar.signal_poll_interval

    def max_interval(self) -> float:
        return CONF.zaqar.max_retry_interval

    def run_once(self) -> int:
        """One round; returns how many signals it stored."""
        coordinator = coordination.get()
        coordinator.refresh()
        stored = 0
        for deployment in db_api.software_deployments_waiting(
                swconfig_context.get_admin_context(), TRANSPORT):
            if coordinator.owns(deployment['id']):
                stored += self.consume(deployment)
        return stored

    def consume(self, deployment: dict) -> int:
        queue = zaqar_signal.queue_for(deployment['id'],
                                       deployment['action_revision'])
        try:
            messages = zaqar.claim(queue)
        except exception.NotFound:
            return 0  # nothing posted yet
        stored = 0
        for message in messages:
            raw = json.dumps(message.get('body')).encode()
            try:
                payload, notes = signal_body.load(raw)
            except exception.SwconfigException as exc:
                LOG.warning('Message %s in %s cannot be used: %s',
                            message['id'], queue, exc)
                payload = None
            else:
                if notes:
                    LOG.info('Message %s in %s: %s', message['id'], queue,
                             '; '.join(notes))
                stored += remote_signals.store_and_apply(
                    deployment['id'], deployment['action_revision'],
                    payload, f'zaqar:{message["id"]}') is not None
            zaqar.delete_message(queue, message['id'],
                                 message.get('claim_id'))
        return stored
