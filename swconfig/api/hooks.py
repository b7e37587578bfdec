"""pecan hooks: the request context and the engine client."""

from typing import Any

from pecan import hooks

from swconfig.api import policy
from swconfig.api import router
from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.engine import rpcapi


def scope_to_project(context: RequestContext,
                     tenant_id: str) -> str:
    """Heat's tenant check: admins act in their own project whatever the
    path says; anybody else must name their own project (else 403)."""
    if context.is_admin and context.project_id:
        return context.project_id
    if tenant_id != context.project_id:
        raise exception.TenantMismatch()
    return tenant_id


class ContextHook(hooks.PecanHook):
    """Builds ``request.context`` from the headers auth_token (or noauth)
    set; admin-ness is decided once, here, by the context_is_admin rule.
    Under ``/v1/{tenant_id}`` the path's project is checked against it
    (``request.tenant_id``)."""

    def on_route(self, state: Any) -> None:
        request = state.request
        context = swconfig_context.RequestContext.from_environ(
            request.environ)
        context.is_admin = policy.check_is_admin(context)
        request.context = context
        tenant_id = router.route_of(request.environ).args.get('tenant_id')
        if tenant_id is not None:
            request.tenant_id = scope_to_project(context, tenant_id)


class EngineHook(hooks.PecanHook):
    """Attaches the (shared, thread-safe) EngineAPI client."""

    def __init__(self, engine_api: rpcapi.EngineAPI) -> None:
        self.engine_api = engine_api

    def on_route(self, state: Any) -> None:
        state.request.engine = self.engine_api


class NulCharacterHook(hooks.PecanHook):
    """Refuses NUL characters in the path and query string with 400.

    PostgreSQL cannot store or even compare strings holding NUL, so such an
    id would otherwise surface as a database error; no valid id has one.
    (A URL that is not UTF-8 was refused before: ``router.RoutedPecan``.)
    """

    def on_route(self, state: Any) -> None:
        request = state.request
        if '\x00' in request.path_info or any(
                '\x00' in key or '\x00' in value
                for key, value in request.GET.items()):
            raise exception.InvalidParameterValue(
                reason='NUL characters are not allowed in URLs.')
