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

"""The OpenAPI document stays true to the app it describes.

The document is generated from the route table (swconfig.api.routes) and
what each handler declares (swconfig.api.openapi.spec), so these tests
are what keeps the declarations honest: the document must be valid
OpenAPI; every method of every route must declare its operation, and the
app must route each one; each documented request body must be the very
schema object the controller validates with; and what the views really
return must match the documented response schemas, which are closed, so a
new key in a view fails here until it is documented.
"""

from collections.abc import Iterator
import copy
import json
import pathlib
import re
import time
import uuid

import jsonschema
import pytest
import schemathesis

from swconfig import policies
from swconfig.api import dispatch
from swconfig.api import request_body
from swconfig.api import routes
from swconfig.api.openapi import components
from swconfig.api.openapi import document
from swconfig.api.openapi import spec
from swconfig.api.schemas.v1 import rollouts as rollout_schemas
from swconfig.api.schemas.v1 import server_groups as group_schemas
from swconfig.api.schemas.v1 import servers as server_schemas
from swconfig.api.schemas.v1 import software_configs as config_schemas
from swconfig.api.schemas.v1 import software_deployments as deploy_schemas
from swconfig.common import urls

PROJECT = f'p-openapi-{uuid.uuid4().hex[:8]}'
METHODS = ('GET', 'POST', 'PUT', 'DELETE', 'PATCH')
SCHEMA_MODULES = (config_schemas, deploy_schemas, server_schemas,
                  group_schemas, rollout_schemas)
# Documented bodies the controller reads without a schema (any JSON object
# is accepted, which is all the documented schema says). Should one start
# validating, it must validate with the documented object: then remove it.
NOT_VALIDATED = frozenset({('POST', urls.DEPLOYMENT_SIGNAL)})
REQUEST_SCHEMAS = document.request_schemas(routes.DOCUMENTED_ROUTES)


def _document() -> dict:
    # schemathesis and the assertions below must never touch the cached
    # document, which shares its request schemas with the validators.
    return copy.deepcopy(routes.openapi_document())


def _operations(doc: dict) -> Iterator[tuple[str, str, dict]]:
    for path, item in doc['paths'].items():
        for method, operation in item.items():
            if method != 'parameters':
                yield method.upper(), path, operation


def _resolve(doc: dict, node: dict) -> dict:
    while '$ref' in node:
        node = _lookup_ref(doc, node['$ref'])
    return node


def _lookup_ref(doc: dict, ref: str) -> dict:
    assert ref.startswith('#/'), ref
    node = doc
    for part in ref[2:].split('/'):
        assert isinstance(node, dict) and part in node, f'dangling {ref}'
        node = node[part]
    return node


def _refs(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get('$ref'), str):
            yield node['$ref']
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


# -- the document itself ----------------------------------------------------

def test_document_is_valid_openapi():
    doc = _document()
    loaded = schemathesis.openapi.from_dict(doc)
    loaded.validate()  # against the OpenAPI 3.1 meta-schema
    labels = {result.ok().label for result in loaded.get_all_operations()}
    assert labels == {f'{m} {p}' for m, p, _ in _operations(doc)}
    for ref in _refs(doc):
        _lookup_ref(doc, ref)
    for schema in doc['components']['schemas'].values():
        jsonschema.Draft202012Validator.check_schema(schema)
    ids = [op['operationId'] for _, _, op in _operations(doc)]
    assert len(ids) == len(set(ids))


def test_document_is_built_once_and_serialisable():
    assert routes.openapi_document() is routes.openapi_document()
    assert json.loads(routes.openapi_document_json()) == json.loads(
        json.dumps(routes.openapi_document()))


