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

The agent app's front, ``swconfig.api.agent.repeat_polls.RepeatPolls``,
is outermost: it answers an agent's poll of a URL it answered before
while nothing it relied on changed, in one frame, and hands everything
else to ``swconfig.api.dispatch.Dispatcher``. Everything under
``/agent/`` goes from there to the agent app (``AgentApp``: the hot
path, no middleware); every other request is matched against the route
table (``swconfig.api.routes``) once and goes to its route's
application. Each passes, in this order, the request id (outermost:
every answer carries ``x-openstack-request-id``, errors included), CORS
(``[cors]``), the proxy headers (``[oslo_middleware]
enable_proxy_headers_parsing``) and the error body (every failure
becomes Heat's JSON error body), and then:

* ``TENANT``, ``/v1/{tenant_id}/...``: a bound on how many run at once
  (so agents always find a request thread), authentication
  (keystonemiddleware auth_token, or noauth), the per-project write rate
  limit, then pecan (an unmatched URL is answered its 404/405/400 just
  before it; its root controller routes through the table, and
  ``hooks.AccessHook`` checks the caller);
* ``AGENT_AUTHENTICATED``, the view of a server's deployments that
  os-collect-config's ``heat`` collector polls: the same bound and
  authentication, then the agent app's ``tenant_view``;
* ``PUBLIC``, the version and OpenAPI documents: pecan;
* ``DASHBOARD``: the web dashboard's pages and files (no token:
  ``swconfig.api.dashboard``);
* ``HEALTH``: oslo.middleware's health check (no token; only the request
  id in front, so its 200/503 answers reach load balancers as they are).
"""

from typing import Any

from oslo_log import log
from oslo_middleware import cors
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import request_id as oslo_request_id
import pecan

from swconfig.api import background
from swconfig.api import dashboard
from swconfig.api import dispatch
from swconfig.api import healthcheck
from swconfig.api import hooks
from swconfig.api import routes
from swconfig.api.agent import application as agent
from swconfig.api.agent import repeat_polls
from swconfig.api.agent import request_ids as agent_request_ids
from swconfig.api.agent import tenant_view
from swconfig.api.controllers import root
from swconfig.api.middleware import bypass
from swconfig.api.middleware import concurrency
from swconfig.api.middleware import fault
from swconfig.api.middleware import noauth
from swconfig.api.middleware import opaque_body
from swconfig.api.middleware import ratelimit
from swconfig.common import config
from swconfig.common import exception
from swconfig.common import signing
from swconfig.common import urls
from swconfig.conf import CONF
from swconfig.engine import rpcapi

LOG = log.getLogger(__name__)


def _front(app: Any, request_ids: Any = oslo_request_id.RequestId) -> Any:
    """The middleware every request but the agents' signed ones passes
    first; CORS only for requests it acts on, the proxy headers only when
    enabled."""
    app = fault.FaultWrapper(app, debug=CONF.debug)
    proxy = http_proxy_to_wsgi.HTTPProxyToWSGI(app, CONF)
    # Read once, after the middleware registered it: the option is not
    # mutable, and without it the middleware reads no header.
    if CONF.oslo_middleware.enable_proxy_headers_parsing:
        app = proxy
    app = bypass.Bypass(cors.CORS(app, CONF), app, bypass.cors_acts_on)
    return request_ids(app)


def _not_found(environ: dict, start_response: Any) -> Any:
    """What the health check passes on: a request it ignores."""
    raise exception.RouteNotFound()


def _authenticated(app: Any) -> Any:
    if CONF.auth_strategy == 'keystone':
        # Refuse to start rather than answer every request 500.
        problem = config.keystone_authtoken_problem(CONF)
        if problem:
            raise exception.ConfigurationError(reason=problem)
        # Imported only here: a seventh of the embedded default's start-up
        # (noauth) went to loading it.
        from keystonemiddleware import auth_token

        return auth_token.AuthProtocol(app, {'oslo_config_config': CONF})
    return noauth.NoAuthMiddleware(app)


def setup_app() -> repeat_polls.RepeatPolls:
    signing.keyring()  # a missing signing key fails at start-up
    problem = urls.agent_base_url_problem()
    if problem:
        LOG.warning(problem)
    if CONF.auth_strategy != 'keystone':
        # Once, though two of the applications below are wrapped.
        LOG.warning('auth_strategy is noauth: every caller is trusted as a '
                    'member of the project in the URL. Use this for '
                    'development and the embedded default only.')
    engine_api = rpcapi.EngineAPI()
    table = dispatch.RouteTable(routes.ROUTES)
    agent_app = agent.AgentApp(engine_api, table)
    # Started with each worker: ``background.start``.
    background.prepare(agent_app)
    pecan_app = dispatch.RaiseUnmatched(opaque_body.OpaqueBodyMiddleware(
        pecan.Pecan(
            root.RootController(),
            hooks=[hooks.AccessHook(), hooks.EngineHook(engine_api)],
            force_canonical=False,
            guess_content_type_from_ext=False)))
    apps = {
        dispatch.TENANT: _front(concurrency.ConcurrencyLimiter(
            _authenticated(ratelimit.WriteRateLimiter(pecan_app)))),
        # The agents' request ids: the tenant view is polled like the
        # signed URL (benchmarks.hot_paths, kind tenant).
        dispatch.AGENT_AUTHENTICATED: _front(
            concurrency.ConcurrencyLimiter(_authenticated(
                tenant_view.TenantViewApp(agent_app.cache))),
            request_ids=agent_request_ids.RequestId),
        dispatch.PUBLIC: _front(pecan_app),
        dispatch.DASHBOARD: _front(dashboard.DashboardApp()),
        # The health check's own 200/503 answers go out as they are.
        dispatch.HEALTH: oslo_request_id.RequestId(healthcheck.health_app(
            CONF, fault.FaultWrapper(_not_found, debug=CONF.debug))),
    }
    return repeat_polls.RepeatPolls(
        dispatch.Dispatcher(table, agent_app, apps,
                            after_write=agent_app.project_request_done),
        agent_app.polls, agent_app.cache)
