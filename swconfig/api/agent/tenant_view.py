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

"""``GET /v1/{tenant_id}/software_deployments/metadata/{server_id}``: a
server's deployments, as Heat lists them.

This is the URL os-collect-config's ``heat`` collector polls, with a
Keystone token, on every server whose transport is ``POLL_SERVER_HEAT``:
an agent's poll like the signed URL's, so the agent app serves it, from
the same metadata cache (``swconfig.api.agent.metadata_cache``), behind
authentication (``TenantViewApp``). The caller passes the checks every
request with a token passes (``swconfig.api.access.check``), whose
outcome the view keeps for the same credentials (``KeptChecks``). The
view is the agents' document: served from the cache's entries, with the
freshness of their polls, its list cut out of the document's bytes
(nothing parsed, no second copy kept, no database read on a hit) for the
server's owner or an admin; anybody else (a stack user project granted
one of the server's deployments) is answered from the database, as the
engine's query scopes it. A query string is ignored, as Heat does.
"""

from collections.abc import Sequence
from typing import Any

from swconfig.api import access
from swconfig.api import dispatch
from swconfig.api import policy
from swconfig.api.agent import metadata_cache
from swconfig.api.openapi import spec
from swconfig.common import context as swconfig_context
from swconfig.common import representations
from swconfig.db import api as db_api

#: The policy rule of the view.
RULE = 'software_deployments:metadata'
#: An answer: status line, headers, body.
Answer = tuple[str, Sequence[tuple[str, str]], bytes]
_JSON = ('Content-Type', 'application/json')
#: The view of a server nobody registered.
_EMPTY_VIEW = representations.tenant_view(None)


class KeptChecks:
    """The outcome of the view's checks (``access.check``: the caller's
    admin-ness and project), kept by the path's project and the caller's
    credential headers (``swconfig_context.identity``) for as long as
    the policy enforcer would reuse the decisions it rests on
    (``policy.Decisions``: the same rules, at most ``LIFETIME``). A
    refusal is never kept: it raises every time.

    A speed trick of the agent path: a server's agent polls the view
    every 30 seconds with the same token, and building its context and
    looking up two decisions was half of the view's work
    (``benchmarks.hot_paths``, kind ``tenant``)."""

    def __init__(self) -> None:
        self._outcomes = policy.Decisions()

    def caller(self, environ: dict, tenant_id: str) -> tuple[bool, str]:
        """(is_admin, the caller's own project) once the checks passed."""
        key = (tenant_id, swconfig_context.identity(environ))
        generation = policy.get_enforcer().rules_generation()
        outcome = self._outcomes.get(key, generation)
        if outcome is None:
            context, _ = access.check(environ, tenant_id, RULE)
            outcome = (context.is_admin, context.project_id)
            self._outcomes.put(key, generation, outcome)
        return outcome


@spec.operation('showServerMetadata',
                'The configs deployed to a server, by name.',
                tag='software_deployments',
                responses={**spec.ok('ServerMetadata', 'Full configs.'),
                           **spec.errors(400, 403)},
                parameters=(spec.path(
                    'server_id', {'type': 'string'},
                    'Any server id, as in Heat: one that no deployment '
                    'targets has an empty list.'),))
def server_metadata(app: 'TenantViewApp', environ: dict, tenant_id: str,
                    server_id: str) -> Answer:
    """Heat's view of a server's deployments: the very document its
    agent receives (pre-rendered by the engine), so both list the
    same."""
    is_admin, project_id = app.checks.caller(environ, tenant_id)
    cache = app.cache
    entry = cache.get(server_id) or cache.load(server_id)
    if entry is None:  # nobody registered the server: nothing listed
        content = _EMPTY_VIEW
    elif is_admin or metadata_cache.tenant(entry) == project_id:
        content = representations.tenant_view(metadata_cache.content(entry))
    else:
        context, _ = access.check(environ, tenant_id, RULE)
        document = db_api.server_document_get(context, server_id)
        content = representations.tenant_view(
            document.encode() if document else None)
    return '200 OK', [_JSON, ('Content-Length', str(len(content)))], content


class TenantViewApp:
    """The WSGI end of the ``AGENT_AUTHENTICATED`` routes, behind
    authentication: the matched handler with the agent app's cache (a
    HEAD gets the headers alone). Errors are raised to the error
    middleware in front."""

    def __init__(self, cache: metadata_cache.MetadataCache) -> None:
        self.cache = cache
        self.checks = KeptChecks()

    def __call__(self, environ: dict, start_response: Any) -> Any:
        match = dispatch.route_of(environ)
        status, headers, content = match.handler(self, environ,
                                                 **match.args)
        start_response(status, headers)
        return [b'' if environ['REQUEST_METHOD'] == 'HEAD' else content]