def test_success_and_error_statuses():
    doc = _document()
    error_ref = {'$ref': '#/components/schemas/Error'}
    for method, path, operation in _operations(doc):
        if path == urls.HEALTHCHECK:
            continue  # oslo.middleware's answers: see the conformance test
        codes = set(operation['responses'])
        if method == 'DELETE':
            assert '204' in codes and '200' not in codes, path
        else:
            assert '200' in codes, (method, path)
        # Only a trigger creates (201; 200 repeats an earlier one), and
        # only a deployment with a DELETE entry to run is deleted later.
        assert ('201' in codes) == ((method, path) == (
            'POST', urls.DEPLOYMENT_TRIGGER)), (method, path)
        assert ('202' in codes) == ((method, path) == (
            'DELETE', urls.DEPLOYMENT)), (method, path)
        for code in codes - {'200', '201', '202', '204', '304'}:
            assert int(code) >= 400, (method, path, code)
            response = _resolve(doc, operation['responses'][code])
            if method == 'HEAD':
                assert 'content' not in response, (path, code)
                continue
            assert response['content']['application/json']['schema'] == \
                error_ref, (method, path, code)
    responses = doc['components']['responses']
    assert {code for code, (name, _) in components.ERROR_RESPONSES.items()
            if name in responses} == {'400', '403', '404', '405', '409',
                                      '413', '415', '422', '429', '503'}
    for method, path, operation in _operations(doc):
        # swconfig.api.request_body answers 415 for a body not declared JSON.
        tenant_body = path.startswith(urls.PROJECT) and (
            'requestBody' in operation)
        assert ('415' in operation['responses']) == tenant_body, (method,
                                                                   path)
        # Every project request may meet a busy worker or a backend
        # outage (503); only an agent signal can be too large (413).
        if path.startswith(urls.PROJECT) or path == urls.AGENT_SIGNAL:
            assert '503' in operation['responses'], (method, path)
        assert ('413' in operation['responses']) == (
            path == urls.AGENT_SIGNAL), (method, path)
    error = doc['components']['schemas']['Error']
    assert set(error['required']) == {'code', 'title', 'explanation',
                                      'error'}
    assert set(error['properties']['error']['properties']) == {
        'type', 'message', 'traceback'}


def test_success_envelopes():
    doc = _document()
    envelopes = {}
    for method, path, operation in _operations(doc):
        if '200' in operation['responses'] and path.startswith('/v1/{'):
            schema = operation['responses']['200']['content'][
                'application/json']['schema']
            # One of several: an object body answered with one envelope,
            # a list body with another.
            found = [set(_resolve(doc, option)['properties'])
                     for option in schema.get('oneOf', [schema])]
            envelopes[(method, path)] = (found[0] if len(found) == 1
                                         else found)
    configs = urls.CONFIGS
    deployments = urls.DEPLOYMENTS
    assert envelopes[('GET', configs)] == {'software_configs'}
    assert envelopes[('POST', configs)] == {'software_config'}
    assert envelopes[('GET', configs + '/{config_id}')] == {
        'software_config'}
    assert envelopes[('GET', deployments)] == {'software_deployments'}
    assert envelopes[('POST', deployments)] == [{'software_deployment'},
                                                {'software_deployments'}]
    for method in ('GET', 'PUT'):
        assert envelopes[(method, deployments + '/{deployment_id}')] == {
            'software_deployment'}
    assert envelopes[('GET', deployments + '/metadata/{server_id}')] == {
        'metadata'}
    assert envelopes[('GET', deployments + '/{deployment_id}/events')] == {
        'events'}
    for path in (urls.DEPLOYMENT_ACTIONS, urls.DEPLOYMENT_TRIGGER,
                 urls.DEPLOYMENT_CANCEL):
        assert envelopes[('POST', path)] == {'software_deployment'}
    assert envelopes[('GET', urls.DEPLOYMENT_OUTPUT)] == {'output'}
    assert envelopes[('PUT', urls.SERVER)] == {'server'}
    assert envelopes[('GET', urls.SERVER_GROUPS)] == {'server_groups'}
    for method in ('POST', 'GET', 'PUT'):
        path = urls.SERVER_GROUPS if method == 'POST' else urls.SERVER_GROUP
        assert envelopes[(method, path)] == {'server_group'}


# -- request schemas are the validators' own objects ------------------------

