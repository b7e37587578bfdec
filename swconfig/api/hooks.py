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

"""pecan hooks: the caller's checks and the engine client."""

from typing import Any

from pecan import hooks

from swconfig.api import access
from swconfig.api import dispatch
from swconfig.engine import rpcapi


class AccessHook(hooks.PecanHook):
    """The checks every request pecan serves passes, before routing
    (``access.check``): ``request.context`` is the caller's, and under
    ``/v1/{tenant_id}`` ``request.tenant_id`` is the project the request
    acts in, whose policy rule (the route's) the caller passed."""

    def on_route(self, state: Any) -> None:
        request = state.request
        match = dispatch.route_of(request.environ)
        route = match.route
        request.context, request.tenant_id = access.check(
            request.environ, match.args.get('tenant_id'),
            route.rule if route is not None else None)


class EngineHook(hooks.PecanHook):
    """Attaches the (shared, thread-safe) EngineAPI client."""

    def __init__(self, engine_api: rpcapi.EngineAPI) -> None:
        self.engine_api = engine_api

    def on_route(self, state: Any) -> None:
        state.request.engine = self.engine_api
