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

"""Building the WSGI application.

``swconfig.api.agent.repeat_polls.RepeatPolls`` is outermost: it
answers an agent's poll of a URL it answered before, while nothing it
relied on changed, and hands everything else to
``swconfig.api.router.Router``, which matches every request against the
route table once. The agents' signed URLs go straight to ``AgentApp``
(the hot path, no middleware). Everything else passes, in
this order, the request id (outermost: every answer carries
``x-openstack-request-id``, errors included), CORS (``[cors]``), the
proxy headers (``[oslo_middleware] enable_proxy_headers_parsing``) and
the error body (every failure becomes Heat's JSON error body), and then:

* ``/dashboard/``: the web dashboard's pages and files (no token:
  ``swconfig.api.dashboard``);
* ``/healthcheck``: oslo.middleware's health check (no token; only the
  request id in front, so its 200/503 answers reach load balancers as
  they are);
* public documents (versions, OpenAPI): pecan;
* ``/v1/{tenant_id}/...``: a bound on how many run at once (so agents
  always find a request thread), authentication (keystonemiddleware
  auth_token, or noauth), the per-project write rate limit, then the
  route's handler outside pecan if it has one (the tenant metadata view,
  from the agents' cache: ``router.ProjectDispatch``), else pecan
  (ContextHook builds the context and checks the project, EngineHook adds
  the RPC client).
"""

from typing import Any

from keystonemiddleware import auth_token
from oslo_log import log
from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi

from swconfig.api import background
from swconfig.api import dashboard
from swconfig.api import healthcheck
from swconfig.api import hooks
from swconfig.api import router
from swconfig.api.agent import endpoints as agent
from swconfig.api.agent import repeat_polls
from swconfig.api.middleware import bypass
from swconfig.api.middleware import concurrency
from swconfig.api.middleware import fault
from swconfig.api.middleware import noauth
from swconfig.api.middleware import opaque_body
from swconfig.api.middleware import ratelimit
from swconfig.api.middleware import request_id
from swconfig.common import config
from swconfig.common import exception
from swconfig.common import signing
from swconfig.common import urls
from swconfig.conf import CONF
from swconfig.engine import rpcapi

LOG = log.getLogger(__name__)


def _front(app: Any) -> Any:
    """The middleware every request but the agents' passes first; CORS
    only for requests it acts on, the proxy headers only when enabled."""
    app = fault.FaultWrapper(app, debug=CONF.debug)
    proxy = http_proxy_to_wsgi.HTTPProxyToWSGI(app, CONF)
    # Read once, after the middleware registered it: the option is not
    # mutable, and without it the middleware reads no header.
    if CONF.oslo_middleware.enable_proxy_headers_parsing:
        app = proxy
    app = bypass.Bypass(cors.CORS(app, CONF), app, bypass.cors_acts_on)
    return request_id.RequestId(app)


def _not_found(environ: dict, start_response: Any) -> Any:
    """What the health check passes on: a request it ignores."""
    raise exception.RouteNotFound()


def _authenticated(app: Any) -> Any:
    if CONF.auth_strategy == 'keystone':
        # Refuse to start rather than answer every request 500.
        problem = config.keystone_authtoken_problem(CONF)
        if problem:
            raise exception.ConfigurationError(reason=problem)
        return auth_token.AuthProtocol(app, {'oslo_config_config': CONF})
    LOG.warning('auth_strategy is noauth: every caller is trusted as a '
                'member of the project in the URL. Use this for '
                'development and the embedded default only.')
    return noauth.NoAuthMiddleware(app)


def setup_app() -> repeat_polls.RepeatPolls:
    signing.keyring()  # a missing signing key fails at start-up
    problem = urls.agent_base_url_problem()
    if problem:
        LOG.warning(problem)
    engine_api = rpcapi.EngineAPI()
    agent_app = agent.AgentApp(engine_api)
    # Started with each worker: ``background.start``.
    background.prepare(agent_app)
    pecan_app = opaque_body.OpaqueBodyMiddleware(router.RoutedPecan(
        hooks=[hooks.NulCharacterHook(), hooks.ContextHook(),
               hooks.EngineHook(engine_api)],
        force_canonical=False,
        guess_content_type_from_ext=False,
    ))
    project_app = concurrency.ConcurrencyLimiter(
        _authenticated(ratelimit.WriteRateLimiter(
            router.ProjectDispatch(pecan_app, agent_app.cache))))
    return repeat_polls.RepeatPolls(router.Router(
        router.RouteTable(), agent_app,
        public_app=_front(pecan_app),
        project_app=_front(project_app),
        dashboard_app=_front(dashboard.DashboardApp()),
        # The health check's own 200/503 answers go out as they are.
        health_app=request_id.RequestId(healthcheck.health_app(
            CONF, fault.FaultWrapper(_not_found, debug=CONF.debug)))),
        agent_app.polls, agent_app.cache)
