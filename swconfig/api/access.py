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

"""Who is calling and what they may do: the checks every request with a
token passes, written once. The tenant API's pecan hook
(``swconfig.api.hooks.AccessHook``) and the agent app's view of a
server's deployments (``swconfig.api.agent``) both call ``check``.

In order: the caller's context and admin-ness (``caller_context``), the
path's project (``scope_to_project``), then the route's policy rule
(``enforce``; a handler enforces a second rule the same way, e.g. a list
of every project's configs).
"""

from swconfig.api import policy
from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.db import api as db_api


def caller_context(environ: dict) -> RequestContext:
    """The context from the headers auth_token (or noauth) set, its
    admin-ness decided here, once, by the context_is_admin rule."""
    context = swconfig_context.RequestContext.from_environ(environ)
    context.is_admin = policy.check_is_admin(context)
    return context


def scope_to_project(context: RequestContext, tenant_id: str) -> str:
    """Heat's tenant check: admins act in their own project whatever the
    path says; anybody else must name their own project (else 403)."""
    if context.is_admin and context.project_id:
        return context.project_id
    if tenant_id != context.project_id:
        raise exception.TenantMismatch()
    return tenant_id


def enforce(rule: str, context: RequestContext, tenant_id: str) -> None:
    """Enforce ``rule`` for ``tenant_id``: the path's project after the
    admin override (``scope_to_project``), as in Heat."""
    policy.authorize(rule, {'project_id': tenant_id}, context)


def check(environ: dict, tenant_id: str | None, rule: str | None
          ) -> tuple[RequestContext, str | None]:
    """The request's context and project, once the caller passed every
    check: a URL under ``/v1/{tenant_id}`` is scoped to the caller's
    project, and ``rule`` (the route's) is enforced for it. A public
    document (no project, no rule) only gets its context."""
    context = caller_context(environ)
    if tenant_id is not None:
        tenant_id = scope_to_project(context, tenant_id)
        if rule is not None:
            enforce(rule, context, tenant_id)
    return context, tenant_id


def check_server_not_foreign(context: RequestContext, server_id: str) -> None:
    """Refuse, explicitly, reads about a server another project owns.

    Called only when the caller sees nothing on the server, so the common
    case costs no extra query (a stack user project that was granted
    deployments on the server still sees them).
    """
    owner = db_api.server_owner(context, server_id)
    if owner is not None and owner != context.project_id and (
            not context.is_admin):
        raise exception.ServerOwnedByOtherProject(server_id=server_id)
