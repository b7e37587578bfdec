"""The request context that travels from the API through RPC to the DB."""

from typing import Any

from oslo_context import context
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
class RequestContext(context.RequestContext):
    """oslo.context's context; enginefacade attaches its session to it.

    ``is_admin`` is decided once, by policy (``context_is_admin``), when the
    API builds the context, and then travels with it so the engine and the
    DB layer scope their queries the same way the API did.
    """

    @classmethod
    def from_dict(cls, values: dict[str, Any], **kwargs) -> 'RequestContext':
        kwargs.setdefault('is_admin', values.get('is_admin', False))
        return super().from_dict(values, **kwargs)


def get_admin_context() -> RequestContext:
    """A context for the engine's own background work: sees every project."""
    return RequestContext(is_admin=True, overwrite=False)
