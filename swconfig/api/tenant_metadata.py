"""The Heat-compatible tenant metadata view, served from memory.

``GET /v1/{tenant_id}/software_deployments/metadata/{server_id}`` lists
the deployments of the very document the server's agent receives. pecan's
controller (``software_deployments.server_metadata``) read the document
from the database and parsed it on every request; ``TenantMetadataApp``
serves it from the API worker's metadata cache instead
(``swconfig.api.metadata_cache``: the same entries and freshness as the
agents' polls), with the answer's bytes built once per entry.

It sits behind authentication and the rate limiter, in front of pecan,
and checks what pecan's hooks and the controller check, in the same
order and with the same errors: the context and admin-ness (the
``context_is_admin`` rule), the path's project (``scope_to_project``),
the ``software_deployments:metadata`` policy (a caller allowed is
remembered for a second: ``Decisions``), then the server's owner
(read with the document). The owner and admins are answered here;
anybody else (a stack user project of one of the server's deployments,
or a stranger to refuse) goes to pecan, as does every request this app
does not recognise (a query string, another route or method).
"""

from collections.abc import Callable
import json
import time
from typing import Any

from pecan import jsonify

from swconfig.api import hooks
from swconfig.api import metadata_cache
from swconfig.api import policy
from swconfig.api import router
from swconfig.api.controllers.v1 import software_deployments
from swconfig.common import context as swconfig_context

RULE = 'software_deployments:metadata'
#: What pecan answers for an empty list (no such server).
EMPTY = jsonify.encode({'metadata': []}).encode()
HEADERS = ('Content-Type', 'application/json')


class View:
    """An entry's tenant view: the answer's bytes and headers."""

    __slots__ = ('content', 'headers')

    def __init__(self, content: bytes) -> None:
        self.content = content
        self.headers = [HEADERS, ('Content-Length', str(len(content)))]


def build_view(document: bytes) -> View:
    """The answer pecan's controller gives for ``document`` (the agent's
    JSON), encoded the same way."""
    deployments = json.loads(document)['deployments']
    return View(jsonify.encode({'metadata': deployments}).encode())


class Decisions:
    """Callers recently allowed to read the view, and whether each is an
    admin, by the path's project and the credentials policy sees (the
    context's ``to_policy_values``): oslo.policy's two checks cost more
    than the rest of the request (it looks for changed policy files and
    inspects every check's signature each time). A decision is reused for
    ``LIFETIME`` seconds, so a changed policy file takes effect within
    that, as a changed document does; refusals are never kept."""

    #: Seconds a decision is reused (as ``[api] metadata_cache_freshness``
    #: by default).
    LIFETIME = 1.0
    #: At most this many callers are remembered (all forgotten when full).
    SIZE = 1024

    def __init__(self, clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self._clock = clock
        self._held: dict[tuple, tuple[float, bool]] = {}

    def get(self, key: tuple) -> bool | None:
        """Whether the allowed caller is an admin; None if not known."""
        held = self._held.get(key)
        if held is None or self._clock() - held[0] >= self.LIFETIME:
            return None
        return held[1]

    def put(self, key: tuple, is_admin: bool) -> None:
        if len(self._held) >= self.SIZE:
            self._held = {}
        self._held[key] = (self._clock(), is_admin)


class TenantMetadataApp:
    """WSGI: the tenant view of the owner or an admin from memory;
    everything else to ``app`` (pecan)."""

    def __init__(self, app: Any, cache: metadata_cache.MetadataCache
                 ) -> None:
        self.app = app
        self.cache = cache
        self.decisions = Decisions()

    def __call__(self, environ: dict, start_response: Any) -> Any:
        match = router.route_of(environ)
        if (match.handler is not software_deployments.server_metadata
                or environ['REQUEST_METHOD'] != 'GET'
                or environ.get('QUERY_STRING')):
            return self.app(environ, start_response)
        context = swconfig_context.RequestContext.from_environ(environ)
        key = (match.args['tenant_id'],
               *(tuple(value) if isinstance(value, list) else value
                 for value in context.to_policy_values().values()))
        is_admin = self.decisions.get(key)
        if is_admin is None:
            context.is_admin = policy.check_is_admin(context)
            tenant_id = hooks.scope_to_project(context,
                                               match.args['tenant_id'])
            policy.authorize(RULE, {'project_id': tenant_id}, context)
            self.decisions.put(key, context.is_admin)
        else:
            context.is_admin = is_admin
        server_id = match.args['server_id']
        entry = self.cache.get(server_id) or self.cache.load(server_id)
        if entry is None:  # nobody registered the server: nothing listed
            return self._answer(start_response, [
                HEADERS, ('Content-Length', str(len(EMPTY)))], EMPTY)
        if not context.is_admin and entry.tenant != context.project_id:
            # A stack user project is allowed, a stranger refused: rare,
            # and the controller's query decides both.
            return self.app(environ, start_response)
        view = entry.tenant_view
        if view is None:
            # Kept with the entry, so it goes when the entry does (any
            # change of the server drops it).
            view = entry.tenant_view = build_view(entry.content)
        return self._answer(start_response, view.headers, view.content)

    @staticmethod
    def _answer(start_response: Any, headers: list, content: bytes) -> Any:
        # ``headers`` may be an entry's: copied, never changed.
        start_response('200 OK', list(headers))
        return [content]
