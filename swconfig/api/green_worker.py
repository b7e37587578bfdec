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

"""eventlet's HTTP server, for ``[DEFAULT] service_backend = eventlet``.

Under eventlet's monkey-patching, locks, queues and sockets are green:
granian's native request threads would block the hub whenever they wait
on one (swconfig-all's in-process message bus, for one). With that
backend the API is served the way eventlet services always were, by
``eventlet.wsgi`` on a green thread per connection. It offers the same
methods as swconfig.api.http_worker.HTTPWorker.
"""

from collections.abc import Callable
from collections.abc import Iterable
import socket
from typing import Any

import eventlet
from eventlet import wsgi


class _NoLog:
    """eventlet's request log, dropped: swconfig logs what matters."""

    def write(self, data: str) -> None:
        pass


class GreenHTTPWorker:
    """eventlet.wsgi serving ``app`` on a listening socket until
    ``stop()``, with at most ``threads`` requests at once.
    ``unread_body_limit`` is accepted for HTTPWorker's sake: eventlet
    reads a body the application left unread itself, whatever its
    length."""

    def __init__(self, app: Callable[..., Iterable[bytes]],
                 sock: socket.socket, threads: int, backlog: int,
                 errors: Any, *, unread_body_limit: int) -> None:
        self._app = app
        self._socket = sock
        self._threads = threads
        self._server: Any = None

    def start(self) -> None:
        self._server = eventlet.spawn(
            wsgi.server, self._socket, self._app,
            custom_pool=eventlet.GreenPool(self._threads),
            log=_NoLog(), log_output=False, debug=False,
            # An idle keep-alive connection is dropped after this long.
            keepalive=60)

    def stop(self) -> None:
        if self._server is not None:
            # The accept loop ends; requests in progress go on.
            self._server.kill()
            self._server = None
            self._socket.close()

    def close(self) -> None:
        """Nothing left once stop() has closed the listener."""
