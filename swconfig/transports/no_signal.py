"""NO_SIGNAL: nothing to report; the deployment is COMPLETE at once."""

from swconfig.transports import base


class NoSignalTransport(base.SignalTransport):
    name = 'NO_SIGNAL'
    waits_for_signal = False

    def signal_inputs(self, server: dict, deployment_id: str,
                      action_revision: int) -> list[dict]:
        return []
