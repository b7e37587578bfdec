"""GET /v1/openapi.json: the API's OpenAPI document.

It is public documentation: no project in the path and no policy check.
"""

import pecan

from swconfig.api import openapi


@pecan.expose(content_type='application/json')
def document() -> bytes:
    # Serialised once per process: the document never changes at run time.
    return openapi.document_json()
