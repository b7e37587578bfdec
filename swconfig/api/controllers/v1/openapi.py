"""GET /v1/openapi.json: the API's OpenAPI document.

It is public documentation: no project in the path and no policy check,
so it only needs what every request gets from the middleware (a token when
auth_strategy is keystone; nothing with noauth).
"""

import pecan

from swconfig.api import openapi


class OpenAPIController:
    """A generic controller, not a RestController: a RestController's 405
    makes pecan fall back to V1Controller._lookup, which would treat
    ``openapi.json`` as a project id and answer other methods with 404."""

    @pecan.expose(generic=True)
    def index(self) -> None:
        pecan.abort(405)

    @index.when(method='GET', content_type='application/json')
    def index_get(self) -> bytes:
        # Serialised once per process: the document never changes at run
        # time.
        return openapi.document_json()
