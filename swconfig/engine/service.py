"""The engine service: an RPC server on the engine topic."""

import socket
import threading
from typing import Any

from oslo_log import log
import oslo_messaging as messaging
from oslo_service import service

from swconfig import transports
from swconfig.common import rpc
from swconfig.common import signing
from swconfig.conf import CONF
from swconfig.engine import actions
from swconfig.engine import background
from swconfig.engine import coordination
from swconfig.engine import document_push
from swconfig.engine import manager
from swconfig.engine import rpcapi
from swconfig.engine import signals
from swconfig.engine import swift_signals
from swconfig.engine import zaqar_signals

LOG = log.getLogger(__name__)

#: Seconds start() waits for the message bus before going on without it
#: (swconfig-all then still starts its API, which answers writes 503).
_BUS_WAIT = 3
#: Seconds between purges of expired Idempotency-Keys (each removes a
#: bounded batch; keys live a day by default, so hourly is plenty).
KEY_PURGE_INTERVAL = 3600


def _periodic(task: Any) -> Any:
    """A periodic task that logs its failures and keeps running."""
    def run() -> None:
        try:
            task()
        except Exception:
            LOG.exception('Periodic task %s failed', task.__name__)
    return run


def check_config() -> None:
    """Fail with ConfigurationError on what would stop an engine at once.

    Console scripts call it before launching: a failure inside a worker
    process would only make the launcher restart it every few seconds.
    """
    transports.check_defaults(CONF.default_deployment_signal_transport,
                              CONF.default_software_config_transport)
    signing.keyring()
    # Only the API sends under the pin, but the file is often shared: a
    # bad value fails here too, not when an API server restarts later.
    rpcapi.version_cap()


def background_workers() -> list[background.Worker]:
    """The background work this configuration needs: the pollers of the
    signal transports it configures, and document pushes when a metadata
    transport that pushes is configured."""
    workers: list[background.Worker] = []
    available = transports.available()
    if 'TEMP_URL_SIGNAL' in available:
        workers.append(swift_signals.SwiftSignalPoller())
    if 'ZAQAR_SIGNAL' in available:
        workers.append(zaqar_signals.ZaqarSignalConsumer())
    if transports.pushing_metadata_available():
        workers.append(document_push.DocumentPusher())
    return workers


class EngineService(service.Service):
    """Serves EngineAPI calls; several engines may share the topic."""

    def __init__(self) -> None:
        super().__init__()
        self.host = CONF.engine.host or socket.gethostname()
        self.manager = manager.EngineManager()
        self._server: Any = None
        self._listening = threading.Event()
        self._workers: background.Runner | None = None

    def start(self) -> None:
        super().start()
        # Fail at start-up, not at the first deployment, on a bad choice.
        check_config()
        target = messaging.Target(topic=CONF.engine.topic, server=self.host,
                                  version=manager.EngineManager.RPC_API_VERSION)
        executor = ('eventlet' if CONF.service_backend == 'eventlet'
                    else 'threading')
        self._server = rpc.get_server(target, [self.manager],
                                      executor=executor)
        self._listening.clear()
        # oslo.messaging connects for as long as the broker is down, and
        # its stop() waits for that: connect on a thread of its own.
        threading.Thread(target=self._start_server, args=(self._server,),
                         name='rpc-server-start', daemon=True).start()
        if not self._listening.wait(_BUS_WAIT):
            LOG.warning('Message bus not reachable yet: engine %s keeps '
                        'trying and serves topic %s once it is', self.host,
                        CONF.engine.topic)
        self.tg.add_timer_args(CONF.agent.signal_sweep_interval,
                               _periodic(signals.sweep),
                               stop_on_exception=False)
        self.tg.add_timer_args(CONF.agent.timeout_check_interval,
                               _periodic(signals.fail_timed_out),
                               stop_on_exception=False)
        self.tg.add_timer_args(KEY_PURGE_INTERVAL,
                               _periodic(actions.purge_expired_keys),
                               stop_on_exception=False)
        coordination.get().start()
        self._workers = background.Runner(background_workers())
        self._workers.start()

    def _start_server(self, server: Any) -> None:
        try:
            server.start()
        except Exception:
            LOG.exception('Engine %s could not listen on topic %s',
                          self.host, CONF.engine.topic)
            return
        self._listening.set()
        LOG.info('Engine %s listening on topic %s', self.host,
                 CONF.engine.topic)

    def stop(self, graceful: bool = True) -> None:
        if self._workers is not None:
            self._workers.stop()
            self._workers = None
        # Leaving the group hands this engine's items over at once.
        coordination.get().stop()
        if self._server is not None:
            if self._listening.is_set():
                self._server.stop()
                self._server.wait()
            else:
                # Still connecting: its daemon thread ends with the process.
                LOG.warning('Engine %s stopped before it reached the '
                            'message bus', self.host)
            self._server = None
        super().stop(graceful)
