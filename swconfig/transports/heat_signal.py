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

"""HEAT_SIGNAL: the agent PUTs its signal to a signed URL on swconfig.

heat-config-notify sends to ``deploy_signal_id`` with ``deploy_signal_verb``;
PUT (not POST) makes it retry on 5xx. No Keystone user is involved.
"""

from swconfig.common import urls
from swconfig.transports import base


class HeatSignalTransport(base.SignalTransport):
    name = 'HEAT_SIGNAL'

    def signal_inputs(self, server: dict, deployment_id: str,
                      action_revision: int) -> list[dict]:
        return base.signal_url_inputs(
            urls.agent_signal_url(deployment_id, action_revision))
