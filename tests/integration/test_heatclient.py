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

"""python-heatclient's software_configs / software_deployments managers
against a real ``swconfig-all``.

Every test runs once per client transport: the legacy ``HTTPClient``
(``Client('1', endpoint=..., token=...)``), a keystoneauth session with a
fixed token (``token_endpoint.Token``) and a keystoneauth ``NoAuth``
session. The two kinds of transport send different headers (e.g. the
legacy client sends ``Accept: */*`` on DELETE, the session client
``Accept: application/json``), so both have to work.
"""

import uuid

from heatclient import client as heat_client
from heatclient import exc as heat_exc
from keystoneauth1 import noauth
from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
import pytest

TRANSPORTS = ('legacy', 'token-session', 'noauth-session')

INPUTS = [
    {'name': 'count', 'type': 'Number', 'default': '3',
     'description': 'how many'},
    {'name': 'flavour', 'default': 'vanilla', 'replace_on_change': True},
]
OUTPUTS = [
    {'name': 'result'},
    {'name': 'failure', 'type': 'String', 'error_output': True},
]
OPTIONS = {'enable_hiera': True, 'tags': ['a', 'b']}

# The same schema after the server's normalisation
# (doc/source/reference/config-io.rst).
NORMALISED_INPUTS = [
    {'name': 'count', 'type': 'Number', 'default': 3,
     'description': 'how many'},
    {'name': 'flavour', 'type': 'String', 'default': 'vanilla',
     'replace_on_change': True},
]
NORMALISED_OUTPUTS = [
    {'name': 'result', 'type': 'String', 'error_output': False},
    {'name': 'failure', 'type': 'String', 'error_output': True},
]

CONFIG_KEYS = {'id', 'name', 'group', 'creation_time', 'config', 'inputs',
               'outputs', 'options'}
SUMMARY_KEYS = {'id', 'name', 'group', 'creation_time'}


@pytest.fixture(params=TRANSPORTS)
def heat(request, embedded_service, project):
    url = embedded_service.endpoint(project)
    if request.param == 'legacy':
        return heat_client.Client('1', endpoint=url, token='T')
    if request.param == 'token-session':
        session = ks_session.Session(auth=token_endpoint.Token(url, 'T'))
        return heat_client.Client('1', session=session)
    session = ks_session.Session(auth=noauth.NoAuth())
    return heat_client.Client('1', session=session, endpoint=url)


@pytest.fixture
def srv(project) -> str:
    """A server id prefix of this test's own: servers belong to the first
    project that deploys to them."""
    return f'{project}-srv'


def unknown_id() -> str:
    return str(uuid.uuid4())


def make_config(heat, name='cfg', **kwargs):
    return heat.software_configs.create(
        name=name, group=kwargs.pop('group', 'script'),
        config=kwargs.pop('config', '#!/bin/sh\necho hello\n'), **kwargs)


def make_deployment(heat, config_id, server_id, **kwargs):
    return heat.software_deployments.create(
        config_id=config_id, server_id=server_id, **kwargs)


# -- software configs -------------------------------------------------------

def test_config_create_and_get(heat):
    created = heat.software_configs.create(
        name='web', group='script', config='#!/bin/sh\necho $count\n',
        inputs=INPUTS, outputs=OUTPUTS, options=OPTIONS)

    body = created.to_dict()
    assert set(body) == CONFIG_KEYS
    uuid.UUID(created.id)
    assert created.name == 'web'
    assert created.group == 'script'
    assert created.config == '#!/bin/sh\necho $count\n'
    assert created.inputs == NORMALISED_INPUTS
    assert created.outputs == NORMALISED_OUTPUTS
    assert created.options == OPTIONS
    assert created.creation_time.endswith('Z')

    fetched = heat.software_configs.get(created.id)
    assert fetched.to_dict() == body


def test_config_create_structured_and_defaults(heat):
    created = heat.software_configs.create(
        name=None, group='Heat::Ungrouped', config={'key': ['v', 1]})
    assert created.config == {'key': ['v', 1]}
    assert created.name is None
    assert created.inputs == []
    assert created.outputs == []
    assert created.options == {}
    assert heat.software_configs.get(created.id).config == {'key': ['v', 1]}


def test_config_list_limit_and_marker(heat):
    ids = {make_config(heat, name=f'c{n}').id for n in range(3)}

    everything = heat.software_configs.list()
    assert {c.id for c in everything} == ids
    for item in everything:
        assert set(item.to_dict()) == SUMMARY_KEYS
    order = [c.id for c in everything]

    assert [c.id for c in heat.software_configs.list(limit=2)] == order[:2]
    assert [c.id for c in heat.software_configs.list(
        marker=order[0])] == order[1:]
    assert [c.id for c in heat.software_configs.list(
        limit=1, marker=order[1])] == order[2:]


