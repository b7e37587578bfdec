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

"""Scenarios for /v1/{tenant_id}/software_deployments
(doc/source/reference/deployments.rst),
with swconfig's decisions from Part A (400 without server_id, null
status_reason, PUT applies falsy values, PUT answers the new config_id) and
its strict input (400 for unknown fields and a missing config_id)."""

from tests.functional.api import helpers
from tests.functional.api.deployment_helpers import deployments_url
from tests.functional.api.helpers import assert_error
from tests.functional.api.helpers import create_config
from tests.functional.api.helpers import create_deployment

# Heat's keys, then swconfig's (test_deployment_origins.py).
DEPLOYMENT_KEYS = {'id', 'config_id', 'server_id', 'input_values',
                   'output_values', 'action', 'status', 'status_reason',
                   'creation_time', 'name', 'source_config_id',
                   'signal_transport', 'triggered_from', 'input_key',
                   'input_values_validate'}


def test_create_show_and_defaults(api, project):
    config = create_config(api, project)
    deployment = create_deployment(api, project, config_id=config['id'],
                                   server_id=project + '-server-1')
    assert set(deployment) == DEPLOYMENT_KEYS  # no updated_time yet
    assert deployment['input_values'] == {}
    assert deployment['output_values'] is None
    assert deployment['action'] is None and deployment['status'] is None
    assert deployment['status_reason'] is None
    shown = api.get(deployments_url(project, '/' + deployment['id']))
    assert shown.json == {'software_deployment': deployment}


def test_create_refuses_fields_heat_would_ignore(api, project):
    """Heat drops id and output_values on create; swconfig names them
    (a client that sends them expects them to count)."""
    config = create_config(api, project)
    for field, value in (('id', 'mine'), ('output_values', {'x': 1})):
        error = assert_error(api.post(deployments_url(project), json={
            'config_id': config['id'], 'server_id': project + '-s',
            field: value}), 400)
        assert f'Unknown field {field}' in error['message']
    assert api.get(deployments_url(project)).json == {
        'software_deployments': []}
    deployment = create_deployment(
        api, project, config_id=config['id'], server_id=project + '-s',
        action='CREATE', status='IN_PROGRESS',
        status_reason='Deploy data available', input_values={'a': 1})
    assert deployment['output_values'] is None
    assert (deployment['action'], deployment['status'],
            deployment['status_reason']) == (
        'CREATE', 'IN_PROGRESS', 'Deploy data available')
    assert deployment['input_values'] == {'a': 1}


def test_create_errors(api, project):
    config = create_config(api, project)
    error = assert_error(api.post(deployments_url(project),
                                  json={'config_id': config['id']}), 400)
    assert 'server_id' in error['message']
    error = assert_error(api.post(deployments_url(project), json={
        'config_id': 'missing', 'server_id': project + '-s'}), 404, 'NotFound')
    assert error['message'] == 'Software config with id missing not found'
    # Heat answers 404 "... with id None not found"; swconfig names it.
    error = assert_error(api.post(deployments_url(project), json={
        'server_id': project + '-s'}), 400)
    assert error['message'] == 'Missing required field config_id.'
    error = assert_error(api.post(deployments_url(project), json={
        'config_id': config['id'], 'server_id': project + '-s',
        'stack_user_project_id': 'x' * 65}), 400, 'Invalid')
    assert 'no more than 64 characters' in error['message']
    other_config = create_config(api, project + '-b')
    assert_error(api.post(deployments_url(project), json={
        'config_id': other_config['id'], 'server_id': project + '-s'}), 404)
    assert api.get(deployments_url(project)).json == {
        'software_deployments': []}


def test_list_order_and_server_filter(api, project):
    config = create_config(api, project)
    first = create_deployment(api, project, config_id=config['id'],
                              server_id=project + '-a')
    second = create_deployment(api, project, config_id=config['id'],
                               server_id=project + '-b')
    third = create_deployment(api, project, config_id=config['id'],
                              server_id=project + '-a')
    listed = api.get(deployments_url(project)).json['software_deployments']
    assert [d['id'] for d in listed] == [first['id'], second['id'],
                                         third['id']]
    on_a = api.get(deployments_url(project, f'?server_id={project}-a')).json
    assert [d['id'] for d in on_a['software_deployments']] == [
        first['id'], third['id']]
    empty_filter = api.get(deployments_url(project, '?server_id=')).json
    assert len(empty_filter['software_deployments']) == 3


def test_update_semantics(api, project):
    config = create_config(api, project)
    new_config = create_config(api, project, name='derived')
    deployment = create_deployment(
        api, project, config_id=config['id'], server_id=project + '-s',
        action='CREATE', status='IN_PROGRESS', input_values={'a': 1},
        status_reason='waiting')
    path = deployments_url(project, '/' + deployment['id'])

    reply = api.put(path, json={'output_values': {'result': 'ok'},
                                'status': 'COMPLETE',
                                'config_id': new_config['id'],
                                'action': None})
    assert reply.status == 200, reply.text
    updated = reply.json['software_deployment']
    assert updated['config_id'] == new_config['id']
    assert updated['status'] == 'COMPLETE'
    assert updated['action'] == 'CREATE'  # null means "not given"
    assert updated['output_values'] == {'result': 'ok'}
    assert updated['updated_time'].endswith('Z')

    # Falsy values are applied (Heat silently drops them).
    cleared = api.put(path, json={'input_values': {}, 'status_reason': '',
                                  'output_values': {'other': 1}}).json
    cleared = cleared['software_deployment']
    assert cleared['input_values'] == {}
    assert cleared['status_reason'] == ''
    assert cleared['output_values'] == {'other': 1}  # replaced, not merged

    assert api.put(path, json={}).status == 200
    assert api.get(path).json['software_deployment']['config_id'] == (
        new_config['id'])
    # server_id cannot change: Heat ignores it, swconfig names it.
    error = assert_error(api.put(path, json={
        'server_id': project + '-elsewhere'}), 400)
    assert 'Unknown field server_id' in error['message']
    assert api.get(path).json['software_deployment']['server_id'] == (
        project + '-s')


