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

"""Keeps pecan away from request bodies.

pecan parses form and JSON bodies on its own, before any controller runs,
to pass their fields as keyword arguments: a malformed multipart body then
fails with a 500 and deep JSON with a RecursionError, and every JSON body is
parsed twice. swconfig reads bodies itself, with Heat's rules
(``swconfig.api.request_body``), so the real Content-Type is kept aside in the
environ and pecan sees an opaque one.
"""

from typing import Any

ENVIRON_KEY = 'swconfig.content_type'
OPAQUE = 'application/octet-stream'


class OpaqueBodyMiddleware:
    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Any) -> Any:
        environ[ENVIRON_KEY] = environ.get('CONTENT_TYPE', '')
        environ['CONTENT_TYPE'] = OPAQUE
        return self.app(environ, start_response)


def original_content_type(request: Any) -> str:
    """The Content-Type the client sent (also outside the middleware)."""
    return request.environ.get(ENVIRON_KEY, request.content_type or '')
