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

"""pecan hooks: the request context and the engine client."""

from typing import Any

from pecan import hooks

from swconfig.api import router
from swconfig.api.controllers.v1 import access
from swconfig.common import exception
from swconfig.engine import rpcapi


class ContextHook(hooks.PecanHook):
    """Builds ``request.context`` (``access.caller_context``, as the
    route handlers outside pecan do). Under ``/v1/{tenant_id}`` the path's
    project is checked against it (``request.tenant_id``)."""

    def on_route(self, state: Any) -> None:
        request = state.request
        context = access.caller_context(request.environ)
        request.context = context
        tenant_id = router.route_of(request.environ).args.get('tenant_id')
        if tenant_id is not None:
            request.tenant_id = access.scope_to_project(context, tenant_id)


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