def test_update_errors(api, project):
    config = create_config(api, project)
    deployment = create_deployment(api, project, config_id=config['id'],
                                   server_id=project + '-s')
    path = deployments_url(project, '/' + deployment['id'])
    assert_error(api.put(path, json={'config_id': 'nope'}), 404, 'NotFound')
    assert_error(api.put(deployments_url(project, '/nope'), json={}), 404,
                 'NotFound')
    assert_error(api.put(path, data=''), 400)
    assert_error(api.put(path, json={'status': ['not', 'a', 'string']}), 400)
    assert api.get(path).json['software_deployment'] == deployment


def test_delete(api, project):
    config = create_config(api, project)
    deployment = create_deployment(api, project, config_id=config['id'],
                                   server_id=project + '-s')
    path = deployments_url(project, '/' + deployment['id'])
    reply = api.delete(path)
    assert reply.status == 204 and reply.text == ''
    error = assert_error(api.get(path), 404, 'NotFound')
    assert error['message'] == (
        f'Deployment with id {deployment["id"]} not found')
    assert_error(api.delete(path), 404)
    # The config survives and can now be deleted.
    assert api.delete(helpers.url(project, 'software_configs',
                                  '/' + config['id'])).status == 204


def test_metadata(api, project):
    named_b = create_config(api, project, name='b', config='echo b')
    named_a = create_config(api, project, name='a')
    unnamed = create_config(api, project, name=None)
    for config in (named_b, named_a, unnamed, named_a):
        create_deployment(api, project, config_id=config['id'],
                          server_id=project + '-srv 1')
    create_deployment(api, project, config_id=named_a['id'],
                      server_id=project + '-other')
    reply = api.get(deployments_url(project, f'/metadata/{project}-srv%201'))
    assert reply.status == 200
    items = reply.json['metadata']
    assert [item['id'] for item in items] == [
        unnamed['id'], named_a['id'], named_a['id'], named_b['id']]
    assert items[-1] == named_b  # the full config representation
    assert api.get(deployments_url(project, '/metadata/unknown')).json == {
        'metadata': []}
    other_project = deployments_url(project + '-x',
                                    f'/metadata/{project}-srv%201')
    error = assert_error(api.get(other_project), 403,
                         'ServerOwnedByOtherProject')
    assert 'belongs to another project' in error['message']
    error = assert_error(api.get(deployments_url(project, '/metadata')), 404)
    assert error['message'] == 'Deployment with id metadata not found'


def test_events_record_every_status_change(api, project):
    config = create_config(api, project)
    deployment = create_deployment(api, project, config_id=config['id'],
                                   server_id=project + '-s', action='CREATE',
                                   status='IN_PROGRESS')
    path = deployments_url(project, '/' + deployment['id'])
    api.put(path, json={'output_values': {'x': 1}})  # no status change
    api.put(path, json={'status': 'COMPLETE', 'status_reason': 'done'})
    events = api.get(path + '/events').json['events']
    assert [(e['old_status'], e['new_status'], e['action'], e['reason'])
            for e in events] == [
        (None, 'IN_PROGRESS', 'CREATE', None),
        ('IN_PROGRESS', 'COMPLETE', 'CREATE', 'done')]
    assert_error(api.get(deployments_url(project + '-x',
                                         '/' + deployment['id'] + '/events')),
                 404)


def test_projects_are_isolated(api, project):
    config = create_config(api, project)
    deployment = create_deployment(api, project, config_id=config['id'],
                                   server_id=project + '-s')
    other = project + '-other'
    path = deployments_url(other, '/' + deployment['id'])
    assert_error(api.get(path), 404)
    assert_error(api.put(path, json={'status': 'FAILED'}), 404)
    assert_error(api.delete(path), 404)
    assert api.get(deployments_url(other)).json == {
        'software_deployments': []}
    assert api.get(deployments_url(project, '/' + deployment['id'])).json[
        'software_deployment']['status'] is None


def test_stack_user_project_may_read(api, project):
    config = create_config(api, project)
    reader = project + '-stackuser'
    deployment = create_deployment(api, project, config_id=config['id'],
                                   server_id=project + '-s',
                                   stack_user_project_id=reader)
    listed = api.get(deployments_url(reader)).json['software_deployments']
    assert [d['id'] for d in listed] == [deployment['id']]
    metadata = api.get(deployments_url(reader, f'/metadata/{project}-s')).json
    assert [item['id'] for item in metadata['metadata']] == [config['id']]


def test_reader_role_cannot_write(api, project):
    config = create_config(api, project)
    reader = {'X-Roles': 'reader'}
    error = assert_error(api.post(deployments_url(project), json={
        'config_id': config['id'], 'server_id': project + '-s'},
        headers=reader), 403, 'Forbidden')
    assert error['message'] == (
        'You are not authorized to use software_deployments:create.')
    assert api.get(deployments_url(project), headers=reader).status == 200
    assert api.get(deployments_url(project)).json == {
        'software_deployments': []}
