"""The OpenAPI document stays true to the app it describes.

The document is hand-assembled in swconfig.api.openapi, so these tests are
what keeps it honest: it must be valid OpenAPI; every documented operation
must be routed (by pecan, or by the agents' signed-URL app); every
operation routed must be documented; each documented request body must be
the very schema object the controller validates with; and what the views
really return must match the documented response schemas, which are
closed, so a new key in a view fails here until it is documented.
"""

from collections.abc import Iterator
import copy
import inspect
import json
import re
import time
import uuid

import jsonschema
from pecan import rest
import pytest
import schemathesis

from swconfig import policies
from swconfig.api import agent
from swconfig.api import body
from swconfig.api import openapi
from swconfig.api.controllers import root
from swconfig.api.controllers.v1 import root as v1_root
from swconfig.api.controllers.v1 import servers
from swconfig.api.schemas.v1 import servers as server_schemas
from swconfig.api.schemas.v1 import software_configs as config_schemas
from swconfig.api.schemas.v1 import software_deployments as deploy_schemas

PROJECT = f'p-openapi-{uuid.uuid4().hex[:8]}'
METHODS = ('GET', 'POST', 'PUT', 'DELETE', 'PATCH')
SCHEMA_MODULES = (config_schemas, deploy_schemas, server_schemas)
# The version documents (with or without the trailing slash) answer any
# method, as Heat's version negotiation does; the document lists GET.
ANY_METHOD_PATHS = frozenset({'', '/', '/v1', '/v1/'})
# pecan's _lookup is opaque: the path it consumes and the controller it
# returns must be spelled out here. An unknown _lookup makes the walk fail,
# so a new one cannot hide routes.
LOOKUPS = {
    v1_root.V1Controller: ('/{tenant_id}', v1_root.ProjectController),
    servers.ServersController: (
        '/{server_id}/agent-config',
        lambda: servers.AgentConfigController('x')),
}
# The signed agent URLs are routed by swconfig.api.agent, before pecan.
AGENT_PATHS = (
    agent.METADATA_PREFIX + '{server_id}' + agent.METADATA_SUFFIX,
    agent.SIGNAL_PREFIX + '{deployment_id}' + agent.SIGNAL_SUFFIX,
)
# Documented bodies the controller reads without a schema (any JSON object
# is accepted, which is all the documented schema says). Should one start
# validating, it must validate with the documented object: then remove it.
NOT_VALIDATED = frozenset({('POST', openapi.DEPLOYMENTS
                            + '/{deployment_id}/signal')})
REST_ACTIONS = ('get_all', 'get_one', 'get', 'post', 'put', 'delete',
                'patch')
SPECIAL = ('_lookup', '_default', '_route')


def _document() -> dict:
    # schemathesis and the assertions below must never touch the cached
    # document, which shares its request schemas with the validators.
    return copy.deepcopy(openapi.document())


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
    assert openapi.document() is openapi.document()
    assert json.loads(openapi.document_json()) == json.loads(
        json.dumps(openapi.document()))


def test_success_and_error_statuses():
    doc = _document()
    error_ref = {'$ref': '#/components/schemas/Error'}
    for method, path, operation in _operations(doc):
        codes = set(operation['responses'])
        if method == 'DELETE':
            assert '204' in codes and '200' not in codes, path
        else:
            assert '200' in codes and '201' not in codes, (method, path)
        for code in codes - {'200', '204', '304'}:
            assert int(code) >= 400, (method, path, code)
            response = _resolve(doc, operation['responses'][code])
            if method == 'HEAD':
                assert 'content' not in response, (path, code)
                continue
            assert response['content']['application/json']['schema'] == \
                error_ref, (method, path, code)
    responses = doc['components']['responses']
    assert {code for code, (name, _) in openapi.ERROR_RESPONSES.items()
            if name in responses} == {'400', '403', '404', '405', '409',
                                      '429'}
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
            schema = _resolve(doc, operation['responses']['200'][
                'content']['application/json']['schema'])
            envelopes[(method, path)] = set(schema['properties'])
    configs = openapi.CONFIGS
    deployments = openapi.DEPLOYMENTS
    assert envelopes[('GET', configs)] == {'software_configs'}
    assert envelopes[('POST', configs)] == {'software_config'}
    assert envelopes[('GET', configs + '/{config_id}')] == {
        'software_config'}
    assert envelopes[('GET', deployments)] == {'software_deployments'}
    for method in ('POST', 'GET', 'PUT'):
        path = deployments if method == 'POST' else (
            deployments + '/{deployment_id}')
        assert envelopes[(method, path)] == {'software_deployment'}
    assert envelopes[('GET', deployments + '/metadata/{server_id}')] == {
        'metadata'}
    assert envelopes[('GET', deployments + '/{deployment_id}/events')] == {
        'events'}


