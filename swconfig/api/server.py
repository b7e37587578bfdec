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

"""The HTTP server of swconfig-api and swconfig-all: granian's compiled
server (swconfig.api.http_worker) on a socket bound by the launching
process; eventlet's with ``[DEFAULT] service_backend = eventlet``
(swconfig.api.green_worker). Production may run
swconfig.api.wsgi:application under uWSGI or gunicorn instead."""

from collections.abc import Callable
from collections.abc import Iterable
import socket
import sys
import threading
import time
from typing import Any

from oslo_log import log
from oslo_service import service

from swconfig.api import background
from swconfig.api import http_worker
from swconfig.common import exception
from swconfig.conf import CONF

LOG = log.getLogger(__name__)

#: Seconds stop() lets requests in progress finish (a ``?wait=`` watch
#: may run this long) before the process goes on without them.
STOP_TIMEOUT = 5


class _InFlight:
    """The application, counting the requests it is running, so that
    stop() can wait for them (granian has no way to join its threads).
    The count is kept under a plain lock (its ``with`` is C, unlike a
    Condition's): every request passes here, stop() only once."""

    #: How often wait_idle looks at the count.
    POLL_INTERVAL = 0.01

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app
        self.count = 0
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any],
                 start_response: Callable[..., Any]) -> Iterable[bytes]:
        with self._lock:
            self.count += 1
        try:
            return self.app(environ, start_response)
        finally:
            with self._lock:
                self.count -= 1

    def wait_idle(self, timeout: float) -> bool:
        """Whether every request ended within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while self.count:
            if time.monotonic() >= deadline:
                return False
            time.sleep(self.POLL_INTERVAL)
        return True


def _socket(host: str, port: int, reuse_port: bool) -> socket.socket:
    """A TCP socket bound to host:port; StartupError, naming the
    options, if that fails."""
    where = f'{host}:{port} ([api] bind_host, bind_port)'
    try:
        family, type_, proto, _, address = socket.getaddrinfo(
            host, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0,
            socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise exception.StartupError(
            reason=f'cannot resolve {where}: {exc.strerror}') from None
    sock = socket.socket(family, type_, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise exception.StartupError(
            reason=f'cannot listen on {where}: '
                   f'{exc.strerror or exc}') from None
    return sock


class WSGIService(service.ServiceBase):
    """One listening socket served by granian, with a pool of request
    threads.

    ``bind()`` takes the port in the launching process, before any worker
    is forked: a port in use then fails once, with a clear message,
    instead of in every worker the launcher restarts every few seconds.
    One worker listens on that very socket; with several, each binds its
    own with SO_REUSEPORT (the kernel spreads connections over them) and
    the launcher's socket, bound but never listening, only keeps the port
    reserved.
    """

    def __init__(self, app: Callable[..., Iterable[bytes]], host: str,
                 port: int, threads: int, reuse_port: bool = False) -> None:
        self.app = _InFlight(app)
        self.host = host
        self.port = port
        self.threads = threads
        self.reuse_port = reuse_port
        self.server: Any = None
        self._socket: socket.socket | None = None
        self._stopped = threading.Event()

    def bind(self) -> None:
        """Take the port; StartupError, naming it, if that fails."""
        if self.reuse_port and self.port == 0:
            # Each worker would pick a port of its own.
            raise exception.StartupError(
                reason=f'several [api] workers need a fixed port, not '
                       f'{self.host}:0 ([api] bind_host, bind_port)')
        self._socket = _socket(self.host, self.port, self.reuse_port)
        self.port = self._socket.getsockname()[1]

    def start(self) -> None:
        if self._socket is None:
            self.bind()
        if self.reuse_port:
            sock = _socket(self.host, self.port, reuse_port=True)
        else:
            sock, self._socket = self._socket, None
        backlog = CONF.api.backlog
        sock.listen(backlog)
        self._stopped.clear()
        worker: Any = http_worker.HTTPWorker
        if CONF.service_backend == 'eventlet':
            # Only then: it imports eventlet.
            from swconfig.api import green_worker
            worker = green_worker.GreenHTTPWorker
        self.server = worker(self.app, sock, self.threads, backlog,
                             sys.stderr,
                             unread_body_limit=CONF.api.max_json_body_size)
        self.server.start()
        background.start()  # the worker's, with the worker
        LOG.info('API listening on http://%s:%s/', self.host, self.port)

    def stop(self) -> None:
        """Stop accepting; requests still running after STOP_TIMEOUT
        seconds are abandoned."""
        if self.server is None:
            return
        self.server.stop()
        started = time.monotonic()
        if not self.app.wait_idle(STOP_TIMEOUT):
            LOG.warning('Stopped the API with %d requests still in '
                        'progress (they did not end within %s s)',
                        self.app.count, STOP_TIMEOUT)
        else:
            LOG.debug('API stopped in %.2f s',
                      time.monotonic() - started)
        # After the requests: a ?wait they make is watched to its end,
        # a signal they store is cast.
        background.stop()
        self.server.close()
        self.server = None
        self._stopped.set()

    def wait(self) -> None:
        self._stopped.wait()

    def reset(self) -> None:
        """Nothing to reload: options are read per request."""
