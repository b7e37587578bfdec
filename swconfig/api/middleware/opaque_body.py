"""Keeps pecan away from request bodies.

pecan parses form and JSON bodies on its own, before any controller runs,
to pass their fields as keyword arguments: a malformed multipart body then
fails with a 500 and deep JSON with a RecursionError, and every JSON body is
parsed twice. swconfig reads bodies itself, with Heat's rules
(``swconfig.api.body``), so the real Content-Type is kept aside in the
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