def test_config_list_is_per_project(heat, embedded_service):
    mine = make_config(heat, name='mine')
    other = heat_client.Client(
        '1', endpoint=embedded_service.endpoint(f'p-{uuid.uuid4().hex}'),
        token='T')
    make_config(other, name='theirs')
    assert [c.id for c in heat.software_configs.list()] == [mine.id]
    with pytest.raises(heat_exc.HTTPNotFound):
        other.software_configs.get(mine.id)


def test_config_delete(heat):
    config = make_config(heat)
    assert heat.software_configs.delete(config.id) is None
    with pytest.raises(heat_exc.HTTPNotFound) as info:
        heat.software_configs.get(config.id)
    assert f'Software config with id {config.id} not found' in str(
        info.value)
    assert heat.software_configs.list() == []


def test_config_delete_referenced_is_conflict(heat, srv):
    config = make_config(heat)
    make_deployment(heat, config.id, srv + '-1')
    with pytest.raises(heat_exc.HTTPConflict) as info:
        heat.software_configs.delete(config.id)
    assert info.value.code == 409
    assert (f'Software config with id {config.id} can not be deleted as it '
            f'is referenced.') in str(info.value)
    assert heat.software_configs.get(config.id).id == config.id


# -- software deployments ---------------------------------------------------

def test_deployment_create_get_list(heat, srv):
    config = make_config(heat, inputs=INPUTS, outputs=OUTPUTS)
    created = make_deployment(
        heat, config.id, server_id=srv + '-a',
        input_values={'count': 5, 'flavour': 'mint'}, action='CREATE',
        status='IN_PROGRESS', status_reason='Deploy data available')
    other = make_deployment(heat, config.id, server_id=srv + '-b',
                            action='CREATE', status='IN_PROGRESS')

    uuid.UUID(created.id)
    assert created.config_id == config.id
    assert created.server_id == srv + '-a'
    assert created.input_values == {'count': 5, 'flavour': 'mint'}
    assert created.output_values is None
    assert created.action == 'CREATE'
    assert created.status == 'IN_PROGRESS'
    assert created.status_reason == 'Deploy data available'
    assert created.creation_time.endswith('Z')
    assert 'updated_time' not in created.to_dict()

    assert heat.software_deployments.get(created.id).to_dict() == \
        created.to_dict()

    listed = heat.software_deployments.list(server_id=srv + '-a')
    assert [d.to_dict() for d in listed] == [created.to_dict()]
    assert [d.id for d in heat.software_deployments.list(
        server_id=srv + '-b')] == [other.id]
    assert heat.software_deployments.list(server_id='no-such-server') == []
    assert {d.id for d in heat.software_deployments.list()} == {
        created.id, other.id}


def test_deployment_create_without_optional_fields(heat, srv):
    config = make_config(heat)
    created = make_deployment(heat, config.id, srv + '-1')
    assert created.input_values == {}
    assert created.action is None
    assert created.status is None
    assert created.status_reason is None


def test_deployment_update(heat, srv):
    config = make_config(heat, outputs=OUTPUTS)
    deployment = make_deployment(heat, config.id, srv + '-1',
                                 action='CREATE', status='IN_PROGRESS')

    updated = heat.software_deployments.update(
        deployment.id, status='COMPLETE', status_reason='Outputs received',
        output_values={'result': 'ok', 'deploy_status_code': 0})
    assert updated.id == deployment.id
    assert updated.status == 'COMPLETE'
    assert updated.status_reason == 'Outputs received'
    assert updated.output_values == {'result': 'ok',
                                     'deploy_status_code': 0}
    assert updated.action == 'CREATE'
    assert updated.updated_time.endswith('Z')

    fetched = heat.software_deployments.get(deployment.id)
    assert fetched.to_dict() == updated.to_dict()

    # A new config and action, as Heat's resource does on UPDATE; the
    # response carries the new config_id (swconfig fixes Heat's stale one).
    new_config = make_config(heat, name='cfg-v2')
    moved = heat.software_deployments.update(
        deployment.id, config_id=new_config.id, action='UPDATE',
        status='IN_PROGRESS', input_values={'count': 7})
    assert moved.config_id == new_config.id
    assert moved.action == 'UPDATE'
    assert moved.status == 'IN_PROGRESS'
    assert moved.input_values == {'count': 7}
    assert moved.output_values == {'result': 'ok', 'deploy_status_code': 0}
    assert heat.software_deployments.get(
        deployment.id).config_id == new_config.id