def _body_schemas() -> dict[tuple[str, str], dict | tuple[dict, ...]]:
    """The request schemas documented by reference, per operation: a
    tuple where the body is one of several (an object or a list)."""
    doc = routes.openapi_document()  # identity matters: no copy
    found = {}
    for method, path, operation in _operations(doc):
        schema = operation.get('requestBody', {}).get('content', {}).get(
            'application/json', {}).get('schema', {})
        if '$ref' in schema:
            found[(method, path)] = _lookup_ref(doc, schema['$ref'])
        elif 'oneOf' in schema:
            found[(method, path)] = tuple(
                _lookup_ref(doc, option['$ref'])
                for option in schema['oneOf'])
        else:
            # Only the agent's signal takes any JSON, so no schema object.
            assert not schema or path in urls.AGENT_SIGNAL, (method, path)
    return found


def _each_body_schema() -> Iterator[tuple[str, str, dict]]:
    for (method, path), found in _body_schemas().items():
        for schema in found if isinstance(found, tuple) else (found,):
            yield method, path, schema


def test_request_schemas_are_the_schema_modules_objects():
    documented = _body_schemas()
    deployment = urls.DEPLOYMENTS + '/{deployment_id}'
    assert documented[('POST', urls.CONFIGS)] is config_schemas.CREATE
    create, create_list = documented[('POST', urls.DEPLOYMENTS)]
    assert create is deploy_schemas.CREATE
    assert create_list is deploy_schemas.CREATE_LIST
    # The list's items are validated with CREATE, which they refer to.
    assert _lookup_ref(routes.openapi_document(), create_list['items'][
        '$ref']) is deploy_schemas.CREATE
    assert documented[('PUT', deployment)] is deploy_schemas.UPDATE
    assert documented[('POST', deployment + '/signal')] is \
        deploy_schemas.SIGNAL
    assert documented[('POST', urls.PROJECT + '/validate')] \
        is config_schemas.VALIDATE
    assert documented[('POST', urls.SERVERS)] is server_schemas.CREATE
    assert documented[('PUT', urls.SERVER)] is server_schemas.UPDATE
    assert documented[('POST', urls.SERVER_GROUPS)] is group_schemas.CREATE
    assert documented[('PUT', urls.SERVER_GROUP)] is group_schemas.UPDATE
    assert documented[('POST', urls.ROLLOUTS)] is rollout_schemas.CREATE
    assert documented[('POST', urls.DEPLOYMENT_ACTIONS)] is \
        deploy_schemas.ACTION_RUN
    assert documented[('POST', urls.DEPLOYMENT_TRIGGER)] is \
        deploy_schemas.TRIGGER
    # Every top-level (titled) body schema of the schema modules is used.
    titled = [value for module in SCHEMA_MODULES
              for value in vars(module).values()
              if isinstance(value, dict) and 'title' in value]
    assert {id(s) for s in titled} == {
        id(schema) for _, _, schema in _each_body_schema()}


def test_controllers_validate_with_the_documented_schemas(
        inprocess_stack, monkeypatch):
    """Each documented body reaches request_body.load (load_list for a list
    body, its items validated with the schema they refer to) with the
    documented object."""
    seen = []
    real_load, real_load_list = (request_body.load,
                                 request_body.load_list)

    def recording_load(request, schema):
        seen.append(schema)
        return real_load(request, schema)

    def recording_load_list(request, schema, item_schema, max_items):
        seen.append(schema)
        assert _lookup_ref(routes.openapi_document(), schema['items'][
            '$ref']) is item_schema
        return real_load_list(request, schema, item_schema, max_items)

    monkeypatch.setattr(request_body, 'load', recording_load)
    monkeypatch.setattr(request_body, 'load_list',
                        recording_load_list)
    for method, path, schema in _each_body_schema():
        seen.clear()
        sample = [{}] if schema.get('type') == 'array' else {}
        reply = inprocess_stack.request(method, _fill(path), json=sample)
        assert reply.status in (200, 400, 404), (method, path, reply.text)
        if (method, path) in NOT_VALIDATED:
            assert seen == [], (method, path)
        else:
            assert len(seen) == 1 and seen[0] is schema, (method, path)


# -- served at /v1/openapi.json ---------------------------------------------

def test_served_document(inprocess_stack):
    reply = inprocess_stack.get('/v1/openapi.json')
    assert reply.status == 200
    assert reply.headers['Content-Type'].startswith('application/json')
    assert reply.json == json.loads(routes.openapi_document_json())
    for method in ('POST', 'PUT', 'DELETE'):
        refused = inprocess_stack.request(method, '/v1/openapi.json')
        assert refused.status == 405, method
        assert refused.json['error']['type'] == 'HTTPMethodNotAllowed'


