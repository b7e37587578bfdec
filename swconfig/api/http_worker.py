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

"""granian's compiled HTTP server, run on a thread of this process.

granian (Rust, wheels for every platform we run on) parses HTTP, keeps
connections alive and writes answers outside the interpreter; Python runs
only the WSGI application, on granian's pool of blocking threads. Its
public entry points start worker processes of their own, which
swconfig-all cannot use: its engine and its in-process message bus must
live in the process that answers the API. So this module drives
granian's worker object directly, on a socket we bound, from a thread of
ours; it is the one module that knows that interface, which is why the
requirement pins granian's minor version. granian's documented embedded
server serves only asyncio applications (RSGI, ASGI) and was measured in
its place: every request it hands to a thread costs far more CPU (the
administrator guide's scaling page has the figures).
"""

import asyncio
from collections.abc import Callable
from collections.abc import Iterable
import secrets
import socket
import threading
from typing import Any

from granian import _futures
from granian import _granian
from granian import http as granian_http
from granian import wsgi as granian_wsgi

#: What every request's environ starts from (granian's scope adds the
#: request's own keys). Unlike granian's own wrapper, nothing of the
#: process environment: it is not the request's business.
_BASE_ENVIRON = {
    'GATEWAY_INTERFACE': 'CGI/1.1',
    'SCRIPT_NAME': '',
    'SERVER_SOFTWARE': 'swconfig',
    'wsgi.input_terminated': True,
    'wsgi.multiprocess': False,
    'wsgi.multithread': True,
    'wsgi.run_once': False,
    'wsgi.version': (1, 0),
}


class _StartResponse:
    """start_response for one request: granian wants the status as a
    number and the headers as they are."""

    __slots__ = ('status', 'headers')

    def __init__(self) -> None:
        self.status = 500
        self.headers: list[tuple[str, str]] = []

    def __call__(self, status: str, headers: list[tuple[str, str]],
                 exc_info: Any = None) -> None:
        self.status = int(status[:3])
        self.headers = headers


def _finish_body(environ: dict[str, Any], headers: list[tuple[str, str]],
                 unread_limit: int) -> list[tuple[str, str]]:
    """The answer's headers, once the request's body is read to its end.

    An answer given without reading the body (a 403 or 404 decided from
    the URL alone) would otherwise leave granian to drop the connection
    without saying so whenever the body arrived after the answer, and a
    client sending its next request on that connection would get no
    answer at all. A body longer than ``unread_limit`` is not read: the
    answer then says ``Connection: close``.
    """
    length = environ.get('CONTENT_LENGTH')
    if length is not None and int(length) <= unread_limit:
        environ['wsgi.input'].read()
        return headers
    if length is None and (len(environ['wsgi.input'].read(unread_limit + 1))
                           <= unread_limit):
        return headers  # chunked, and short enough
    return [*headers, ('Connection', 'close')]


def _runner(app: Callable[..., Iterable[bytes]], errors: Any,
            unread_limit: int, warm_up: '_WarmUp'
            ) -> Callable[[Any, dict[str, Any]], int]:
    """The callable granian calls with each request's protocol object
    and scope (a dict of the request's WSGI keys)."""
    base = dict(_BASE_ENVIRON, **{'wsgi.errors': errors})
    token = warm_up.token  # a local: every request, polls too, tests it

    def run(protocol: Any, scope: dict[str, Any]) -> int:
        if scope.get(WARM_UP_KEY) == token:
            warm_up.hold()
            protocol.response_bytes(204, [], b'')
            return 204
        answer = _StartResponse()
        environ = base | scope
        body = app(environ, answer)
        headers = answer.headers
        if 'CONTENT_LENGTH' in scope or 'HTTP_TRANSFER_ENCODING' in scope:
            headers = _finish_body(environ, headers, unread_limit)
        if isinstance(body, list):
            protocol.response_bytes(answer.status, headers, b''.join(body))
        else:
            protocol.response_iter(answer.status, headers,
                                   granian_wsgi.ResponseIterWrap(body))
        return answer.status

    return run


#: The environ key of the header that marks start()'s own requests.
WARM_UP_KEY = 'HTTP_X_SWCONFIG_WARM_UP'
#: Seconds one of them may wait for a request thread before the warm-up
#: ends (a busy server's own requests took the thread it started).
_ARRIVAL_TIMEOUT = 5.0
#: Seconds a started thread is held at most, in case start() is gone.
_HOLD_LIMIT = 10.0
#: Seconds an idle request thread lives: longer than any server runs.
_IDLE_TIMEOUT = 10 * 365 * 24 * 3600


