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

"""Generating the OpenAPI 3.1 document from the route table.

Every method of every route is one operation, described by what its
handler declares (``spec.operation``); a handler without a declaration
stops the build, so the document can neither miss a route nor describe
one that does not exist. The path's parameters come from the template;
what every project request may meet (a busy worker or a backend outage:
503; for writes the rate limit: 429, and 415 for a body not declared
JSON) is added here, once, rather than on every handler.

Request bodies are the very JSON schemas the handlers validate with, so
the document cannot drift from what the API accepts. The signed URLs
agents call are documented too: the app serves them. 3.1 rather than 3.0
because the request schemas are plain JSON Schema (``"type": ["string",
"null"]``), which only 3.1 allows.
"""

from collections.abc import Sequence
import copy
import typing

from swconfig import version
from swconfig.api.openapi import components
from swconfig.api.openapi import spec
from swconfig.api.schemas.v1 import servers as server_schemas
from swconfig.common import urls


class Route(typing.Protocol):
    """What the document reads of a route of ``swconfig.api.routes``
    (which builds the document, so it is not imported here)."""

    template: str
    method: str
    handler: typing.Callable
    segments: tuple[str, ...]


OPENAPI_VERSION = '3.1.0'
WRITES = frozenset(('POST', 'PUT', 'PATCH', 'DELETE'))


def _path_parameter(name: str, description: str,
                    schema: dict | None = None) -> dict:
    return {'name': name, 'in': 'path', 'required': True,
            'description': description,
            'schema': schema or {'type': 'string'}}


#: The templates' placeholders.
PATH_PARAMETERS = {
    'tenant_id': _path_parameter('tenant_id', 'The caller\'s project (an '
                                 'admin\'s own project replaces it).'),
    'config_id': _path_parameter('config_id', 'Software config id.'),
    'deployment_id': _path_parameter('deployment_id',
                                     'Software deployment id.'),
    'server_id': _path_parameter('server_id', 'Server id.',
                                 server_schemas.SERVER_ID),
    'group_id': _path_parameter('group_id', 'Server group id.'),
    'rollout_id': _path_parameter('rollout_id', 'Rollout id.'),
    'output_name': _path_parameter('output_name', 'The name of one of the '
                                   'output values.'),
}


def _declared(route: Route) -> spec.Operation:
    found = spec.declared(route.handler, route.method)
    if found is None:
        raise LookupError(f'{route.method} {route.template}: '
                          f'{route.handler.__qualname__} declares no '
                          f'OpenAPI operation (swconfig.api.openapi.spec)')
    return found


def _operation(declared: spec.Operation, template: str,
               method: str) -> dict:
    # Copied, so no two places of the document alias each other.
    operation = {'operationId': declared.operation_id,
                 'summary': declared.summary, 'tags': [declared.tag],
                 'responses': copy.deepcopy(declared.responses)}
    if declared.parameters:
        operation['parameters'] = copy.deepcopy(list(declared.parameters))
    named = _named_bodies(declared)
    if named:
        refs = [components.ref(body.name) for body in named]
        operation['requestBody'] = {'required': True, 'content': {
            spec.JSON: {'schema': refs[0] if len(refs) == 1
                        else {'oneOf': refs}}}}
    elif declared.body is not None:
        operation['requestBody'] = copy.deepcopy(declared.body)
    if declared.no_token:
        operation['security'] = []
    if template.startswith(urls.PROJECT):
        # swconfig.api.middleware.concurrency and the backends: every
        # project request; swconfig.api.middleware.ratelimit: every write;
        # swconfig.api.request_body: every body of the tenant API.
        responses = operation['responses']
        responses.update(spec.errors(503))
        if method in WRITES:
            responses.update(spec.errors(429))
            if 'requestBody' in operation:
                responses.update(spec.errors(415))
    return operation


def _named_bodies(declared: spec.Operation) -> tuple[spec.Body, ...]:
    """The named request schemas an operation declares (several: the
    body is one of them)."""
    if isinstance(declared.body, spec.Body):
        return (declared.body,)
    if isinstance(declared.body, tuple):
        return declared.body
    return ()


def paths(routes: Sequence[Route]) -> dict[str, dict]:
    """The ``paths`` object: one path item per URL template, one
    operation per route (HEAD where GET is declared is implicit, not an
    operation)."""
    found: dict[str, dict] = {}
    for route in routes:
        item = found.get(route.template)
        if item is None:
            item = found[route.template] = {}
            names = [segment[1:-1] for segment in route.segments
                     if segment.startswith('{')]
            if names:
                item['parameters'] = [copy.deepcopy(PATH_PARAMETERS[name])
                                      for name in names]
        item[route.method.lower()] = _operation(
            _declared(route), route.template, route.method)
    return found


def request_schemas(routes: Sequence[Route]) -> dict[str, dict]:
    """{name: schema} of the named request bodies the routes declare (the
    handlers' own objects, not copies)."""
    found: dict[str, dict] = {}
    for route in routes:
        for body in _named_bodies(_declared(route)):
            if found.setdefault(body.name, body.schema) is not body.schema:
                raise ValueError(f'Two request schemas named {body.name}')
    return found


def build(routes: Sequence[Route]) -> dict:
    """The OpenAPI document of ``routes``. It shares its request schemas
    with the validators: treat it as read-only."""
    schemas = {**request_schemas(routes),
               **copy.deepcopy(components.RESPONSE_SCHEMAS),
               **copy.deepcopy(components.ENVELOPES)}
    return {
        'openapi': OPENAPI_VERSION,
        'info': {
            'title': 'swconfig',
            'version': version.version_string(),
            'description': 'Heat-compatible software configuration API. '
                           'Create and update answer 200, delete 204. No '
                           'string of a request body, key or value, may '
                           'hold a NUL character (U+0000; PostgreSQL '
                           'cannot store one): 400 naming the field.',
        },
        'paths': paths(routes),
        'components': {
            'schemas': schemas,
            'responses': components.error_responses(),
            'securitySchemes': {'keystone': {
                'type': 'apiKey', 'in': 'header', 'name': 'X-Auth-Token',
                'description': 'A project-scoped Keystone token; only '
                               'with auth_strategy = keystone.'}},
        },
        'security': [{}, {'keystone': []}],
    }