# -- routes: documented <=> routed ------------------------------------------

def _fill(template: str) -> str:
    values = {'tenant_id': PROJECT}
    return re.sub(r'\{(\w+)\}',
                  lambda m: values.get(m.group(1), f'x-{m.group(1)}'),
                  template)


def _routed() -> set[tuple[str, str]]:
    """(method, template) of every route; HEAD where GET is declared is
    implicit and not an operation of its own."""
    return {(route.method, route.template)
            for route in routes.DOCUMENTED_ROUTES}


def _routable(client, method: str, path: str) -> tuple[bool, str]:
    """Whether the app routed the request to a handler: anything but the
    route table's 404/405 (a 404 NotFound of a handler means the route
    exists)."""
    reply = client.request(method, path, json={}
                           if method in ('POST', 'PUT', 'PATCH') else None)
    error_type = (reply.json or {}).get('error', {}).get('type') \
        if reply.status >= 400 else None
    routed = not (reply.status == 405
                  or (reply.status == 404 and error_type == 'HTTPNotFound'))
    return routed, f'{method} {path} -> {reply.status} {error_type}'


def test_every_route_method_declares_a_documented_operation():
    doc = _document()
    for route in routes.DOCUMENTED_ROUTES:
        declared = spec.declared(route.handler, route.method)
        assert declared is not None, (route.method, route.template)
        operation = doc['paths'][route.template][route.method.lower()]
        assert operation['operationId'] == declared.operation_id
        assert operation['summary'] == declared.summary
    documented = {(m, p) for m, p, _ in _operations(doc)}
    assert documented == _routed()


def test_an_undeclared_handler_stops_the_build():
    def undocumented():
        pass

    extended = (*routes.DOCUMENTED_ROUTES,
                dispatch.Route('/v1/{tenant_id}/extra', 'GET', undocumented))
    with pytest.raises(LookupError, match='GET /v1/{tenant_id}/extra'):
        document.build(extended)


def test_operations_are_declared_per_method():
    metadata = dispatch.RouteTable(routes.ROUTES).match(
        'GET', '/agent/servers/s/metadata').handler
    assert spec.declared(metadata, 'GET').operation_id == 'getAgentMetadata'
    assert spec.declared(metadata, 'HEAD').operation_id == (
        'headAgentMetadata')
    assert spec.declared(metadata, 'DELETE') is None
    with pytest.raises(ValueError, match='two operations'):
        spec.operation('again', 'Again.', tag='agent', responses={},
                       method='GET')(metadata)


def test_every_documented_operation_is_routed(inprocess_stack):
    for method, path, _ in _operations(_document()):
        routed, seen = _routable(inprocess_stack, method, _fill(path))
        assert routed, f'documented but not routed: {seen}'


def test_undeclared_methods_are_refused_with_allow(inprocess_stack):
    templates: dict[str, set[str]] = {}
    for route in routes.DOCUMENTED_ROUTES:
        templates.setdefault(route.template, set()).add(route.method)
    for template, declared in templates.items():
        for method in METHODS:
            if method in declared:
                continue
            reply = inprocess_stack.request(method, _fill(template))
            seen = f'{method} {template} -> {reply.status}'
            assert reply.status == 405, seen
            assert reply.json['error']['type'] == 'HTTPMethodNotAllowed'
            assert set(reply.headers['Allow'].split(', ')) >= declared, seen


def test_policy_operations_are_documented():
    documented = {(m, p) for m, p, _ in _operations(_document())}
    for rule in policies.list_rules():
        for operation in getattr(rule, 'operations', None) or ():
            path = operation['path'].split('?')[0]
            assert (operation['method'], path) in documented, rule.name


# -- responses: what the views return is what the document says -------------

def _inline(doc: dict, node: object) -> object:
    """A schema with every $ref replaced by its target (the document has no
    recursive schemas), so plain jsonschema can validate against it."""
    if isinstance(node, dict):
        if '$ref' in node:
            return _inline(doc, _lookup_ref(doc, node['$ref']))
        return {key: _inline(doc, value) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(doc, value) for value in node]
    return node


