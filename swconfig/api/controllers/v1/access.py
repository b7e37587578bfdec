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

"""Who is calling and what they may do: the checks every tenant request
passes, written once for pecan's hooks and controllers and for the route
handlers that answer without pecan (``Route.cached``).

In order: the caller's context and admin-ness (``caller_context``), the
path's project (``scope_to_project``), then the handler's policy rule
(``enforce``; ``authorize`` in a pecan controller).
"""

from typing import Any
from typing import NamedTuple

import pecan

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


class Caller(NamedTuple):
    """What a handler outside pecan needs of an authorized caller."""

    is_admin: bool
    project_id: str | None  # the caller's own


def authorized_caller(environ: dict, tenant_id: str, rule: str) -> Caller:
    """``caller_context``, ``scope_to_project`` and ``enforce`` of
    ``rule``, for a handler outside pecan; their outcome is kept by the
    caller's identity headers for as long as policy keeps a decision
    (while its rules are unchanged, ``policy.Decisions``), so
    a repeated read skips building the context. A refusal is never kept:
    it raises as ``enforce`` does."""
    key = (rule, tenant_id, swconfig_context.identity(environ))
    generation = policy.rules_generation()
    caller = policy.granted(key, generation)
    if caller is None:
        context = caller_context(environ)
        enforce(rule, context, scope_to_project(context, tenant_id))
        caller = Caller(context.is_admin, context.project_id)
        policy.grant(key, caller, generation)
    return caller


def authorize(rule: str) -> Any:
    """Enforce ``rule`` for the project of the pecan request; return the
    context."""
    request = pecan.request
    enforce(rule, request.context, request.tenant_id)
    return request.context


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
