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

"""Running a middleware only for the requests it acts on.

oslo.middleware's CORS middleware is built on webob: a request object,
a response object and an ``inspect`` of its own signature on every
request, even one it leaves as it is. ``Bypass``
hands a request straight to the app behind when the middleware would do
nothing with it, which the predicate here decides exactly as CORS does.
"""

from collections.abc import Callable
from typing import Any


class Bypass:
    """``middleware`` (wrapping ``app``) for requests ``acts_on``; ``app``
    directly for the others."""

    def __init__(self, middleware: Any, app: Any,
                 acts_on: Callable[[dict], bool]) -> None:
        self.middleware = middleware
        self.app = app
        self.acts_on = acts_on

    def __call__(self, environ: dict, start_response: Any) -> Any:
        if self.acts_on(environ):
            return self.middleware(environ, start_response)
        return self.app(environ, start_response)


def cors_acts_on(environ: dict) -> bool:
    """oslo's CORS decorates answers to requests with an ``Origin`` and
    turns any answer to an ``OPTIONS`` into a 200, nothing else."""
    return 'HTTP_ORIGIN' in environ or environ['REQUEST_METHOD'] == 'OPTIONS'