class _Conformance:
    """Sends requests and checks each reply against the document: the
    status must be documented for the operation, and the body must match
    the schema documented for that status."""

    def __init__(self, client) -> None:
        self.client = client
        self.doc = _document()
        self.succeeded: set[tuple[str, str]] = set()

    def __call__(self, method: str, template: str, expect: int,
                 json: object = None, headers: dict | None = None,
                 query: str = '', **values: str) -> object:
        path = re.sub(r'\{(\w+)\}', lambda m: values[m.group(1)], template)
        path += f'?{query}' if query else ''
        reply = self.client.request(method, path, json=json,
                                    headers=headers)
        assert reply.status == expect, (method, path, reply.text)
        responses = self.doc['paths'][template][method.lower()]['responses']
        assert str(reply.status) in responses, (method, template,
                                                reply.status)
        response = _resolve(self.doc, responses[str(reply.status)])
        if 'content' in response:
            schema = _inline(self.doc, response['content'][
                'application/json']['schema'])
            jsonschema.validate(reply.json, schema,
                                cls=jsonschema.Draft202012Validator)
        else:
            assert reply.text == '', (method, path)
        if reply.status < 300:
            self.succeeded.add((method, template))
        return reply.json


def _await(client, deployment: dict, key: str, value: str) -> None:
    path = _fill(urls.DEPLOYMENTS + '/{deployment_id}').replace(
        'x-deployment_id', deployment['deployment_id'])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if client.get(path).json['software_deployment'][key] == value:
            return
        time.sleep(0.05)
    pytest.fail(f'deployment {key} never became {value!r}')


def _signed(url: str) -> tuple[str, dict[str, str]]:
    """The query of a signed URL the app handed out, and its path values."""
    path, _, query = url.partition('?')
    return query, {'id': path.rstrip('/').split('/')[-2]}


def _check_actions(call, client, server: dict) -> None:
    """The deployment action endpoints and ``?wait``, on a component with
    a DELETE entry (a delete then answers 202)."""
    project = {'tenant_id': server['tenant_id']}
    component = call('POST', urls.CONFIGS, 200, json={
        'name': 'comp', 'group': 'component', 'outputs': [{'name': 'out'}],
        'config': {'configs': [
            {'tool': 'script', 'config': 'create'},
            {'actions': ['DELETE', 'BACKUP'], 'tool': 'script'}]}},
        **project)['software_config']
    deployed = call('POST', urls.DEPLOYMENTS, 200, json={
        'config_id': component['id'], 'server_id': server['server_id'],
        'signal_transport': 'HEAT_SIGNAL'}, **project)['software_deployment']
    deployment = {**project, 'deployment_id': deployed['id']}
    call('GET', urls.DEPLOYMENT, 200, query='wait=1', **deployment)
    call('POST', urls.DEPLOYMENT_ACTIONS, 200, json={'action': 'UPDATE'},
         **deployment)
    key = {'Idempotency-Key': f'k-{uuid.uuid4().hex}'}
    trigger = call('POST', urls.DEPLOYMENT_TRIGGER, 201,
                   json={'action': 'BACKUP'}, headers=key,
                   **deployment)['software_deployment']
    call('POST', urls.DEPLOYMENT_TRIGGER, 200, json={'action': 'BACKUP'},
         headers=key, **deployment)
    call('POST', urls.DEPLOYMENT_TRIGGER, 422, json={'action': 'OTHER'},
         headers=key, **deployment)
    triggered = {**project, 'deployment_id': trigger['id']}
    call('POST', urls.DEPLOYMENT_CANCEL, 200, **triggered)
    call('POST', urls.DEPLOYMENT_CANCEL, 409, **triggered)
    client.post(_fill(urls.DEPLOYMENT_SIGNAL).replace(
        'x-deployment_id', deployed['id']), json={'out': 'v'})
    _await(client, deployment, 'status', 'COMPLETE')
    call('GET', urls.DEPLOYMENT_OUTPUT, 200, output_name='out',
         **deployment)
    call('GET', urls.DEPLOYMENT_OUTPUT, 404, output_name='none',
         **deployment)
    call('DELETE', urls.DEPLOYMENT, 202, **deployment)
    call('DELETE', urls.DEPLOYMENT, 204, **deployment)
    call('DELETE', urls.DEPLOYMENT, 204, **triggered)
    call('DELETE', urls.CONFIG, 204,
         **{**project, 'config_id': component['id']})


