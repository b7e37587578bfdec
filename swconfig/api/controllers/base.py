"""A pecan RestController that answers 405/404 instead of crashing when a
method is called on the wrong kind of URL (``DELETE /software_configs``,
``POST /software_configs/<id>``, ``PUT /software_deployments``,
``GET /software_configs/<id>/extra``). A 404 from here lets pecan try the
controller's ``_lookup`` for deeper paths."""

from typing import Any

from pecan import abort
from pecan import rest


class RestController(rest.RestController):

    def _check_arity(self, found: tuple, request: Any) -> tuple:
        controller, remainder = found
        if getattr(controller, '__self__', None) is not self:
            return found  # routed to a child controller: it checks itself
        expected = len(self._get_args_for_controller(controller)) - len(
            request.pecan.get('routing_args', []))
        given = len([part for part in remainder if part])
        if given < expected:
            abort(405)
        if given > expected:
            abort(404)
        return found

    def _handle_get(self, method: str, remainder: list,
                    request: Any = None) -> tuple:
        return self._check_arity(
            super()._handle_get(method, remainder, request), request)

    def _handle_post(self, method: str, remainder: list,
                     request: Any = None) -> tuple:
        return self._check_arity(
            super()._handle_post(method, remainder, request), request)

    def _handle_delete(self, method: str, remainder: list,
                       request: Any = None) -> tuple:
        return self._check_arity(
            super()._handle_delete(method, remainder, request), request)
