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

"""The route table: every URL the service answers, one declaration per
method, in one place (the templates are spelled in
``swconfig.common.urls``).

A route (``swconfig.api.dispatch.Route``) names its handler, the policy
rule a caller must pass before the handler runs, and the application that
serves it (``app``); the handler declares its OpenAPI operation, request
schema included (``swconfig.api.openapi.spec.operation``), from which the
OpenAPI document is generated (``openapi_document``).
``swconfig.api.dispatch`` matches every request against this table once
and hands it to the route's application:

* ``AGENT``: the agents' signed URLs, served by the agent app
  (``swconfig.api.agent``) with no token and no middleware;
* ``AGENT_AUTHENTICATED``: the URL os-collect-config's ``heat`` collector
  polls with a token (a server's deployments), served by the agent app
  behind authentication;
* ``TENANT``: everything else under ``/v1/{tenant_id}``: pecan, behind
  authentication and the rate limiter;
* ``PUBLIC``: the version and OpenAPI documents, pecan without a token;
* ``HEALTH``: the health check (``swconfig.api.healthcheck``);
* ``DASHBOARD``: the web dashboard's pages and files, everything under
  ``/dashboard`` (``swconfig.api.dashboard``): a subtree, not documented
  in the OpenAPI document.
"""

import functools
import json

import pecan

from swconfig.api import dashboard
from swconfig.api import healthcheck
from swconfig.api.agent import application as agent
from swconfig.api.agent import tenant_view
from swconfig.api.controllers.v1 import deployment_actions as actions
from swconfig.api.controllers.v1 import rollouts
from swconfig.api.controllers.v1 import server_groups
from swconfig.api.controllers.v1 import servers
from swconfig.api.controllers.v1 import software_configs as configs
from swconfig.api.controllers.v1 import software_deployments as deployments
from swconfig.api.controllers.v1 import validate
from swconfig.api.controllers.v1 import versions
from swconfig.api.dispatch import AGENT
from swconfig.api.dispatch import AGENT_AUTHENTICATED
from swconfig.api.dispatch import DASHBOARD
from swconfig.api.dispatch import DOCUMENTED
from swconfig.api.dispatch import HEALTH
from swconfig.api.dispatch import PUBLIC
from swconfig.api.dispatch import Route
from swconfig.api.openapi import document as openapi
from swconfig.api.openapi import spec
from swconfig.common import urls


@pecan.expose(content_type='application/json')
@spec.operation('getOpenAPIDocument', 'This document.', tag='versions',
                responses={'200': {'description': 'The OpenAPI document.',
                                   'content': {spec.JSON: {'schema': {
                                       'type': 'object'}}}}})
def openapi_json() -> bytes:
    """``GET /v1/openapi.json``: public documentation, no project and no
    policy. Here, with the table it is generated from."""
    return openapi_document_json()


_SHOW_DEPLOYMENT = 'software_deployments:show'

