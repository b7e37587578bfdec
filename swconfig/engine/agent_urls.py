"""The signed URLs handed to agents (see swconfig.api.agent for the
handlers behind them)."""

import urllib.parse

from swconfig.common import signing

METADATA_PATH = '/agent/servers/{server_id}/metadata'
SIGNAL_PATH = '/agent/deployments/{deployment_id}/signal'


def metadata_url(base_url: str, server_id: str, token_revision: int) -> str:
    path = METADATA_PATH.format(
        server_id=urllib.parse.quote(server_id, safe=''))
    token = signing.metadata_token(server_id, token_revision)
    return f'{base_url}{path}?token={token}'


def signal_url(base_url: str, deployment_id: str,
               action_revision: int) -> str:
    path = SIGNAL_PATH.format(deployment_id=deployment_id)
    token = signing.signal_token(deployment_id, action_revision)
    return f'{base_url}{path}?revision={action_revision}&token={token}'
