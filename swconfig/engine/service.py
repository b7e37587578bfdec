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

"""The engine service: an RPC server on the engine topic."""

import socket
import threading
from typing import Any

from oslo_log import log
import oslo_messaging as messaging
from oslo_service import service

from swconfig import transports
from swconfig.common import background
from swconfig.common import rpc
from swconfig.common import signing
from swconfig.conf import CONF
from swconfig.engine import coordination
from swconfig.engine import heartbeat
from swconfig.engine import manager
from swconfig.engine import periodics
from swconfig.engine import rpcapi

LOG = log.getLogger(__name__)

#: Seconds start() waits for the message bus before going on without it
#: (swconfig-all then still starts its API, which answers writes 503).
_BUS_WAIT = 3


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


class EngineService(service.Service):
    """Serves EngineAPI calls; several engines may share the topic."""

    def __init__(self) -> None:
        super().__init__()
        self.host = CONF.engine.host or socket.gethostname()
        self.manager = manager.EngineManager()
        self._server: Any = None
        self._listening = threading.Event()
        self._periodics: background.Runner | None = None

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
        # Before it listens: once "listening on topic" is logged, the API
        # counts this engine as running.
        heartbeat.BEAT.start(self.host)
        # oslo.messaging connects for as long as the broker is down, and
        # its stop() waits for that: connect on a thread of its own.
        threading.Thread(target=self._start_server, args=(self._server,),
                         name='rpc-server-start', daemon=True).start()
        if not self._listening.wait(_BUS_WAIT):
            LOG.warning('Message bus not reachable yet: engine %s keeps '
                        'trying and serves topic %s once it is', self.host,
                        CONF.engine.topic)
        coordinator = coordination.get()
        coordinator.start()
        self._periodics = background.Runner(periodics.table(), coordinator,
                                           periodics.is_outage)
        self._periodics.start()

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
        if self._periodics is not None:
            self._periodics.stop()
            self._periodics = None
        # The API stops counting this engine at once.
        heartbeat.BEAT.stop()
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
