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

"""Declaring, on a route handler, the OpenAPI operation it serves.

The document is generated from the route table, so what it says about an
operation (summary, responses, request body, query parameters) is
declared where the operation is implemented: on the handler the route
names, with ``@spec.operation(...)``. A handler serving two methods that
are documented apart (GET and HEAD of a signed URL) declares one
operation per method. Declaring stores a frozen ``Operation`` on the
function and returns the function itself, so it costs nothing per
request and stacks with ``pecan.expose``.

The helpers below build the pieces the declarations share: a 200 with a
documented envelope (``ok``), references to the standard error responses
(``errors``), query and header parameters.
"""

from collections.abc import Callable
import dataclasses
import typing
from typing import Any
from typing import TypeVar

from swconfig.api.openapi import components

JSON = 'application/json'
#: The function attribute holding a handler's operations by method (None:
#: every method the handler serves).
_ATTRIBUTE = 'openapi_operations'

Handler = TypeVar('Handler', bound=Callable[..., Any])


class Body(typing.NamedTuple):
    """A request body that is a named JSON schema: ``schema`` is the very
    object the handler validates with, documented by reference as
    ``components/schemas/<name>`` (so the two cannot drift)."""

    name: str
    schema: dict


@dataclasses.dataclass(frozen=True)
class Operation:
    """What the document says about one method of one route."""

    operation_id: str
    summary: str
    tag: str
    #: The responses by status (``ok``, ``errors`` and the like). The
    #: errors every project request may meet (503, and 429 and 415 for
    #: writes) are added by ``document``, which knows the route.
    responses: dict[str, dict]
    #: A named request schema; several, one of which the body matches
    #: (an object or a list of them); or an inline OpenAPI
    #: ``requestBody``.
    body: Body | tuple[Body, ...] | dict | None = None
    #: Query and header parameters; the path's come from the template.
    parameters: tuple[dict, ...] = ()
    #: Documented as taking no Keystone token (``security: []``): the
    #: signed URLs, which carry their own credential, and the health check.
    no_token: bool = False


def operation(operation_id: str, summary: str, *, tag: str,
              responses: dict[str, dict],
              body: Body | tuple[Body, ...] | dict | None = None,
              parameters: tuple[dict, ...] = (), no_token: bool = False,
              method: str | None = None) -> Callable[[Handler], Handler]:
    """Declare the operation the decorated handler serves (for ``method``
    only, when given)."""
    declared_operation = Operation(operation_id, summary, tag, responses,
                                   body, tuple(parameters), no_token)

    def declare(handler: Handler) -> Handler:
        operations = handler.__dict__.setdefault(_ATTRIBUTE, {})
        if method in operations:
            raise ValueError(f'{handler.__qualname__} declares two '
                             f'operations for {method or "every method"}')
        operations[method] = declared_operation
        return handler

    return declare


def declared(handler: Callable, method: str) -> Operation | None:
    """The operation ``handler`` declares for ``method``, if any."""
    operations = getattr(handler, _ATTRIBUTE, {})
    found = operations.get(method)
    return found if found is not None else operations.get(None)


def ok(envelope: str | tuple[str, ...], description: str,
       status: int = 200, **extra: Any) -> dict[str, dict]:
    """A success answering the ``components/schemas`` entry ``envelope``
    (one of several, when a tuple: an operation that answers a list body
    with a list); ``extra`` adds to the response object (``links``)."""
    if isinstance(envelope, tuple):
        schema = {'oneOf': [components.ref(name) for name in envelope]}
    else:
        schema = components.ref(envelope)
    return {str(status): {'description': description,
                          'content': {JSON: {'schema': schema}}, **extra}}


def errors(*codes: int) -> dict[str, dict]:
    """References to the standard error responses of ``codes``."""
    return {str(code): {'$ref': '#/components/responses/'
                                + components.ERROR_RESPONSES[str(code)][0]}
            for code in codes}


#: A DELETE that leaves nothing to show.
NO_CONTENT = {'204': {'description': 'Deleted; empty body.'}}


#: A query parameter's whole number of at least 0, in digits; empty is
#: the same as absent (as in Heat).
NON_NEGATIVE_INT = {'anyOf': [{'type': 'integer', 'minimum': 0},
                              {'type': 'string', 'pattern': '^[0-9]*$'}]}
#: A query parameter's ``true`` or ``false``, in any case.
BOOLEAN = {'anyOf': [
    {'type': 'boolean'},
    {'type': 'string',
     'pattern': '^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$'}]}


def path(name: str, schema: dict, description: str) -> dict:
    """A path parameter that differs, for one operation, from the one
    every path with its placeholder has (``document.PATH_PARAMETERS``)."""
    return {'name': name, 'in': 'path', 'required': True,
            'description': description, 'schema': schema}


def query(name: str, schema: dict, description: str,
          required: bool = False) -> dict:
    """A query parameter."""
    return {'name': name, 'in': 'query', 'required': required,
            'description': description, 'schema': schema}


IDEMPOTENCY_KEY = {
    'name': 'Idempotency-Key', 'in': 'header', 'required': False,
    # Printable characters (Latin-1, as HTTP headers are), without a
    # space at either end (HTTP servers strip those).
    'schema': {'type': 'string', 'minLength': 1, 'maxLength': 255,
               'pattern': '^[!-~\u00a1-\u00ac\u00ae-\u00ff]'
                          '(?:[ -~\u00a1-\u00ac\u00ae-\u00ff]{0,253}'
                          '[!-~\u00a1-\u00ac\u00ae-\u00ff])?$'},
    'description': 'Makes retries safe: a request with a key already used '
                   'for the same request (within [engine] '
                   'idempotency_key_expiry, a day by default) returns the '
                   'deployment that request made, without making or '
                   'running another; the same key with another request is '
                   '422.'}
