"""oslo.policy enforcement; the rules themselves live in swconfig.policies."""

from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from swconfig import policies
from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.conf import CONF

_ENFORCER: policy.Enforcer | None = None


def get_enforcer(conf: cfg.ConfigOpts = CONF) -> policy.Enforcer:
    """The process-wide enforcer (also the oslo.policy.enforcer entry point,
    which is why it takes no required argument)."""
    global _ENFORCER
    if _ENFORCER is None:
        _ENFORCER = policy.Enforcer(conf)
        _ENFORCER.register_defaults(policies.list_rules())
    return _ENFORCER


def reset() -> None:
    global _ENFORCER
    if _ENFORCER is not None:
        _ENFORCER.clear()
    _ENFORCER = None


def authorize(rule: str, target: dict[str, Any],
              context: RequestContext) -> None:
    """Raise PolicyNotAuthorized unless ``context`` may do ``rule``."""
    get_enforcer().authorize(
        rule, target, context, do_raise=True,
        exc=exception.PolicyNotAuthorized, action=rule)


def check_is_admin(context: RequestContext) -> bool:
    """Whether the caller is a cloud admin (policy rule context_is_admin)."""
    return get_enforcer().enforce('context_is_admin', {}, context)