# -- request schemas are the validators' own objects ------------------------

def _body_schemas() -> dict[tuple[str, str], dict]:
    """The request schemas documented by reference, per operation."""
    doc = openapi.document()  # identity matters here: no copy
    found = {}
    for method, path, operation in _operations(doc):
        schema = operation.get('requestBody', {}).get('content', {}).get(
            'application/json', {}).get('schema', {})
        if '$ref' in schema:
            found[(method, path)] = _lookup_ref(doc, schema['$ref'])
        else:
            # Only the agent's signal takes any JSON, so no schema object.
            assert not schema or path in openapi.AGENT_SIGNAL, (method, path)
    return found


def test_request_schemas_are_the_schema_modules_objects():
    documented = _body_schemas()
    deployment = openapi.DEPLOYMENTS + '/{deployment_id}'
    assert documented[('POST', openapi.CONFIGS)] is config_schemas.CREATE
    assert documented[('POST', openapi.DEPLOYMENTS)] is deploy_schemas.CREATE
    assert documented[('PUT', deployment)] is deploy_schemas.UPDATE
    assert documented[('POST', deployment + '/signal')] is \
        deploy_schemas.SIGNAL
    assert documented[('POST', openapi.PROJECT + '/validate')] \
        is config_schemas.VALIDATE
    assert documented[('POST', openapi.SERVERS)] is server_schemas.CREATE
    # Every top-level (titled) body schema of the schema modules is used.
    titled = [value for module in SCHEMA_MODULES
              for value in vars(module).values()
              if isinstance(value, dict) and 'title' in value]
    assert {id(s) for s in titled} == {id(s) for s in documented.values()}


def test_controllers_validate_with_the_documented_schemas(
        inprocess_stack, monkeypatch):
    """Each documented body reaches body.load with the documented object."""
    seen = []
    real_load = body.load

    def recording_load(request, schema):
        seen.append(schema)
        return real_load(request, schema)

    monkeypatch.setattr(body, 'load', recording_load)
    for (method, path), schema in _body_schemas().items():
        seen.clear()
        reply = inprocess_stack.request(method, _fill(path), json={})
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
    assert reply.json == json.loads(openapi.document_json())
    for method in ('POST', 'PUT', 'DELETE'):
        refused = inprocess_stack.request(method, '/v1/openapi.json')
        assert refused.status == 405, method
        assert refused.json['error']['type'] == 'HTTPMethodNotAllowed'


# -- routes: documented <=> routed ------------------------------------------

def _positional(func: object) -> list[str]:
    params = list(inspect.signature(func).parameters.values())
    return [p.name for p in params
            if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty]


def _exposed(obj: object, name: str) -> object | None:
    member = getattr(obj, name, None)
    return member if getattr(member, 'exposed', False) else None


def _is_controller(value: object) -> bool:
    if inspect.isroutine(value) or inspect.isclass(value):
        return False
    if isinstance(value, rest.RestController):
        return True
    return any(getattr(getattr(value, name, None), 'exposed', False)
               for name in dir(type(value)))


def _children(controller: object) -> Iterator[tuple[str, object]]:
    for name in dir(controller):
        if name.startswith('__'):
            continue
        value = getattr(controller, name, None)
        if _is_controller(value):
            yield name, value


def _check_special(controller: object) -> None:
    for name in SPECIAL:
        member = _exposed(controller, name)
        if member is None or getattr(member, '__func__', None) is getattr(
                rest.RestController, name, None):
            continue  # RestController's own _route
        if name == '_lookup' and type(controller) in LOOKUPS:
            continue
        pytest.fail(f'{type(controller).__name__}.{name} routes paths this '
                    f'test cannot see; add it to LOOKUPS')


