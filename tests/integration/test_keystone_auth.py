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

"""swconfig behind a real Keystone: tokens, roles, cloud admin, isolation.

swconfig-api and swconfig-engine run as separate processes with
``auth_strategy = keystone`` (keystonemiddleware ``auth_token`` validating
with a service user), over the real RabbitMQ on a SQLite database synced
by swconfig-manage. The identities come from ``tests.fixtures.keystone``:
projects A and B, a member and a reader of A, an admin of A only, a member
of B, and the bootstrap admin of the cloud-admin project.

Expected behaviour (doc/source/reference/rest-rules.rst,
doc/source/reference/rbac.rst): a path
tenant other than the token's project is 403 ``HTTPForbidden``; another
project's config or deployment is 404, exactly as if it did not exist;
another project's server is refused explicitly with 403
``ServerOwnedByOtherProject`` and nothing is written; a cloud admin's path
tenant is ignored and it sees every project. The agent's signed URLs need
no token.
"""

import json
import re
import time
from typing import Any
import urllib.parse
import uuid

import pytest
import requests

from tests.fixtures import api_client
from tests.fixtures import keystone as keystone_fixture
from tests.fixtures import keystone_stack
from tests.fixtures import rbac

pytestmark = pytest.mark.integration

POLL_SECONDS = 15
USERS = ('admin', 'member_a', 'reader_a', 'admin_a', 'member_b', 'stack_a',
         'other_a')
# The RBAC matrix's role sets, as Keystone users of project A.
RBAC_USERS = {'reader': 'reader_a', 'member': 'member_a', 'admin': 'admin',
              'heat_stack_user': 'stack_a', 'none': 'other_a'}
UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                  r'[0-9a-f]{12}')

CONFIG_BODY = {'name': 'cfg', 'group': 'script',
               'config': '#!/bin/sh\necho hi\n',
               'outputs': [{'name': 'result'}]}
VALIDATE_BODY = {'template': {
    'heat_template_version': '2013-05-23',
    'resources': {'config': {'type': 'OS::Heat::SoftwareConfig',
                             'properties': {'group': 'script',
                                            'config': 'echo hi'}}}}}
SIGNAL_BODY = {'result': 'r', 'deploy_status_code': 0}

# Every route of the API: name -> (method, path below /v1/{tenant}/, body).
# {cfg}, {dep}, {srv} are the objects of the project named in the path
# (the target); {own_*} are the caller's own.
ROUTES: dict[str, tuple[str, str, Any]] = {
    'configs.index': ('GET', 'software_configs', None),
    'configs.global_index': ('GET', 'software_configs?global_tenant=true',
                             None),
    'configs.create': ('POST', 'software_configs', CONFIG_BODY),
    'configs.show': ('GET', 'software_configs/{cfg}', None),
    'configs.delete': ('DELETE', 'software_configs/{cfg}', None),
    'deployments.index': ('GET', 'software_deployments', None),
    'deployments.index_by_server': (
        'GET', 'software_deployments?server_id={srv}', None),
    'deployments.create': ('POST', 'software_deployments',
                           {'server_id': '{srv}', 'config_id': '{own_cfg}',
                            'action': 'CREATE', 'status': 'COMPLETE'}),
    'deployments.create_with_config': (
        'POST', 'software_deployments',
        {'server_id': '{own_srv}', 'config_id': '{cfg}',
         'action': 'CREATE', 'status': 'COMPLETE'}),
    'deployments.show': ('GET', 'software_deployments/{dep}', None),
    'deployments.update': ('PUT', 'software_deployments/{dep}',
                           {'status': 'FAILED'}),
    'deployments.update_config': ('PUT', 'software_deployments/{own_dep}',
                                  {'config_id': '{cfg}'}),
    'deployments.delete': ('DELETE', 'software_deployments/{dep}', None),
    'deployments.events': ('GET', 'software_deployments/{dep}/events', None),
    'deployments.signal': ('POST', 'software_deployments/{dep}/signal',
                           SIGNAL_BODY),
    'deployments.metadata': ('GET', 'software_deployments/metadata/{srv}',
                             None),
    'servers.index': ('GET', 'servers', None),
    'servers.create': ('POST', 'servers', {'server_id': '{srv}'}),
    'servers.show': ('GET', 'servers/{srv}', None),
    'servers.delete': ('DELETE', 'servers/{srv}', None),
    'servers.agent_config': ('GET', 'servers/{srv}/agent-config', None),
    'validate': ('POST', 'validate', VALIDATE_BODY),
}

