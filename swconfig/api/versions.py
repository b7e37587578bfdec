"""The version documents served at / and /v1."""

from typing import Any


def version_document(host_url: str) -> dict[str, Any]:
    return {
        'id': 'v1.0',
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': f'{host_url}/v1/'}],
    }
