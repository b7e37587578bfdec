"""Paths anybody may read without a token: the version documents and the
OpenAPI description (Heat, too, serves its versions before auth_token)."""

from typing import Any

PUBLIC_PATHS = frozenset(('/', '/v1', '/v1/', '/v1/openapi.json'))
READ_METHODS = frozenset(('GET', 'HEAD'))


class PublicPaths:
    def __init__(self, authenticated_app: Any, public_app: Any) -> None:
        self.authenticated_app = authenticated_app
        self.public_app = public_app

    def __call__(self, environ: dict, start_response: Any) -> Any:
        if (environ.get('PATH_INFO') in PUBLIC_PATHS
                and environ.get('REQUEST_METHOD') in READ_METHODS):
            return self.public_app(environ, start_response)
        return self.authenticated_app(environ, start_response)
