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
