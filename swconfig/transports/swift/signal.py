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

"""TEMP_URL_SIGNAL: the agent PUTs its signal to a Swift TempURL.

The object lives in swconfig's own Swift account ([swift]), named
``<deployment id>/<action revision>`` in the deployment's signal
container, so a new action gets a new object and a late signal of an old
one is never mistaken for the new one. The URL is signed locally: making
it costs no request to Swift. Engines list the containers and fetch what
changed (``poller``); a config the client derived points at the user's
own account instead, read when the deployment is shown
(``client_derived``).
"""

from typing import Any

from oslo_log import log

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.transports import base
from swconfig.transports.swift import client
from swconfig.transports.swift import client_derived
from swconfig.transports.swift import mixins
from swconfig.transports.swift import poller

LOG = log.getLogger(__name__)


def object_name(deployment_id: str, action_revision: int) -> str:
    return f'{deployment_id}/{action_revision}'


class TempUrlSignalTransport(mixins.SwiftOptionsAndHealth,
                             base.SignalTransport):
    name = 'TEMP_URL_SIGNAL'

    def periodic_tasks(self, sink: base.SignalSink
                       ) -> list[base.PeriodicTask]:
        return [poller.SignalPoller(self.name, sink)]

    def signal_inputs(self, server: dict, deployment_id: str,
                      action_revision: int) -> list[dict]:
        container = client.signal_container(deployment_id)
        client.ensure_container(container)
        url = client.temp_url(container,
                              object_name(deployment_id, action_revision),
                              'PUT')
        return base.signal_url_inputs(url)

    def forget(self, deployment: dict) -> None:
        deployment_id = deployment['id']
        container = client.signal_container(deployment_id)
        try:
            _headers, objects = client.call(
                'get_container', container, prefix=f'{deployment_id}/',
                full_listing=True)
            for item in objects:
                client.call('delete_object', container, item['name'])
        except exception.NotFound:
            return
        except exception.BackendUnavailable as exc:
            # The engine's listing removes what a deleted deployment left.
            LOG.warning('Could not remove the signal objects of deleted '
                        'deployment %s now (%s); the signal poller will',
                        deployment_id, exc)

    def poll_on_show(self, context: RequestContext, deployment: dict,
                     config_inputs: dict[str, Any], headers: Any,
                     sink: base.SignalSink) -> bool:
        return client_derived.poll(context, deployment, config_inputs,
                                   headers.get('X-Service-Catalog'), sink)