# Through the caller's own path, naming the other project's objects:
# (status, error type); None for a 2xx whose body must not show them.
FOREIGN = {
    'configs.index': None,
    'configs.global_index': (403, 'Forbidden'),
    'configs.create': None,
    'configs.show': (404, 'NotFound'),
    'configs.delete': (404, 'NotFound'),
    'deployments.index': None,
    'deployments.index_by_server': (403, 'ServerOwnedByOtherProject'),
    'deployments.create': (403, 'ServerOwnedByOtherProject'),
    'deployments.create_with_config': (404, 'NotFound'),
    'deployments.show': (404, 'NotFound'),
    'deployments.update': (404, 'NotFound'),
    'deployments.update_config': (404, 'NotFound'),
    'deployments.delete': (404, 'NotFound'),
    'deployments.events': (404, 'NotFound'),
    'deployments.signal': (404, 'NotFound'),
    'deployments.metadata': (403, 'ServerOwnedByOtherProject'),
    'servers.index': None,
    'servers.create': (403, 'ServerOwnedByOtherProject'),
    'servers.show': (404, 'NotFound'),
    'servers.delete': (404, 'NotFound'),
    'servers.agent_config': (403, 'ServerOwnedByOtherProject'),
    'validate': None,
}
assert set(FOREIGN) == set(ROUTES)

# (caller, the other project): both directions of the A/B pair.
PAIRS = [('member_b', keystone_fixture.PROJECT_A),
         ('member_a', keystone_fixture.PROJECT_B)]
PROJECT_OF = {'member_a': keystone_fixture.PROJECT_A,
              'member_b': keystone_fixture.PROJECT_B}
OWNER = {keystone_fixture.PROJECT_A: 'member_a',
         keystone_fixture.PROJECT_B: 'member_b'}


class TokenClient(api_client.HttpClient):
    """An HTTP client that sends one Keystone token (or none)."""

    def __init__(self, base_url: str, token: str | None = None) -> None:
        super().__init__(base_url, 'sqlite')
        if token is not None:
            self.session.headers['X-Auth-Token'] = token


