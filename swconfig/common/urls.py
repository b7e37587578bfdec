"""Every public URL of swconfig, spelled once.

The API's route table (``swconfig.api.router``) maps these templates to
their handlers, the OpenAPI document describes them, and the engine and
the signal transports build the agents' signed URLs from them. A
``{name}`` placeholder matches one path segment.
"""

import urllib.parse

from swconfig.common import signing

ROOT = '/'
V1 = '/v1'
OPENAPI = '/v1/openapi.json'

PROJECT = '/v1/{tenant_id}'
CONFIGS = PROJECT + '/software_configs'
CONFIG = CONFIGS + '/{config_id}'
DEPLOYMENTS = PROJECT + '/software_deployments'
DEPLOYMENT = DEPLOYMENTS + '/{deployment_id}'
DEPLOYMENT_SIGNAL = DEPLOYMENT + '/signal'
DEPLOYMENT_EVENTS = DEPLOYMENT + '/events'
SERVER_METADATA = DEPLOYMENTS + '/metadata/{server_id}'
VALIDATE = PROJECT + '/validate'
SERVERS = PROJECT + '/servers'
SERVER = SERVERS + '/{server_id}'
SERVER_AGENT_CONFIG = SERVER + '/agent-config'

# Signed URLs for agents, outside Keystone (the token is the credential).
AGENT_METADATA = '/agent/servers/{server_id}/metadata'
AGENT_SIGNAL = '/agent/deployments/{deployment_id}/signal'


def expand(template: str, **values: str) -> str:
    """``template`` with each placeholder replaced by its value, quoted as
    one path segment."""
    return template.format(**{
        name: urllib.parse.quote(str(value), safe='')
        for name, value in values.items()})


def agent_metadata_url(base_url: str, server_id: str,
                       token_revision: int) -> str:
    """The signed URL a server's agent polls for its metadata document."""
    token = signing.metadata_token(server_id, token_revision)
    path = expand(AGENT_METADATA, server_id=server_id)
    return f'{base_url}{path}?token={token}'


def agent_signal_url(base_url: str, deployment_id: str,
                     action_revision: int) -> str:
    """The signed URL an agent PUTs one action's signal to."""
    token = signing.signal_token(deployment_id, action_revision)
    path = expand(AGENT_SIGNAL, deployment_id=deployment_id)
    return f'{base_url}{path}?revision={action_revision}&token={token}'