def _check_server_groups(call, server: dict) -> None:
    """The server group endpoints, with the documented errors."""
    project = {'tenant_id': server['tenant_id']}
    created = call('POST', urls.SERVER_GROUPS, 200, json={
        'name': f'dbs-{uuid.uuid4().hex[:8]}', 'selector': {'role': 'db'},
        'servers': [server['server_id']]}, **project)['server_group']
    group = {**project, 'group_id': created['id']}
    call('POST', urls.SERVER_GROUPS, 409, json={
        'name': created['name'], 'selector': {'role': 'db'}}, **project)
    call('GET', urls.SERVER_GROUPS, 200, query='limit=1', **project)
    call('GET', urls.SERVER_GROUP, 200, **group)
    call('PUT', urls.SERVER_GROUP, 200, json={'selector': None}, **group)
    call('PUT', urls.SERVER_GROUP, 400, json={'servers': []}, **group)
    call('DELETE', urls.SERVER_GROUP, 204, **group)
    call('GET', urls.SERVER_GROUP, 404, **group)


def _check_rollouts(call, project: dict) -> None:
    """The rollout endpoints, with the documented errors; on a server
    and a config of their own, so the rest of the test is unchanged."""
    server_id = f'rollout-{uuid.uuid4().hex[:8]}'
    call('POST', urls.SERVERS, 200, json={'server_id': server_id},
         **project)
    config = call('POST', urls.CONFIGS, 200, json={
        'name': 'rolled', 'group': 'script', 'config': 'echo hi'},
        **project)['software_config']
    created = call('POST', urls.ROLLOUTS, 200, json={
        'servers': [server_id], 'config_id': config['id'],
        'signal_transport': 'HEAT_SIGNAL', 'max_concurrency': '10%'},
        **project)['rollout']
    rollout = {**project, 'rollout_id': created['id']}
    call('POST', urls.ROLLOUTS, 400, json={'config_id': config['id']},
         **project)
    call('POST', urls.ROLLOUTS, 404, json={
        'server_group': 'missing', 'config_id': config['id']}, **project)
    call('GET', urls.ROLLOUTS, 200, query='limit=1', **project)
    call('GET', urls.ROLLOUT, 200, **rollout)
    call('GET', urls.ROLLOUT, 404, **{**project, 'rollout_id': 'missing'})
    call('GET', urls.ROLLOUT_TARGETS, 200, query='state=IN_PROGRESS',
         **rollout)
    call('GET', urls.ROLLOUT_TARGETS, 400, query='state=DONE', **rollout)
    call('POST', urls.ROLLOUT_CANCEL, 200, **rollout)
    call('POST', urls.ROLLOUT_CANCEL, 409, **rollout)
    call('GET', urls.ROLLOUT_EVENTS, 200, **rollout)


