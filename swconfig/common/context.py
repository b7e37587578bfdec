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

    ``rpc_deadline`` (seconds since the epoch) is when the API stops
    waiting for the engine's answer to a call: an engine that receives
    the call later (the message bus held it) must not apply it, since the
    client was told 503 and may retry.
    """

    FROM_DICT_EXTRA_KEYS = ['rpc_deadline']

    def __init__(self, *args: Any, rpc_deadline: float | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rpc_deadline = rpc_deadline

    def to_dict(self) -> dict[str, Any]:
        values = super().to_dict()
        values['rpc_deadline'] = self.rpc_deadline
        return values

    @classmethod
    def from_dict(cls, values: dict[str, Any], **kwargs) -> 'RequestContext':
        kwargs.setdefault('is_admin', values.get('is_admin', False))
        return super().from_dict(values, **kwargs)


def get_admin_context() -> RequestContext:
    """A context for the engine's own background work: sees every project."""
    return RequestContext(is_admin=True, overwrite=False)