class _WarmUp:
    """Starts every request thread of granian's pool when the server
    starts, so that a request never waits for one to be started.

    granian starts a thread for a request that finds none idle, one per
    request, and two requests arriving at once may start only one: the
    other stays queued until a later request starts another thread or a
    running request ends. With long polls (``?wait``) holding threads, a
    signal or a cancel sent after a burst of them waited as long as they
    did. Requests of the server's own, each sent once the one before
    holds its thread, start the threads one at a time, which cannot
    race; they are marked by a header with a token of this process, and
    never reach the application. Idle threads are then kept for good.
    With several workers on one port the kernel may hand one of them to
    another worker, which answers it as any request: the warm-up then
    ends there, and the threads not started yet start as requests come.
    """

    def __init__(self) -> None:
        self.token = secrets.token_hex(16)
        self._arrived = threading.Semaphore(0)
        self._release = threading.Event()

    def hold(self) -> None:
        """In a request thread: say so, then wait until all are held."""
        self._arrived.release()
        self._release.wait(_HOLD_LIMIT)

    def run(self, address: tuple[str, int], threads: int) -> None:
        """Hold up to ``threads`` request threads, one after another,
        then let them all go."""
        request = (f'GET / HTTP/1.1\r\nHost: warm-up\r\n'
                   f'X-Swconfig-Warm-Up: {self.token}\r\n'
                   f'Connection: close\r\n\r\n').encode()
        connections = []
        try:
            for _ in range(threads):
                try:
                    connection = socket.create_connection(
                        address, timeout=_HOLD_LIMIT)
                    connections.append(connection)
                    connection.sendall(request)
                except OSError:
                    break  # stopped meanwhile
                if not self._arrived.acquire(timeout=_ARRIVAL_TIMEOUT):
                    break
        finally:
            self._release.set()
            for connection in connections:
                try:
                    connection.recv(1024)
                except OSError:
                    pass
                connection.close()


class HTTPWorker:
    """granian serving ``app`` on a listening socket until ``stop()``.

    ``start()`` returns at once: granian's runtime and its blocking
    threads run on threads of their own. A request body the application
    left unread is read before the answer when it is at most
    ``unread_body_limit`` bytes long, so that the connection stays
    usable (see _finish_body). ``stop()`` closes the listener;
    requests already running finish on those threads.
    """

    def __init__(self, app: Callable[..., Iterable[bytes]],
                 sock: socket.socket, threads: int, backlog: int,
                 errors: Any, *, unread_body_limit: int) -> None:
        self._app = app
        self._unread_body_limit = unread_body_limit
        self._socket = sock
        self._address = sock.getsockname()[:2]
        self._threads = threads
        self._backlog = backlog
        self._errors = errors
        self._signal: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        # granian owns the descriptor from here and closes it at stop.
        holder = _granian.SocketHolder(self._socket.detach(), False,
                                       self._backlog)
        self._signal = _granian.WorkerSignal()
        # WSGI requests never run on it; granian's scheduler wants one.
        self._loop = asyncio.new_event_loop()
        worker = _granian.WSGIWorker(
            1, (None, holder), None,
            1,                          # Rust I/O threads
            512,                        # Rust blocking-task threads
            self._threads,              # Python request threads
            _IDLE_TIMEOUT,              # their idle timeout, seconds
            self._backlog,              # requests in progress at most
            '1',                        # HTTP/1.1 only
            granian_http.HTTP1Settings(), None,
            None,                       # no static files
            False, None, None, None, 'tls1.3', None, [], False,  # no TLS
            (None, None))               # no metrics
        warm_up = _WarmUp()
        scheduler = _futures._new_cbscheduler(
            self._loop,
            _runner(self._app, self._errors, self._unread_body_limit,
                    warm_up),
            impl_asyncio=False)
        worker.serve_mtr(scheduler, self._loop, self._signal)
        threading.Thread(target=warm_up.run,
                         args=(self._address, self._threads),
                         name='http-warm-up', daemon=True).start()

    def stop(self) -> None:
        if self._signal is not None:
            self._signal.set()
            self._signal = None

    def close(self) -> None:
        """Release what start() took, once nothing runs any more."""
        if self._loop is not None:
            self._loop.close()
            self._loop = None
