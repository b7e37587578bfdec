"""Building the WSGI application and its middleware chain.

From the outside in: AgentFastPath (the agents' successful polls and
signals, served without the rest of the chain) -> FaultWrapper (every
error becomes Heat's JSON body) -> request id -> AgentRouter:
``/agent/...`` (signed URLs, no Keystone) to the AgentApp; everything
else but the public version and OpenAPI documents through authentication
(keystonemiddleware auth_token, or noauth),
the per-project write rate limit, and pecan (ContextHook builds the
context, EngineHook adds the RPC client).
"""

from typing import Any

from keystonemiddleware import auth_token
from oslo_log import log
from oslo_middleware import request_id
import pecan

from swconfig.api import agent
from swconfig.api import argspecs
from swconfig.api import hooks
from swconfig.api.middleware import fault
from swconfig.api.middleware import noauth
from swconfig.api.middleware import opaque_body
from swconfig.api.middleware import public
from swconfig.api.middleware import ratelimit
from swconfig.common import signing
from swconfig.conf import CONF
from swconfig.engine import rpcapi

LOG = log.getLogger(__name__)


def setup_app() -> Any:
    argspecs.install()
    engine_api = rpcapi.EngineAPI()
    app = pecan.Pecan(
        'swconfig.api.controllers.root.RootController',
        hooks=[hooks.NulCharacterHook(), hooks.ContextHook(),
               hooks.EngineHook(engine_api)],
        force_canonical=False,
        guess_content_type_from_ext=False,
    )
    app = pecan_app = opaque_body.OpaqueBodyMiddleware(app)
    app = ratelimit.WriteRateLimiter(app)
    if CONF.auth_strategy == 'keystone':
        app = auth_token.AuthProtocol(app, {'oslo_config_config': CONF})
    else:
        LOG.warning('auth_strategy is noauth: every caller is trusted as a '
                    'member of the project in the URL. Use this for '
                    'development and the embedded default only.')
        app = noauth.NoAuthMiddleware(app)
    app = public.PublicPaths(app, pecan_app)
    signing.keyring()  # a missing signing key fails at start-up
    agent_app = agent.AgentApp(engine_api)
    app = agent.AgentRouter(app, agent_app)
    app = request_id.RequestId(app)
    app = fault.FaultWrapper(app, debug=CONF.debug)
    return agent.AgentFastPath(app, agent_app)
