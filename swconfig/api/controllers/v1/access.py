"""The one authorization helper every controller method calls first."""

from typing import Any

import pecan

from swconfig.api import policy
from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.db import api as db_api


def authorize(rule: str) -> Any:
    """Enforce ``rule`` for the project of the request; return the context.

    The target's project is the path's project after the admin override,
    as in Heat.
    """
    request = pecan.request
    policy.authorize(rule, {'project_id': request.tenant_id},
                     request.context)
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