ROUTES: tuple[Route, ...] = (
    Route(urls.ROOT, 'GET', versions.root, app=PUBLIC),
    Route(urls.V1, 'GET', versions.v1, app=PUBLIC),
    Route(urls.OPENAPI, 'GET', openapi_json, app=PUBLIC),
    Route(urls.HEALTHCHECK, 'GET', healthcheck.served_by_the_health_app,
          app=HEALTH),
    Route(urls.HEALTHCHECK, 'HEAD', healthcheck.served_by_the_health_app,
          app=HEALTH),
    Route(urls.DASHBOARD, 'GET', dashboard.DashboardApp, app=DASHBOARD,
          subtree=True),

    Route(urls.CONFIGS, 'GET', configs.index, 'software_configs:index'),
    Route(urls.CONFIGS, 'POST', configs.create, 'software_configs:create'),
    Route(urls.CONFIG, 'GET', configs.show, 'software_configs:show'),
    Route(urls.CONFIG, 'DELETE', configs.delete, 'software_configs:delete'),
    Route(urls.CONFIG_INPUT_CHECK, 'POST', configs.input_check,
          'software_configs:input_check'),

    Route(urls.DEPLOYMENTS, 'GET', deployments.index,
          'software_deployments:index'),
    Route(urls.DEPLOYMENTS, 'POST', deployments.create,
          'software_deployments:create'),
    # Before DEPLOYMENT_SIGNAL: /metadata/signal is a server named signal.
    Route(urls.SERVER_METADATA, 'GET', tenant_view.server_metadata,
          tenant_view.RULE, app=AGENT_AUTHENTICATED),
    Route(urls.DEPLOYMENT, 'GET', deployments.show, _SHOW_DEPLOYMENT),
    Route(urls.DEPLOYMENT, 'PUT', deployments.update,
          'software_deployments:update'),
    Route(urls.DEPLOYMENT, 'DELETE', deployments.delete,
          'software_deployments:delete'),
    Route(urls.DEPLOYMENT_SIGNAL, 'POST', deployments.signal,
          'software_deployments:signal'),
    Route(urls.DEPLOYMENT_EVENTS, 'GET', deployments.events,
          _SHOW_DEPLOYMENT),
    Route(urls.DEPLOYMENT_ACTIONS, 'POST', actions.run_action,
          'software_deployments:action'),
    Route(urls.DEPLOYMENT_TRIGGER, 'POST', actions.trigger,
          'software_deployments:trigger'),
    Route(urls.DEPLOYMENT_CANCEL, 'POST', actions.cancel,
          'software_deployments:cancel'),
    Route(urls.DEPLOYMENT_OUTPUT, 'GET', actions.output, _SHOW_DEPLOYMENT),
    Route(urls.VALIDATE, 'POST', validate.validate_template,
          'software_configs:validate'),

    Route(urls.SERVERS, 'GET', servers.index, 'servers:index'),
    Route(urls.SERVERS, 'POST', servers.register, 'servers:create'),
    Route(urls.SERVER, 'GET', servers.show, 'servers:show'),
    Route(urls.SERVER, 'PUT', servers.update, 'servers:update'),
    Route(urls.SERVER, 'DELETE', servers.unregister, 'servers:delete'),
    Route(urls.SERVER_AGENT_CONFIG, 'GET', servers.agent_config,
          'servers:agent_config'),

    Route(urls.SERVER_GROUPS, 'GET', server_groups.index,
          'server_groups:index'),
    Route(urls.SERVER_GROUPS, 'POST', server_groups.create,
          'server_groups:create'),
    Route(urls.SERVER_GROUP, 'GET', server_groups.show, 'server_groups:show'),
    Route(urls.SERVER_GROUP, 'PUT', server_groups.update,
          'server_groups:update'),
    Route(urls.SERVER_GROUP, 'DELETE', server_groups.delete,
          'server_groups:delete'),

    Route(urls.ROLLOUTS, 'GET', rollouts.index, 'rollouts:index'),
    Route(urls.ROLLOUTS, 'POST', rollouts.create, 'rollouts:create'),
    Route(urls.ROLLOUT, 'GET', rollouts.show, 'rollouts:show'),
    Route(urls.ROLLOUT_TARGETS, 'GET', rollouts.targets, 'rollouts:show'),
    Route(urls.ROLLOUT_EVENTS, 'GET', rollouts.events, 'rollouts:show'),
    Route(urls.ROLLOUT_CANCEL, 'POST', rollouts.cancel, 'rollouts:cancel'),

    Route(urls.AGENT_METADATA, 'GET', agent.AgentApp.metadata, app=AGENT),
    Route(urls.AGENT_METADATA, 'HEAD', agent.AgentApp.metadata, app=AGENT),
    Route(urls.AGENT_SIGNAL, 'PUT', agent.AgentApp.signal, app=AGENT),
    Route(urls.AGENT_SIGNAL, 'POST', agent.AgentApp.signal, app=AGENT),
)


#: The routes of the OpenAPI document.
DOCUMENTED_ROUTES = tuple(route for route in ROUTES
                          if route.app in DOCUMENTED)


@functools.cache
def openapi_document() -> dict:
    """The OpenAPI document of ``DOCUMENTED_ROUTES``, built once per
    process. Do not mutate it: it shares its request schemas with the
    validators."""
    return openapi.build(DOCUMENTED_ROUTES)


@functools.cache
def openapi_document_json() -> bytes:
    """The document serialised once, as served: it never changes at run
    time."""
    return json.dumps(openapi_document(), sort_keys=True).encode('utf-8')