def test_deployment_metadata(heat, srv):
    beta = make_config(heat, name='beta', inputs=[
        {'name': 'x', 'value': 'for-the-agent'}], outputs=OUTPUTS,
        options={'o': 1})
    alpha = make_config(heat, name='alpha')
    make_deployment(heat, beta.id, server_id=srv + '-m')
    make_deployment(heat, alpha.id, server_id=srv + '-m')
    make_deployment(heat, alpha.id, server_id=srv + '-other')

    metadata = heat.software_deployments.metadata(server_id=srv + '-m')
    assert isinstance(metadata, list)
    # Sorted by config name; each item is the full config representation.
    assert [item['id'] for item in metadata] == [alpha.id, beta.id]
    assert metadata[1] == beta.to_dict()
    assert metadata[1]['inputs'] == [
        {'name': 'x', 'type': 'String', 'value': 'for-the-agent'}]

    assert heat.software_deployments.metadata(server_id='srv-none') == []


def test_deployment_delete(heat, srv):
    config = make_config(heat)
    deployment = make_deployment(heat, config.id, server_id=srv + '-d')
    assert heat.software_deployments.delete(deployment.id) is None

    with pytest.raises(heat_exc.HTTPNotFound) as info:
        heat.software_deployments.get(deployment.id)
    assert f'Deployment with id {deployment.id} not found' in str(info.value)
    assert heat.software_deployments.list(server_id=srv + '-d') == []
    assert heat.software_deployments.metadata(server_id=srv + '-d') == []
    # The config is no longer referenced and can go now.
    assert heat.software_configs.delete(config.id) is None


# -- error mapping ----------------------------------------------------------

def test_unknown_config_is_not_found(heat, srv):
    missing = unknown_id()
    message = f'Software config with id {missing} not found'
    with pytest.raises(heat_exc.HTTPNotFound) as info:
        heat.software_configs.get(missing)
    assert message in str(info.value)
    assert info.value.code == 404

    with pytest.raises(heat_exc.HTTPNotFound) as info:
        make_deployment(heat, missing, 'any-server')
    assert message in str(info.value)

    with pytest.raises(heat_exc.HTTPNotFound) as info:
        heat.software_configs.delete(missing)
    assert message in str(info.value)


def test_unknown_config_in_deployment_update_is_not_found(heat, srv):
    config = make_config(heat)
    deployment = make_deployment(heat, config.id, srv + '-1')
    missing = unknown_id()
    with pytest.raises(heat_exc.HTTPNotFound) as info:
        heat.software_deployments.update(deployment.id, config_id=missing)
    assert f'Software config with id {missing} not found' in str(info.value)
    assert heat.software_deployments.get(
        deployment.id).config_id == config.id


def test_unknown_deployment_is_not_found(heat):
    missing = unknown_id()
    message = f'Deployment with id {missing} not found'
    with pytest.raises(heat_exc.HTTPNotFound) as info:
        heat.software_deployments.get(missing)
    assert message in str(info.value)

    with pytest.raises(heat_exc.HTTPNotFound) as info:
        heat.software_deployments.update(missing, status='COMPLETE')
    assert message in str(info.value)

    with pytest.raises(heat_exc.HTTPNotFound) as info:
        heat.software_deployments.delete(missing)
    assert message in str(info.value)


def test_bad_input_is_bad_request(heat):
    with pytest.raises(heat_exc.HTTPBadRequest) as info:
        heat.software_configs.create(name='x', inputs='not-a-list')
    assert info.value.code == 400

    with pytest.raises(heat_exc.HTTPBadRequest):
        heat.software_configs.create(name='x', inputs=[{'type': 'String'}])

    with pytest.raises(heat_exc.HTTPBadRequest):
        heat.software_configs.create(
            name='x', outputs=[{'name': 'o', 'default': 'no'}])

    with pytest.raises(heat_exc.HTTPBadRequest) as info:
        heat.software_configs.list(limit='many')
    assert "Only integer is acceptable by 'limit'." in str(info.value)

    config = make_config(heat)
    with pytest.raises(heat_exc.HTTPBadRequest) as info:
        heat.software_deployments.create(config_id=config.id)
    assert 'server_id' in str(info.value)

    # Nothing was created by the refused requests.
    assert [c.id for c in heat.software_configs.list()] == [config.id]
    assert heat.software_deployments.list() == []