def _fill(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(**names)
    if isinstance(value, dict):
        return {key: _fill(item, names) for key, item in value.items()}
    return value


def _request(client: TokenClient, tenant: str, route: str,
             names: dict[str, str]) -> api_client.Reply:
    method, path, body = ROUTES[route]
    return client.request(method, f'/v1/{tenant}/' + _fill(path, names),
                          json=_fill(body, names))


def _error(reply: api_client.Reply, status: int,
           error_type: str | None = None) -> dict:
    assert reply.status == status, reply.text
    body = reply.json
    assert set(body) == {'code', 'title', 'explanation', 'error'}, body
    if error_type:
        assert body['error']['type'] == error_type, body
    return body['error']


def _ok(reply: api_client.Reply) -> Any:
    assert reply.status in (200, 204), reply.text
    return reply.json


# -- the stack ----------------------------------------------------------------

@pytest.fixture(scope='module')
def stack(keystone, tmp_path_factory):
    """swconfig-api + swconfig-engine with auth_strategy = keystone."""
    workdir = str(tmp_path_factory.mktemp('keystone-stack'))
    with keystone_stack.running(keystone, workdir) as running:
        yield running.base_url, running.api


@pytest.fixture(scope='module')
def clients(stack, keystone):
    base_url, _api = stack
    return {user: TokenClient(base_url, keystone.token(user))
            for user in USERS}


@pytest.fixture(scope='module')
def project_ids(keystone):
    return {name: keystone.project_id(name)
            for name in (keystone_fixture.PROJECT_A,
                         keystone_fixture.PROJECT_B,
                         keystone_fixture.ADMIN_PROJECT)}


def _make_objects(client: TokenClient, tenant: str, tag: str) -> dict:
    """A config, an explicitly registered server, and a server-derived
    deployment (with signed URLs) on it."""
    base = f'/v1/{tenant}'
    config = _ok(client.post(base + '/software_configs',
                             json=CONFIG_BODY))['software_config']
    server = f'srv-{tag}-{uuid.uuid4().hex[:8]}'
    _ok(client.post(base + '/servers', json={'server_id': server}))
    deployment = _ok(client.post(base + '/software_deployments', json={
        'server_id': server, 'config_id': config['id'],
        'signal_transport': 'HEAT_SIGNAL'}))['software_deployment']
    return {'cfg': config['id'], 'srv': server, 'dep': deployment['id'],
            'derived_cfg': deployment['config_id']}


@pytest.fixture(scope='module')
def objects(clients, project_ids):
    """Objects of projects A and B, made by their members."""
    return {name: _make_objects(clients[OWNER[name]], project_ids[name],
                                name[-1])
            for name in OWNER}


def _everything(admin: TokenClient) -> tuple:
    """Every config, deployment and server of every project, as the cloud
    admin sees them: what a refused request must leave unchanged."""
    return tuple(_ok(admin.get(f'/v1/x/{resource}')) for resource in (
        'software_configs', 'software_deployments', 'servers'))


def _writes(route: str) -> bool:
    method, path, _body = ROUTES[route]
    return method != 'GET' or path.endswith('agent-config')


# -- tokens ---------------------------------------------------------------

def test_member_token_creates_lists_and_deletes(clients, project_ids):
    client, tenant = clients['member_a'], project_ids['swconfig-a']
    base = f'/v1/{tenant}'
    config = _ok(client.post(base + '/software_configs',
                             json=CONFIG_BODY))['software_config']
    listed = _ok(client.get(base + '/software_configs'))['software_configs']
    assert config['id'] in [c['id'] for c in listed]
    assert all('project' not in c for c in listed)
    assert _ok(client.get(f'{base}/software_configs/{config["id"]}'))[
        'software_config']['config'] == CONFIG_BODY['config']

    server = f'srv-member-{uuid.uuid4().hex[:8]}'
    deployment = _ok(client.post(base + '/software_deployments', json={
        'server_id': server, 'config_id': config['id'], 'action': 'CREATE',
        'status': 'IN_PROGRESS'}))['software_deployment']
    listed = _ok(client.get(base + '/software_deployments'))[
        'software_deployments']
    assert deployment['id'] in [d['id'] for d in listed]
    path = f'{base}/software_deployments/{deployment["id"]}'
    assert _ok(client.put(path, json={'status': 'COMPLETE'}))[
        'software_deployment']['status'] == 'COMPLETE'
    metadata = _ok(client.get(
        f'{base}/software_deployments/metadata/{server}'))['metadata']
    assert [item['id'] for item in metadata] == [config['id']]
    assert _ok(client.get(f'{base}/servers/{server}'))['server'][
        'server_id'] == server
    assert client.delete(path).status == 204
    assert client.delete(f'{base}/servers/{server}').status == 204
    assert client.delete(
        f'{base}/software_configs/{config["id"]}').status == 204


def test_reader_token_reads_but_cannot_write(clients, project_ids, objects):
    reader, tenant = clients['reader_a'], project_ids['swconfig-a']
    own = objects['swconfig-a']
    before = _everything(clients['admin'])
    allowed = {'configs.index', 'configs.show', 'deployments.index',
               'deployments.index_by_server', 'deployments.show',
               'deployments.events', 'deployments.metadata',
               'servers.index', 'servers.show', 'validate'}
    names = dict(own, own_cfg=own['cfg'], own_srv=own['srv'],
                 own_dep=own['dep'])
    for route in ROUTES:
        reply = _request(reader, tenant, route, names)
        if route in allowed:
            assert reply.status == 200, (route, reply.text)
        elif route == 'configs.global_index':
            _error(reply, 403, 'Forbidden')
        else:
            error = _error(reply, 403, 'Forbidden')
            rule = error['message'].removeprefix(
                'You are not authorized to use ').rstrip('.')
            assert rule.split(':')[0] in ('software_configs',
                                          'software_deployments',
                                          'servers'), (route, error)
    assert _everything(clients['admin']) == before
    configs = _ok(reader.get(f'/v1/{tenant}/software_configs'))
    assert own['cfg'] in [c['id'] for c in configs['software_configs']]


@pytest.mark.parametrize('case', ['none', 'garbage', 'fernet_garbage',
                                  'expired', 'spoofed_headers'])
def test_bad_tokens_are_401(stack, keystone, project_ids, case):
    base_url, _api = stack
    tenant = project_ids['swconfig-a']
    headers = {}
    if case == 'garbage':
        headers['X-Auth-Token'] = 'not-a-token'
    elif case == 'fernet_garbage':
        headers['X-Auth-Token'] = 'gAAAAAB' + 'x' * 180
    elif case == 'expired':
        # Signed with Keystone's own keys, but past its expiry.
        headers['X-Auth-Token'] = keystone.expired_token(
            keystone.token('member_a'))
        assert not keystone.is_valid(headers['X-Auth-Token'])
    elif case == 'spoofed_headers':
        # No token, but the headers auth_token would set: still refused.
        headers.update({'X-Identity-Status': 'Confirmed',
                        'X-Project-Id': tenant, 'X-Roles': 'admin,member',
                        'X-Is-Admin-Project': 'True'})
    for method, path in (('GET', 'software_configs'),
                         ('POST', 'software_configs'),
                         ('GET', 'servers')):
        reply = requests.request(
            method, f'{base_url}/v1/{tenant}/{path}', headers=headers,
            json=CONFIG_BODY if method == 'POST' else None, timeout=30)
        assert reply.status_code == 401, reply.text
        assert keystone.auth_url in reply.headers['WWW-Authenticate']


def test_revoked_token_is_401(stack, keystone, project_ids):
    """A token that Keystone accepted, then revoked, is refused.

    (auth_token caches a validated token for token_cache_time, 300 s by
    default, so a token it has already seen keeps working that long after
    its revocation; this one is presented after it.)
    """
    base_url, _api = stack
    path = f'/v1/{project_ids["swconfig-a"]}/software_configs'
    token = keystone.token('member_a')
    assert keystone.is_valid(token)
    keystone.revoke(token)
    assert not keystone.is_valid(token)
    client = TokenClient(base_url, token)
    for reply in (client.get(path), client.post(path, json=CONFIG_BODY)):
        assert reply.status == 401, reply.text
        assert keystone.auth_url in reply.headers['WWW-Authenticate']
    # Another token of the same user still works.
    assert TokenClient(base_url, keystone.token('member_a')).get(
        path).status == 200


def test_spoofed_identity_headers_are_replaced_by_the_tokens(
        clients, project_ids, objects):
    """auth_token overwrites X-Roles, X-Project-Id, X-Is-Admin-Project:
    a member of B claiming to be a cloud admin of A is still a member of
    B."""
    tenant_a = project_ids['swconfig-a']
    tenant_b = project_ids['swconfig-b']
    headers = {'X-Roles': 'admin,member,reader', 'X-Project-Id': tenant_a,
               'X-Is-Admin-Project': 'True', 'X-Tenant-Id': tenant_a}
    client = clients['member_b']
    _error(client.get(f'/v1/{tenant_a}/software_configs', headers=headers),
           403, 'HTTPForbidden')
    listed = _ok(client.get(f'/v1/{tenant_b}/software_configs',
                            headers=headers))['software_configs']
    assert objects['swconfig-a']['cfg'] not in [c['id'] for c in listed]
    assert all('project' not in c for c in listed)


# -- admin ----------------------------------------------------------------

def test_cloud_admin_sees_every_project(clients, project_ids, objects):
    admin = clients['admin']
    a, b = objects['swconfig-a'], objects['swconfig-b']
    # The path tenant is ignored for a cloud admin, as in Heat.
    for tenant in (project_ids['swconfig-b'], 'any-project',
                   project_ids['admin']):
        configs = _ok(admin.get(f'/v1/{tenant}/software_configs'))[
            'software_configs']
        projects = {c['id']: c['project'] for c in configs}
        assert projects[a['cfg']] == project_ids['swconfig-a']
        assert projects[b['cfg']] == project_ids['swconfig-b']
        deployments = {d['id'] for d in _ok(admin.get(
            f'/v1/{tenant}/software_deployments'))['software_deployments']}
        assert {a['dep'], b['dep']} <= deployments
        servers = {s['server_id'] for s in _ok(admin.get(
            f'/v1/{tenant}/servers'))['servers']}
        assert {a['srv'], b['srv']} <= servers
    for own in (a, b):
        assert _ok(admin.get(f'/v1/any-project/software_configs/'
                             f'{own["cfg"]}'))['software_config']['id'] == (
                                 own['cfg'])
        assert _ok(admin.get(f'/v1/any-project/software_deployments/'
                             f'{own["dep"]}'))['software_deployment'][
                                 'server_id'] == own['srv']
        metadata = _ok(admin.get(f'/v1/any-project/software_deployments/'
                                 f'metadata/{own["srv"]}'))['metadata']
        assert [m['id'] for m in metadata] == [own['derived_cfg']]
    # global_index stays denied by default, even to the cloud admin.
    _error(admin.get('/v1/any-project/software_configs?global_tenant=true'),
           403, 'Forbidden')
    # What an admin creates belongs to the admin's own project.
    created = _ok(admin.post('/v1/any-project/software_configs',
                             json=CONFIG_BODY))['software_config']
    listed = _ok(admin.get('/v1/x/software_configs'))['software_configs']
    assert {c['id']: c['project'] for c in listed}[created['id']] == (
        project_ids['admin'])
    assert admin.delete(f'/v1/x/software_configs/{created["id"]}').status == (
        204)


def test_admin_of_one_project_is_not_a_cloud_admin(clients, project_ids,
                                                   objects):
    """Role admin in project A (is_admin_project false): a member of A,
    nothing more."""
    client = clients['admin_a']
    tenant_a, tenant_b = project_ids['swconfig-a'], project_ids['swconfig-b']
    listed = _ok(client.get(f'/v1/{tenant_a}/software_configs'))[
        'software_configs']
    ids = [c['id'] for c in listed]
    assert objects['swconfig-a']['cfg'] in ids
    assert objects['swconfig-b']['cfg'] not in ids
    assert all('project' not in c for c in listed)
    _error(client.get(f'/v1/{tenant_b}/software_configs'), 403,
           'HTTPForbidden')
    _error(client.get(f'/v1/{tenant_a}/software_configs/'
                      f'{objects["swconfig-b"]["cfg"]}'), 404, 'NotFound')


# -- the RBAC matrix ------------------------------------------------------

@pytest.fixture(scope='module')
def rbac_objects(clients, project_ids):
    return rbac.make_objects(clients['member_a'], project_ids['swconfig-a'])


@pytest.mark.parametrize('operation, role, status', rbac.ROWS, ids=rbac.IDS)
def test_rbac_matrix_with_keystone_tokens(clients, project_ids, rbac_objects,
                                          operation, role, status):
    """tests/functional/rbac_matrix.yaml again, each role set being a
    Keystone user of project A (the cloud admin's path tenant is ignored,
    so it acts on A's objects too)."""
    tenant = project_ids['swconfig-a']
    names = rbac_objects
    if rbac.needs_fresh_objects(operation):
        names = rbac.make_objects(clients['member_a'], tenant)
    rbac.run_row(clients[RBAC_USERS[role]], tenant, operation, status, names)


# -- isolation --------------------------------------------------------------

@pytest.mark.parametrize('route', sorted(ROUTES))
@pytest.mark.parametrize('caller, other', PAIRS,
                         ids=[f'{c}-on-{o}' for c, o in PAIRS])
def test_path_tenant_of_another_project_is_403(clients, project_ids,
                                               objects, caller, other,
                                               route):
    own = objects[PROJECT_OF[caller]]
    names = dict(objects[other], own_cfg=own['cfg'], own_srv=own['srv'],
                 own_dep=own['dep'])
    before = _writes(route) and _everything(clients['admin'])
    error = _error(_request(clients[caller], project_ids[other], route,
                            names), 403, 'HTTPForbidden')
    assert error['message'] == 'Access was denied to this resource.'
    if before:
        assert _everything(clients['admin']) == before


def _normalised(reply: api_client.Reply, ids: dict[str, str]) -> str:
    text = reply.text
    for name, value in ids.items():
        text = text.replace(value, '{' + name + '}')
    return text


@pytest.mark.parametrize('route', sorted(ROUTES))
@pytest.mark.parametrize('caller, other', PAIRS,
                         ids=[f'{c}-on-{o}' for c, o in PAIRS])
def test_another_projects_objects_through_own_path(clients, project_ids,
                                                   objects, caller, other,
                                                   route):
    mine = PROJECT_OF[caller]
    own, theirs = objects[mine], objects[other]
    tenant = project_ids[mine]
    names = dict(theirs, own_cfg=own['cfg'], own_srv=own['srv'],
                 own_dep=own['dep'])
    client = clients[caller]
    expected = FOREIGN[route]
    before = (expected is not None and _writes(route)
              and _everything(clients['admin']))

    reply = _request(client, tenant, route, names)
    if expected is None:
        assert reply.status == 200, reply.text
        for value in theirs.values():
            assert value not in reply.text
    else:
        status, error_type = expected
        error = _error(reply, status, error_type)
        if error_type == 'ServerOwnedByOtherProject':
            assert theirs['srv'] in error['message']
        if status == 404:
            # Exactly what an id that exists nowhere gets.
            fresh = {key: (str(uuid.uuid4()) if UUID.fullmatch(value)
                           else f'srv-none-{uuid.uuid4().hex[:8]}')
                     for key, value in theirs.items()}
            unknown = _request(client, tenant, route, dict(
                names, **fresh))
            assert unknown.status == 404
            assert _normalised(unknown, fresh) == _normalised(reply, theirs)
    if before:
        assert _everything(clients['admin']) == before


def test_deploying_to_another_projects_server_writes_nothing(
        clients, project_ids, objects):
    """Project B cannot deploy to, read the metadata of, or list the
    deployments of project A's server; the refusal says why."""
    a, b = objects['swconfig-a'], objects['swconfig-b']
    tenant_a, tenant_b = project_ids['swconfig-a'], project_ids['swconfig-b']
    intruder, owner, admin = (clients['member_b'], clients['member_a'],
                              clients['admin'])

    def everything() -> Any:
        return _everything(admin), _ok(owner.get(
            f'/v1/{tenant_a}/software_deployments/metadata/{a["srv"]}'))

    before = everything()
    for body in ({'signal_transport': 'HEAT_SIGNAL'},
                 {'action': 'CREATE', 'status': 'COMPLETE'}):
        error = _error(intruder.post(
            f'/v1/{tenant_b}/software_deployments',
            json=dict(body, server_id=a['srv'], config_id=b['cfg'])),
            403, 'ServerOwnedByOtherProject')
        assert a['srv'] in error['message']
    for path in (f'software_deployments/metadata/{a["srv"]}',
                 f'software_deployments?server_id={a["srv"]}',
                 f'servers/{a["srv"]}/agent-config'):
        _error(intruder.get(f'/v1/{tenant_b}/{path}'), 403,
               'ServerOwnedByOtherProject')
    assert everything() == before


# -- the agent path -----------------------------------------------------------

def _local(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f'{parts.path}?{parts.query}'


def test_agent_signed_urls_need_no_token(stack, clients, project_ids):
    base_url, _api = stack
    member, tenant = clients['member_a'], project_ids['swconfig-a']
    base = f'/v1/{tenant}'
    own = _make_objects(member, tenant, 'agent')
    agent = TokenClient(base_url)  # no token at all

    settings = _ok(member.get(f'{base}/servers/{own["srv"]}/agent-config'))
    metadata_url = settings['os-collect-config']['request']['metadata_url']
    assert metadata_url.startswith(base_url + '/agent/')
    document = agent.get(_local(metadata_url))
    assert document.status == 200, document.text
    deployments = document.json['deployments']
    assert [d['id'] for d in deployments] == [own['derived_cfg']]
    inputs = {i['name']: i['value'] for i in deployments[0]['inputs']}
    signal_url = inputs['deploy_signal_id']
    assert signal_url.startswith(base_url + '/agent/')

    # A wrong signature is the agent path's own refusal, not Keystone's.
    path, _, token = _local(metadata_url).partition('?token=')
    _error(agent.get(f'{path}?token=x{token[1:]}'), 403)
    # No token and a garbage X-Auth-Token are both fine there.
    assert agent.get(_local(metadata_url), headers={
        'X-Auth-Token': 'garbage'}).status == 200

    reply = agent.put(_local(signal_url), data=json.dumps(
        {'result': 'done', 'deploy_status_code': 0}))
    assert reply.status == 200, reply.text
    deadline = time.monotonic() + POLL_SECONDS
    while (shown := _ok(member.get(
            f'{base}/software_deployments/{own["dep"]}'))[
            'software_deployment'])['status'] == 'IN_PROGRESS':
        assert time.monotonic() < deadline, shown
        time.sleep(0.1)
    assert shown['status'] == 'COMPLETE'
    assert shown['output_values']['result'] == 'done'


def test_version_and_openapi_documents_are_public(stack, project_ids):
    base_url, _api = stack
    for path in ('/', '/v1/', '/v1/openapi.json'):
        reply = requests.get(base_url + path, timeout=30)
        assert reply.status_code == 200, (path, reply.text)
    assert requests.get(base_url + '/v1/openapi.json',
                        timeout=30).json()['openapi'].startswith('3.')
    # Only those: a write to them, or anything else, still needs a token.
    assert requests.post(base_url + '/v1/openapi.json',
                         timeout=30).status_code == 401
    tenant = project_ids['swconfig-a']
    assert requests.get(f'{base_url}/v1/{tenant}/software_configs',
                        timeout=30).status_code == 401
