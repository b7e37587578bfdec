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

"""Serving the WSGI application with cheroot (as Ironic does), for
swconfig-api and swconfig-all. Production may use uWSGI/gunicorn instead,
with swconfig.api.wsgi:application."""

import socket
import threading
from typing import Any

from cheroot import wsgi
from oslo_log import log
from oslo_service import service

from swconfig.common import exception
from swconfig.conf import CONF

LOG = log.getLogger(__name__)

#: Seconds stop() waits, past cheroot's own shutdown timeout, for request
#: threads stuck in a call that does not end.
_STOP_GRACE = 2


class _BoundServer(wsgi.Server):
    """cheroot's server on a socket bound beforehand, by the process that
    launched this worker."""

    def __init__(self, bound: socket.socket, *args: Any,
                 **kwargs: Any) -> None:
        self._bound = bound
        super().__init__(*args, **kwargs)

    def bind(self, family: int, type: int, proto: int = 0) -> socket.socket:
        self.socket = self._bound
        self.bind_addr = self.resolve_real_bind_addr(self.socket)
        return self.socket


class WSGIService(service.ServiceBase):
    """One listening socket served by a pool of request threads.

    ``bind()`` takes the port in the launching process, before any worker
    is forked: a port in use then fails once, with a clear message,
    instead of in every worker the launcher restarts every few seconds.
    One worker listens on that very socket; with several, each binds its
    own with SO_REUSEPORT (the kernel spreads connections over them) and
    the launcher's socket, bound but never listening, only keeps the port
    reserved.
    """

    def __init__(self, app: Any, host: str, port: int, threads: int,
                 reuse_port: bool = False) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.threads = threads
        self.reuse_port = reuse_port
        self.server: wsgi.Server | None = None
        self._socket: socket.socket | None = None
        self._thread: threading.Thread | None = None

    def bind(self) -> None:
        """Take the port; StartupError, naming it, if that fails."""
        where = f'{self.host}:{self.port} ([api] bind_host, bind_port)'
        if self.reuse_port and self.port == 0:
            # Each worker would pick a port of its own.
            raise exception.StartupError(
                reason=f'several [api] workers need a fixed port, not {where}')
        try:
            family, type_, proto, _, address = socket.getaddrinfo(
                self.host, self.port, socket.AF_UNSPEC, socket.SOCK_STREAM,
                0, socket.AI_PASSIVE)[0]
        except socket.gaierror as exc:
            raise exception.StartupError(
                reason=f'cannot resolve {where}: {exc.strerror}') from None
        sock = wsgi.Server.prepare_socket(
            address, family, type_, proto, nodelay=True, ssl_adapter=None,
            reuse_port=self.reuse_port)
        try:
            sock.bind(address)
        except OSError as exc:
            sock.close()
            raise exception.StartupError(
                reason=f'cannot listen on {where}: '
                       f'{exc.strerror or exc}') from None
        self._socket = sock
        self.port = sock.getsockname()[1]

    def start(self) -> None:
        if self._socket is None:
            self.bind()
        options = {'numthreads': self.threads,
                   'server_name': 'swconfig-api',
                   'request_queue_size': CONF.api.backlog}
        if self.reuse_port:
            self.server = wsgi.Server((self.host, self.port), self.app,
                                      reuse_port=True, **options)
        else:
            self.server = _BoundServer(self._socket, (self.host, self.port),
                                       self.app, **options)
        # cheroot keeps 10 idle keep-alive connections by default and
        # closes the others after each response: with more pollers than
        # that, every request paid a reconnect.
        self.server.keep_alive_conn_limit = CONF.api.max_keepalive_connections
        self.server.prepare()
        self.port = self.server.bind_addr[1]
        LOG.info('API listening on http://%s:%s/', self.host, self.port)
        self._thread = threading.Thread(target=self.server.serve,
                                        name='wsgi-server', daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving; requests still running after cheroot's shutdown
        timeout are abandoned (cheroot itself would wait for them for
        ever, and SIGTERM with them)."""
        if self.server is None:
            return
        stopper = threading.Thread(target=self.server.stop,
                                   name='wsgi-stop', daemon=True)
        stopper.start()
        stopper.join(self.server.shutdown_timeout + _STOP_GRACE)
        if stopper.is_alive():
            LOG.warning('Stopped the API with requests still in progress '
                        '(they did not end within %s s)',
                        self.server.shutdown_timeout + _STOP_GRACE)

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def reset(self) -> None:
        """Nothing to reload: options are read per request."""