def _args_path(handler: object) -> str:
    return ''.join(f'/{{{a}}}' for a in _positional(handler))


def _walk_rest(controller: rest.RestController, path: str) -> Iterator[str]:
    for action in REST_ACTIONS:
        handler = _exposed(controller, action)
        if handler is not None:
            yield path + _args_path(handler)
    for name, methods in (controller._custom_actions or {}).items():
        for method in methods:
            handler = (_exposed(controller, f'{method.lower()}_{name}')
                       or _exposed(controller, name))
            assert handler is not None, (type(controller), name)
            yield f'{path}{_args_path(handler)}/{name}'
    get_one = _exposed(controller, 'get_one')
    ids = _args_path(get_one) if get_one is not None else ''
    for name, child in _children(controller):
        yield from _walk(child, f'{path}/{name}')
        if ids:
            yield from _walk(child, f'{path}{ids}/{name}')


def _walk(controller: object, path: str) -> Iterator[str]:
    """Candidate path templates: a superset of what pecan can route.

    Which methods each one answers is left to the app itself (see
    _routable), so the walk only has to be generous, not exact.
    """
    _check_special(controller)
    yield path
    if isinstance(controller, rest.RestController):
        yield from _walk_rest(controller, path)
    else:
        for name in dir(controller):
            if name not in SPECIAL and _exposed(controller, name):
                yield f'{path}/' if name == 'index' else f'{path}/{name}'
        for name, child in _children(controller):
            yield from _walk(child, f'{path}/{name}')
    if type(controller) in LOOKUPS:
        suffix, target = LOOKUPS[type(controller)]
        yield from _walk(target(), path + suffix)


def _fill(template: str) -> str:
    values = {'tenant_id': PROJECT}
    return re.sub(r'\{(\w+)\}',
                  lambda m: values.get(m.group(1), f'x-{m.group(1)}'),
                  template)


def _template_regex(template: str) -> re.Pattern:
    """Matches the paths of a template; a trailing slash is not a
    different operation (pecan routes /x/ and /x alike)."""
    parts = re.split(r'(\{\w+\})', template.rstrip('/'))
    return re.compile(''.join('[^/]+' if p.startswith('{') else re.escape(p)
                              for p in parts) + '/?$')


def _routable(client, method: str, path: str) -> tuple[bool, str]:
    """Whether pecan found a controller method for the request: anything
    but the 404/405 routing errors (a 404 "not found" of a controller,
    error type NotFound, means the route exists)."""
    reply = client.request(method, path, json={}
                           if method in ('POST', 'PUT', 'PATCH') else None)
    error_type = (reply.json or {}).get('error', {}).get('type') \
        if reply.status >= 400 else None
    routed = not (reply.status == 405
                  or (reply.status == 404 and error_type == 'HTTPNotFound'))
    return routed, f'{method} {path} -> {reply.status} {error_type}'


def test_walk_finds_every_controller():
    templates = set(_walk(root.RootController(), ''))
    assert '/v1/openapi.json' in templates
    assert openapi.DEPLOYMENTS + '/{deployment_id}/events' in templates
    assert openapi.DEPLOYMENTS + '/{deployment_id}/signal' in templates
    assert openapi.DEPLOYMENTS + '/metadata/{server_id}' in templates
    assert openapi.SERVERS + '/{server_id}/agent-config/' in templates


def test_agent_paths_are_the_agent_apps():
    assert AGENT_PATHS == (openapi.AGENT_METADATA, openapi.AGENT_SIGNAL)


def test_every_documented_operation_is_routed(inprocess_stack):
    for method, path, _ in _operations(_document()):
        routed, seen = _routable(inprocess_stack, method, _fill(path))
        assert routed, f'documented but not routed: {seen}'


