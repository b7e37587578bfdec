"""GET / and GET /v1: the version documents (public, no project)."""

from typing import Any

import pecan

from swconfig.common import urls
from swconfig.conf import CONF


def _version() -> dict[str, Any]:
    # As Nova's public_endpoint: the configured URL when there is one (a
    # proxy in front rewrites the Host), else the one the request used.
    base = (CONF.api.public_url or pecan.request.host_url).rstrip('/')
    return {
        'id': 'v1.0',
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': f'{base}{urls.V1}/'}],
    }


@pecan.expose('json')
def root() -> dict:
    return {'versions': [_version()]}


@pecan.expose('json')
def v1() -> dict:
    return {'version': _version()}
