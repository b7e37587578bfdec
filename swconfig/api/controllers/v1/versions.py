"""GET / and GET /v1: the version documents (public, no project)."""

from typing import Any

import pecan

from swconfig.common import urls


def _version(host_url: str) -> dict[str, Any]:
    return {
        'id': 'v1.0',
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': f'{host_url}{urls.V1}/'}],
    }


@pecan.expose('json')
def root() -> dict:
    return {'versions': [_version(pecan.request.host_url)]}


@pecan.expose('json')
def v1() -> dict:
    return {'version': _version(pecan.request.host_url)}