def test_responses_match_the_document(inprocess_stack):
    call = _Conformance(inprocess_stack)
    configs = urls.CONFIGS
    deployments = urls.DEPLOYMENTS
    project = {'tenant_id': PROJECT}
    server = {**project, 'server_id': f'server-{PROJECT}'}

    call('GET', '/', 200)
    call('GET', urls.V1, 200)
    call('GET', '/v1/openapi.json', 200)
    call('GET', urls.HEALTHCHECK, 200,
         headers={'Accept': 'application/json'})
    call('HEAD', urls.HEALTHCHECK, 204)
    created = call('POST', configs, 200, json={
        'name': 'conformance', 'group': 'script', 'config': 'echo hi',
        'inputs': [{'name': 'foo', 'type': 'Number', 'default': '1'}],
        'outputs': [{'name': 'result'}], 'options': {'x': 1}},
        **project)['software_config']
    config = {**project, 'config_id': created['id']}
    call('GET', configs, 200, **project)
    call('GET', configs + '/{config_id}', 200, **config)
    call('POST', urls.SERVERS, 200, json={'server_id': server[
        'server_id']}, **project)
    call('GET', urls.SERVERS, 200, **project)
    call('GET', urls.SERVERS + '/{server_id}', 200, **server)
    settings = call('GET', urls.SERVERS + '/{server_id}/agent-config',
                    200, **server)
    call('PUT', urls.SERVER, 200, json={'labels': {'role': 'db'}}, **server)
    call('GET', urls.SERVERS, 200, query='label=role=db', **project)
    _check_server_groups(call, server)

    # A derived deployment: the engine issues its signed signal URL.
    deployed = call('POST', deployments, 200, json={
        'config_id': created['id'], 'server_id': server['server_id'],
        'action': 'CREATE', 'signal_transport': 'HEAT_SIGNAL'},
        **project)['software_deployment']
    deployment = {**project, 'deployment_id': deployed['id']}
    derived = {**project, 'config_id': deployed['config_id']}
    inputs = call('GET', configs + '/{config_id}', 200,
                  **derived)['software_config']['inputs']
    signal_url = next(i['value'] for i in inputs
                      if i['name'] == 'deploy_signal_id')
    query, _ = _signed(signal_url)
    call('GET', deployments + '/{deployment_id}', 200, **deployment)
    call('GET', deployments, 200, **project)
    call('GET', deployments + '/metadata/{server_id}', 200, **server)
    # Signals are applied asynchronously; each is awaited, so no write of
    # the engine overlaps the next request.
    call('POST', deployments + '/{deployment_id}/signal', 200,
         json={'deploy_status': 'IN_PROGRESS',
               'deploy_status_reason': 'half way'}, **deployment)
    _await(inprocess_stack, deployment, 'status_reason', 'half way')
    call('POST', urls.AGENT_SIGNAL, 200, query=query,
         json={'deploy_status': 'IN_PROGRESS',
               'deploy_status_reason': 'almost'}, **deployment)
    _await(inprocess_stack, deployment, 'status_reason', 'almost')
    call('PUT', urls.AGENT_SIGNAL, 200, query=query,
         json={'result': 'ok', 'deploy_status_code': 0}, **deployment)
    _await(inprocess_stack, deployment, 'status', 'COMPLETE')
    call('PUT', deployments + '/{deployment_id}', 200,
         json={'status_reason': 'checked'}, **deployment)
    call('GET', deployments + '/{deployment_id}/events', 200, **deployment)

    metadata_url = settings['os-collect-config']['request']['metadata_url']
    query, _ = _signed(metadata_url)
    call('GET', urls.AGENT_METADATA, 200, query=query, **server)
    call('HEAD', urls.AGENT_METADATA, 200, query=query, **server)
    etag = inprocess_stack.get(metadata_url.split('/', 3)[3].join(
        ['/', ''])).headers['ETag']
    call('GET', urls.AGENT_METADATA, 304, query=query,
         headers={'If-None-Match': etag}, **server)
    call('POST', configs + '/{config_id}/input_check', 200,
         json={'input_values': {'nme': 'x'}}, **config)
    call('POST', urls.PROJECT + '/validate', 200, json={'template': {
        'heat_template_version': '2013-05-23',
        'resources': {'c': {'type': 'OS::Heat::SoftwareConfig',
                            'properties': {'config': 'echo'}}}}},
        **project)

    # The documented errors carry the documented error body.
    call('GET', configs, 400, query='limit=x', **project)
    call('DELETE', configs + '/{config_id}', 409, **derived)
    call('DELETE', urls.SERVERS + '/{server_id}', 409, **server)
    call('GET', configs + '/{config_id}', 404,
         **{**project, 'config_id': 'missing'})
    call('POST', deployments, 400, json={'config_id': created['id']},
         **project)
    call('POST', configs, 415, json={'name': 'form'},
         headers={'Content-Type': 'application/x-www-form-urlencoded'},
         **project)
    call('GET', configs, 403, headers={'X-Roles': 'nobody'}, **project)
    call('GET', urls.AGENT_METADATA, 403, query='token=forged',
         **server)

    _check_actions(call, inprocess_stack, server)
    _check_rollouts(call, project)

    call('DELETE', deployments + '/{deployment_id}', 204, **deployment)
    call('DELETE', configs + '/{config_id}', 204, **config)
    call('DELETE', urls.SERVERS + '/{server_id}', 204, **server)
    documented = {(m, p) for m, p, _ in _operations(call.doc)}
    assert call.succeeded == documented