def test_every_routed_operation_is_documented(inprocess_stack):
    documented = [(m, _template_regex(p)) for m, p, _ in
                  _operations(_document())]
    candidates = set(_walk(root.RootController(), ''))
    candidates.update(AGENT_PATHS)
    candidates.update(p for _, p, _ in _operations(_document()))
    undocumented = []
    for template in sorted(candidates):
        if template in ANY_METHOD_PATHS:
            continue
        path = _fill(template)
        for method in METHODS:
            routed, seen = _routable(inprocess_stack, method, path)
            if routed and not any(m == method and regex.match(path)
                                  for m, regex in documented):
                undocumented.append(seen)
    assert not undocumented, 'routed but not documented:\n' + '\n'.join(
        undocumented)


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
    path = _fill(openapi.DEPLOYMENTS + '/{deployment_id}').replace(
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


def test_responses_match_the_document(inprocess_stack):
    call = _Conformance(inprocess_stack)
    configs = openapi.CONFIGS
    deployments = openapi.DEPLOYMENTS
    project = {'tenant_id': PROJECT}
    server = {**project, 'server_id': f'server-{PROJECT}'}

    call('GET', '/', 200)
    call('GET', '/v1/', 200)
    call('GET', '/v1/openapi.json', 200)
    created = call('POST', configs, 200, json={
        'name': 'conformance', 'group': 'script', 'config': 'echo hi',
        'inputs': [{'name': 'foo', 'type': 'Number', 'default': '1'}],
        'outputs': [{'name': 'result'}], 'options': {'x': 1}},
        **project)['software_config']
    config = {**project, 'config_id': created['id']}
    call('GET', configs, 200, **project)
    call('GET', configs + '/{config_id}', 200, **config)
    call('POST', openapi.SERVERS, 200, json={'server_id': server[
        'server_id']}, **project)
    call('GET', openapi.SERVERS, 200, **project)
    call('GET', openapi.SERVERS + '/{server_id}', 200, **server)
    settings = call('GET', openapi.SERVERS + '/{server_id}/agent-config',
                    200, **server)

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
    call('POST', openapi.AGENT_SIGNAL, 200, query=query,
         json={'deploy_status': 'IN_PROGRESS',
               'deploy_status_reason': 'almost'}, **deployment)
    _await(inprocess_stack, deployment, 'status_reason', 'almost')
    call('PUT', openapi.AGENT_SIGNAL, 200, query=query,
         json={'result': 'ok', 'deploy_status_code': 0}, **deployment)
    _await(inprocess_stack, deployment, 'status', 'COMPLETE')
    call('PUT', deployments + '/{deployment_id}', 200,
         json={'status_reason': 'checked'}, **deployment)
    call('GET', deployments + '/{deployment_id}/events', 200, **deployment)

    metadata_url = settings['os-collect-config']['request']['metadata_url']
    query, _ = _signed(metadata_url)
    call('GET', openapi.AGENT_METADATA, 200, query=query, **server)
    call('HEAD', openapi.AGENT_METADATA, 200, query=query, **server)
    etag = inprocess_stack.get(metadata_url.split('/', 3)[3].join(
        ['/', ''])).headers['ETag']
    call('GET', openapi.AGENT_METADATA, 304, query=query,
         headers={'If-None-Match': etag}, **server)
    call('POST', openapi.PROJECT + '/validate', 200, json={'template': {
        'heat_template_version': '2013-05-23',
        'resources': {'c': {'type': 'OS::Heat::SoftwareConfig',
                            'properties': {'config': 'echo'}}}}},
        **project)

    # The documented errors carry the documented error body.
    call('GET', configs, 400, query='limit=x', **project)
    call('DELETE', configs + '/{config_id}', 409, **derived)
    call('DELETE', openapi.SERVERS + '/{server_id}', 409, **server)
    call('GET', configs + '/{config_id}', 404,
         **{**project, 'config_id': 'missing'})
    call('POST', deployments, 400, json={'config_id': created['id']},
         **project)
    call('GET', configs, 403, headers={'X-Roles': 'nobody'}, **project)
    call('GET', openapi.AGENT_METADATA, 403, query='token=forged',
         **server)

    call('DELETE', deployments + '/{deployment_id}', 204, **deployment)
    call('DELETE', configs + '/{config_id}', 204, **config)
    call('DELETE', openapi.SERVERS + '/{server_id}', 204, **server)
    documented = {(m, p) for m, p, _ in _operations(call.doc)}
    assert call.succeeded == documented
