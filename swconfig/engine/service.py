"""The engine service: an RPC server on the engine topic."""

import socket
from typing import Any

from oslo_log import log
import oslo_messaging as messaging
from oslo_service import service

from swconfig import transports
from swconfig.common import rpc
from swconfig.common import signing
from swconfig.conf import CONF
from swconfig.engine import manager
from swconfig.engine import signals

LOG = log.getLogger(__name__)


def _periodic(task: Any) -> Any:
    """A periodic task that logs its failures and keeps running."""
    def run() -> None:
        try:
            task()
        except Exception:
            LOG.exception('Periodic task %s failed', task.__name__)
    return run


class EngineService(service.Service):
    """Serves EngineAPI calls; several engines may share the topic."""

    def __init__(self) -> None:
        super().__init__()
        self.host = CONF.engine.host or socket.gethostname()
        self.manager = manager.EngineManager()
        self._server: Any = None

    def start(self) -> None:
        super().start()
        # Fail at start-up, not at the first deployment, on a bad choice.
        transports.get(CONF.default_deployment_signal_transport)
        signing.keyring()
        target = messaging.Target(topic=CONF.engine.topic, server=self.host,
                                  version=manager.EngineManager.RPC_API_VERSION)
        executor = ('eventlet' if CONF.service_backend == 'eventlet'
                    else 'threading')
        self._server = rpc.get_server(target, [self.manager],
                                      executor=executor)
        self._server.start()
        self.tg.add_timer_args(CONF.agent.signal_sweep_interval,
                               _periodic(signals.sweep),
                               stop_on_exception=False)
        self.tg.add_timer_args(CONF.agent.timeout_check_interval,
                               _periodic(signals.fail_timed_out),
                               stop_on_exception=False)
        LOG.info('Engine %s listening on topic %s', self.host,
                 CONF.engine.topic)

    def stop(self, graceful: bool = True) -> None:
        if self._server is not None:
            self._server.stop()
            self._server.wait()
            self._server = None
        super().stop(graceful)