# -- request fields are described, in the API reference's words -------------

API_REF = pathlib.Path(__file__).parents[3] / 'doc' / 'source' / 'api-ref'
REQUEST_BODY_MARKER = '.. request-body:'
JSON_TYPE = 'application/json'


def _described(schema: dict, path: str) -> Iterator[tuple[str, dict]]:
    """(field path, schema) of every property under ``schema``, nested
    ones included, named as the API reference names them (``inputs[].name``,
    ``template.resources.*.type``)."""
    for name, sub in (schema.get('properties') or {}).items():
        yield f'{path}{name}', sub
        yield from _described(sub, f'{path}{name}.')
        if isinstance(sub.get('items'), dict):
            yield from _described(sub['items'], f'{path}{name}[].')
        if isinstance(sub.get('additionalProperties'), dict):
            yield from _described(sub['additionalProperties'],
                                  f'{path}{name}.*.')


def _request_bodies(doc: dict) -> dict[str, dict]:
    """{schema name: schema} of every request body with a schema object."""
    found = {}
    for _method, _path, operation in _operations(doc):
        schema = operation.get('requestBody', {}).get('content', {}).get(
            JSON_TYPE, {}).get('schema', {})
        for option in schema.get('oneOf', [schema]):
            if '$ref' in option:
                found[option['$ref'].rsplit('/', 1)[1]] = _resolve(doc,
                                                                   option)
    return found


def test_every_request_field_is_described():
    # The document exactly as served at /v1/openapi.json.
    doc = json.loads(routes.openapi_document_json())
    bodies = _request_bodies(doc)
    assert set(bodies) == set(REQUEST_SCHEMAS)
    missing = []
    for name, schema in bodies.items():
        if not schema.get('description', '').strip():
            missing.append(name)
        for path, field in _described(schema, ''):
            if not field.get('description', '').strip():
                missing.append(f'{name}: {path}')
            for nested in ('items', 'additionalProperties'):
                sub = field.get(nested)
                if isinstance(sub, dict) and sub.get('properties') and \
                        not sub.get('description', '').strip():
                    missing.append(f'{name}: {path} ({nested})')
    assert missing == []
    # Not vacuous: the bodies do have (nested) fields.
    fields = {path for path, _ in _described(bodies['TemplateValidate'], '')}
    assert 'template.resources.*.type' in fields
    fields = {path for path, _ in _described(
        bodies['SoftwareConfigCreate'], '')}
    assert 'inputs[].replace_on_change' in fields


def _flat(text: str) -> str:
    return ' '.join(text.split())


def _api_ref_sections() -> dict[str, str]:
    """{schema name: the API reference's text after its ``.. request-body:
    <name>`` comment, up to the next one}, whitespace collapsed."""
    sections: dict[str, list[str]] = {}
    for page in sorted(API_REF.glob('*.rst')):
        name = None
        for line in page.read_text().splitlines():
            if line.startswith(REQUEST_BODY_MARKER):
                name = line[len(REQUEST_BODY_MARKER):].strip()
                sections.setdefault(name, [])
            elif name is not None:
                sections[name].append(line)
    return {name: _flat('\n'.join(lines))
            for name, lines in sections.items()}


def test_api_reference_uses_the_schema_descriptions():
    """One wording: the API reference documents each field with its
    schema's description, verbatim (whitespace aside)."""
    sections = _api_ref_sections()
    problems = []
    for name, schema in REQUEST_SCHEMAS.items():
        text = sections.get(name)
        if text is None:
            problems.append(f'{name}: no "{REQUEST_BODY_MARKER} {name}"')
            continue
        described = [('(body)', schema), *_described(schema, '')]
        for path, field in described:
            if path != '(body)' and f'``{path}``' not in text:
                problems.append(f'{name}: {path} is not documented')
            for node in (field, field.get('items'),
                         field.get('additionalProperties')):
                wording = isinstance(node, dict) and node.get('description')
                if wording and _flat(wording) not in text:
                    problems.append(f'{name}: {path}: "{wording}"')
    assert problems == []
