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

"""The Heat-compatible tenant metadata view, served from memory.

``GET /v1/{tenant_id}/software_deployments/metadata/{server_id}`` lists
the deployments of the very document the server's agent receives. pecan's
controller (``software_deployments.server_metadata``) read the document
from the database and parsed it on every request; ``TenantMetadataApp``
serves it from the API worker's metadata cache instead
(``swconfig.api.agent.metadata_cache``: the same entries and freshness as the
agents' polls), its list cut out of the document's bytes
(``representations.tenant_view``): nothing is parsed and no second copy
is kept.

It sits behind authentication and the rate limiter, in front of pecan,
and checks what pecan's hooks and the controller check, in the same
order and with the same errors: the context and admin-ness (the
``context_is_admin`` rule), the path's project (``scope_to_project``),
the ``software_deployments:metadata`` policy (its decisions reused for
a second: ``policy.Decisions``), then the server's owner
(read with the document). The owner and admins are answered here;
anybody else (a stack user project of one of the server's deployments,
or a stranger to refuse) goes to pecan, as does every request this app
does not recognise (a query string, another route or method).
"""

from typing import Any

from swconfig.api import hooks
from swconfig.api import policy
from swconfig.api import router
from swconfig.api.agent import metadata_cache
from swconfig.api.controllers.v1 import software_deployments
from swconfig.common import context as swconfig_context
from swconfig.common import representations

RULE = 'software_deployments:metadata'
#: The answer for a server nobody registered.
EMPTY = representations.tenant_view(None)
HEADERS = ('Content-Type', 'application/json')


class TenantMetadataApp:
    """WSGI: the tenant view of the owner or an admin from memory;
    everything else to ``app`` (pecan)."""

    def __init__(self, app: Any, cache: metadata_cache.MetadataCache
                 ) -> None:
        self.app = app
        self.cache = cache

    def __call__(self, environ: dict, start_response: Any) -> Any:
        match = router.route_of(environ)
        if (match.handler is not software_deployments.server_metadata
                or environ['REQUEST_METHOD'] != 'GET'
                or environ.get('QUERY_STRING')):
            return self.app(environ, start_response)
        context = swconfig_context.RequestContext.from_environ(environ)
        context.is_admin = policy.check_is_admin(context)
        tenant_id = hooks.scope_to_project(context, match.args['tenant_id'])
        policy.authorize(RULE, {'project_id': tenant_id}, context)
        server_id = match.args['server_id']
        entry = self.cache.get(server_id) or self.cache.load(server_id)
        if entry is None:  # nobody registered the server: nothing listed
            return self._answer(start_response, [
                HEADERS, ('Content-Length', str(len(EMPTY)))], EMPTY)
        if not context.is_admin and entry.tenant != context.project_id:
            # A stack user project is allowed, a stranger refused: rare,
            # and the controller's query decides both.
            return self.app(environ, start_response)
        content = representations.tenant_view(entry.content)
        return self._answer(start_response, [
            HEADERS, ('Content-Length', str(len(content)))], content)

    @staticmethod
    def _answer(start_response: Any, headers: list, content: bytes) -> Any:
        start_response('200 OK', headers)
        return [content]
