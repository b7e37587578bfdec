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

"""ZAQAR_SIGNAL: the agent posts its signal to a Zaqar queue.

Each action of a deployment gets a queue of its own
(``<prefix>-s-<deployment id>-<action revision>``; the former action's
queue is deleted once a new one has started, so a late message of an old
action can never complete the new one) and a pre-signed URL that lets
the agent post messages there, and do nothing else, with no Keystone user
per deployment. The derived config's inputs:

``deploy_queue_id``
    The queue.
``deploy_project_id``
    The project the queue belongs to (sent as ``X-Project-ID``).
``deploy_zaqar_endpoint``
    Zaqar's URL as servers reach it.
``deploy_queue_signature``, ``deploy_queue_expires``,
``deploy_queue_paths``, ``deploy_queue_methods``
    The pre-signed URL: what a client sends as ``URL-Signature``,
    ``URL-Expires``, ``URL-Paths`` and ``URL-Methods`` (python-zaqarclient's
    ``signed-url`` auth backend takes them as they are).

The signal is the message's body. heat-agents' own Zaqar branch cannot
post with current python-zaqarclient; see the documentation for how an
agent posts.
"""

import json

from oslo_log import log

from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.transports import base
from swconfig.transports.zaqar import client
from swconfig.transports.zaqar import consumer
from swconfig.transports.zaqar import mixins

LOG = log.getLogger(__name__)


class ZaqarSignalTransport(mixins.ZaqarOptionsAndHealth,
                           base.SignalTransport):
    name = 'ZAQAR_SIGNAL'

    def periodic_tasks(self, sink: base.SignalSink
                       ) -> list[base.PeriodicTask]:
        return [consumer.SignalConsumer(self.name, sink)]

    def signal_inputs(self, server: dict, deployment_id: str,
                      action_revision: int) -> list[dict]:
        queue = consumer.queue_for(deployment_id, action_revision)
        client.create_queue(queue)
        signed = client.share(queue, ['POST'],
                              CONF.zaqar.signed_url_expiry)
        inputs = {
            'deploy_queue_id': (queue, 'ID of queue to use for signaling '
                                       'output values'),
            'deploy_project_id': (signed['project'],
                                  'Project of the signal queue'),
            'deploy_zaqar_endpoint': (client.agent_endpoint(),
                                      'Zaqar endpoint to post the signal '
                                      'to'),
            'deploy_queue_signature': (signed['signature'],
                                       'Pre-signed URL signature'),
            'deploy_queue_expires': (signed['expires'],
                                     'Pre-signed URL expiry'),
            'deploy_queue_paths': (json.dumps(signed['paths']),
                                   'Pre-signed URL paths (JSON list)'),
            'deploy_queue_methods': (json.dumps(signed['methods']),
                                     'Pre-signed URL methods (JSON list)'),
        }
        return [base.string_input(name, value, description)
                for name, (value, description) in inputs.items()]

    def forget(self, deployment: dict) -> None:
        self.forget_action(deployment['id'], deployment['action_revision'])

    def forget_action(self, deployment_id: str, action_revision: int
                      ) -> None:
        self._delete(consumer.queue_for(deployment_id, action_revision))

    @staticmethod
    def _delete(queue: str) -> None:
        try:
            client.delete_queue(queue)
        except exception.BackendUnavailable as exc:
            LOG.warning('Could not delete Zaqar queue %s: %s', queue, exc)
