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

"""Every public URL of swconfig, spelled once.

The API's route table (``swconfig.api.routes``) maps these templates to
their handlers, the OpenAPI document describes them, and the engine and
the signal transports build the agents' signed URLs from them. A
``{name}`` placeholder matches one path segment.
"""

import ipaddress
import socket
import urllib.parse

from oslo_config import cfg

from swconfig.common import signing
from swconfig.conf import CONF

ROOT = '/'
V1 = '/v1'
OPENAPI = '/v1/openapi.json'
HEALTHCHECK = '/healthcheck'
#: The web dashboard: static pages calling the URLs below.
DASHBOARD = '/dashboard'

PROJECT = '/v1/{tenant_id}'
CONFIGS = PROJECT + '/software_configs'
CONFIG = CONFIGS + '/{config_id}'
CONFIG_INPUT_CHECK = CONFIG + '/input_check'
DEPLOYMENTS = PROJECT + '/software_deployments'
DEPLOYMENT = DEPLOYMENTS + '/{deployment_id}'
DEPLOYMENT_SIGNAL = DEPLOYMENT + '/signal'
DEPLOYMENT_EVENTS = DEPLOYMENT + '/events'
DEPLOYMENT_ACTIONS = DEPLOYMENT + '/actions'
DEPLOYMENT_TRIGGER = DEPLOYMENT + '/trigger'
DEPLOYMENT_CANCEL = DEPLOYMENT + '/cancel'
DEPLOYMENT_OUTPUT = DEPLOYMENT + '/outputs/{output_name}'
SERVER_METADATA = DEPLOYMENTS + '/metadata/{server_id}'
VALIDATE = PROJECT + '/validate'
SERVERS = PROJECT + '/servers'
SERVER = SERVERS + '/{server_id}'
SERVER_AGENT_CONFIG = SERVER + '/agent-config'
SERVER_GROUPS = PROJECT + '/server_groups'
SERVER_GROUP = SERVER_GROUPS + '/{group_id}'
ROLLOUTS = PROJECT + '/rollouts'
ROLLOUT = ROLLOUTS + '/{rollout_id}'
ROLLOUT_TARGETS = ROLLOUT + '/targets'
ROLLOUT_EVENTS = ROLLOUT + '/events'
ROLLOUT_CANCEL = ROLLOUT + '/cancel'

# Signed URLs for agents, outside Keystone (the token is the credential).
AGENT_METADATA = '/agent/servers/{server_id}/metadata'
AGENT_SIGNAL = '/agent/deployments/{deployment_id}/signal'


def expand(template: str, **values: str) -> str:
    """``template`` with each placeholder replaced by its value, quoted as
    one path segment."""
    return template.format(**{
        name: urllib.parse.quote(str(value), safe='')
        for name, value in values.items()})


_WILDCARD_HOSTS = ('', '0.0.0.0', '::')


def agent_base_url(conf: cfg.ConfigOpts = CONF) -> str:
    """Where servers reach this API: ``[api] public_url``, else the
    address the API binds (the host name for a wildcard bind).

    Never a request's Host header: a caller could inject any host, and
    the URL is baked into every server's document and derived config.
    """
    if conf.api.public_url:
        return conf.api.public_url.rstrip('/')
    host = conf.api.bind_host
    if host in _WILDCARD_HOSTS:
        host = socket.getfqdn()
    if ':' in host:
        host = f'[{host}]'
    return f'http://{host}:{conf.api.bind_port}'


def _is_loopback(host: str) -> bool:
    host = host.strip('[]')
    if host == 'localhost':
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def agent_base_url_problem(conf: cfg.ConfigOpts = CONF) -> str | None:
    """Why servers could not reach ``agent_base_url()``: it is a loopback
    address while the API listens on another one. None when it is fine."""
    base_url = agent_base_url(conf)
    host = urllib.parse.urlsplit(base_url).hostname or ''
    if _is_loopback(host) and not _is_loopback(conf.api.bind_host):
        return (f'Agents are given URLs on {base_url}, a loopback address, '
                f'while the API listens on {conf.api.bind_host}: servers '
                f'cannot reach it. Set [api] public_url to the address '
                f'servers use.')
    return None


def agent_metadata_url(server_id: str, token_revision: int) -> str:
    """The signed URL a server's agent polls for its metadata document."""
    token = signing.metadata_token(server_id, token_revision)
    path = expand(AGENT_METADATA, server_id=server_id)
    return f'{agent_base_url()}{path}?token={token}'


def agent_signal_url(deployment_id: str, action_revision: int) -> str:
    """The signed URL an agent PUTs one action's signal to."""
    token = signing.signal_token(deployment_id, action_revision)
    path = expand(AGENT_SIGNAL, deployment_id=deployment_id)
    return f'{agent_base_url()}{path}?revision={action_revision}&token={token}'
