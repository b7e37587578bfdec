"""The one authorization helper every controller method calls first."""

from typing import Any

import pecan

from swconfig.common import policy


def authorize(rule: str) -> Any:
    """Enforce ``rule`` for the project of the request; return the context.

    The target's project is the path's project after the admin override,
    as in Heat.
    """
    request = pecan.request
    policy.authorize(rule, {'project_id': request.tenant_id},
                     request.context)
    return request.context
