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

"""Careless input on the tenant API is refused with a 4xx that says what is
wrong, instead of being dropped, stored broken, or failing with a 500.

Each scenario runs on every backend (SQLite in-process; MariaDB and
PostgreSQL behind a real API process): a lone surrogate, for one, only
failed where the database driver had to encode it.
"""

import json
import time

import pytest

from tests.functional.api import helpers
from tests.functional.api.helpers import assert_error
from tests.functional.api.helpers import create_config
from tests.functional.api.helpers import create_deployment


def deployments(project: str, suffix: str = '') -> str:
    return helpers.url(project, 'software_deployments', suffix)


def configs(project: str, suffix: str = '') -> str:
    return helpers.url(project, 'software_configs', suffix)


def post_raw(api, path: str, raw: str | bytes,
             content_type: str | None = 'application/json'):
    headers = {'Content-Type': content_type} if content_type else {}
    return api.post(path, data=raw, headers=headers)


def wait_for_status(api, path: str, status: str) -> dict:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        shown = api.get(path).json['software_deployment']
        if shown['status'] == status:
            return shown
        time.sleep(0.05)
    pytest.fail(f'{path} never became {status}: {shown}')


def assert_nothing_written(api, project):
    assert api.get(configs(project)).json == {'software_configs': []}
    assert api.get(deployments(project)).json == {'software_deployments': []}


def test_unknown_fields_are_named(api, project):
    config = create_config(api, project)
    # The typo that made a raw deployment which never reports.
    error = assert_error(api.post(deployments(project), json={
        'config_id': config['id'], 'server_id': project + '-s',
        'signal_tranport': 'HEAT_SIGNAL'}), 400)
    assert 'signal_tranport' in error['message']
    assert 'did you mean signal_transport?' in error['message']
    assert api.get(deployments(project)).json == {'software_deployments': []}

    error = assert_error(api.post(configs(project), json={
        'name': 'n', 'confg': 'echo hi'}), 400)
    assert 'Unknown field confg' in error['message']
    error = assert_error(api.post(helpers.url(project, 'servers'), json={
        'server_id': project + '-s', 'project': 'x'}), 400)
    assert 'Unknown field project' in error['message']

    deployment = create_deployment(api, project, config_id=config['id'],
                                   server_id=project + '-s')
    path = deployments(project, '/' + deployment['id'])
    error = assert_error(api.put(path, json={'status': 'COMPLETE',
                                             'statu_reason': 'done'}), 400)
    assert 'Unknown field statu_reason' in error['message']
    assert 'did you mean status_reason?' in error['message']
    # Nothing of the refused update was applied.
    assert api.get(path).json['software_deployment']['status'] is None


def test_every_field_real_clients_send_is_accepted(api, project):
    """What heatclient, the openstack CLI and Heat's tempest tests send
    (doc/source/reference/agents.rst) stays accepted under the closed schemas.
    """
    config = create_config(
        api, project, name='all-fields', group='script', config='echo',
        options={'k': 'v'},
        inputs=[{'name': 'a', 'description': 'd', 'type': 'Number',
                 'default': '1', 'replace_on_change': True, 'value': 2}],
        outputs=[{'name': 'r', 'description': 'd', 'type': 'String',
                  'error_output': False}])
    deployment = create_deployment(
        api, project, config_id=config['id'], server_id=project + '-s',
        input_values={'a': 3}, action='ACTION0', status='IN_PROGRESS',
        status_reason='Deploy data available',
        stack_user_project_id=project + '-stack-user')
    path = deployments(project, '/' + deployment['id'])
    reply = api.put(path, json={
        'config_id': config['id'], 'input_values': {'a': 4},
        'output_values': {'r': 'ok'}, 'action': 'ACTION1',
        'status': 'COMPLETE', 'status_reason': 'completed'})
    assert reply.status == 200, reply.text
    updated = reply.json['software_deployment']
    assert (updated['action'], updated['status'], updated['output_values']) \
        == ('ACTION1', 'COMPLETE', {'r': 'ok'})


@pytest.mark.parametrize('content_type', [
    'application/x-www-form-urlencoded', 'text/html',
    'application/octet-stream', 'application/xml'])
def test_json_body_needs_a_json_content_type(api, project, content_type):
    error = assert_error(post_raw(api, configs(project), '{"name": "x"}',
                                  content_type), 415,
                         'HTTPUnsupportedMediaType')
    assert content_type in error['message']
    assert 'Content-Type: application/json' in error['message']
    assert_nothing_written(api, project)


@pytest.mark.parametrize('content_type', [
    'application/json', 'application/json; charset=UTF-8', 'text/plain',
    None])
def test_what_real_clients_send_stays_json(api, project, content_type):
    reply = post_raw(api, configs(project), '{"name": "typed"}',
                     content_type)
    assert reply.status == 200, reply.text
    assert reply.json['software_config']['name'] == 'typed'


def test_missing_config_id_is_named(api, project):
    for body in ({'server_id': project + '-s'},
                 {'server_id': project + '-s', 'config_id': None}):
        error = assert_error(api.post(deployments(project), json=body), 400)
        assert 'config_id' in error['message']
    assert_nothing_written(api, project)


@pytest.mark.parametrize('field, value', [
    ('status', 'DONE'), ('status', 'complete'), ('status', ''),
    ('action', 'CREATE NOW'), ('action', '1ST'), ('action', ''),
    ('action', 'CREATE\n'), ('action', 'A' * 256), ('action', 'DEL/ETE'),
])
def test_status_and_action_are_checked(api, project, field, value):
    config = create_config(api, project)
    error = assert_error(api.post(deployments(project), json={
        'config_id': config['id'], 'server_id': project + '-s',
        field: value}), 400)
    assert error['message'].startswith(f'Invalid value for {field}: ')
    deployment = create_deployment(api, project, config_id=config['id'],
                                   server_id=project + '-s')
    path = deployments(project, '/' + deployment['id'])
    error = assert_error(api.put(path, json={field: value}), 400)
    assert field in error['message']
    assert api.get(path).json['software_deployment'][field] is None


@pytest.mark.parametrize('action', ['CREATE', 'BACKUP', 'ACTION0',
                                    'custom_step_2', '_x', 'A' * 255])
def test_identifier_actions_are_accepted(api, project, action):
    config = create_config(api, project)
    deployment = create_deployment(api, project, config_id=config['id'],
                                   server_id=project + '-s', action=action,
                                   status='COMPLETE')
    assert deployment['action'] == action


@pytest.mark.parametrize('server_id', [
    'rack/1', 'a\x01b', 'tab\there', 'new\nline', 'del\x7f', 'c1\x85',
    's' * 256])
def test_server_ids_are_checked(api, project, server_id):
    config = create_config(api, project)
    error = assert_error(api.post(deployments(project), json={
        'config_id': config['id'], 'server_id': server_id}), 400)
    assert 'server_id' in error['message']
    error = assert_error(api.post(helpers.url(project, 'servers'), json={
        'server_id': server_id}), 400)
    assert 'server_id' in error['message']
    assert api.get(deployments(project)).json == {'software_deployments': []}
    assert api.get(helpers.url(project, 'servers')).json == {'servers': []}


def test_longest_server_id_is_accepted(api, project):
    config = create_config(api, project)
    server_id = project + '-' + 's' * (254 - len(project))
    assert len(server_id) == 255
    deployment = create_deployment(api, project, config_id=config['id'],
                                   server_id=server_id)
    assert deployment['server_id'] == server_id


LONE_SURROGATE_BODIES = [
    ('configs', '{"name": "\\ud800"}', 'name'),
    ('configs', '{"name": "ok", "inputs": [{"name": "i", '
                '"value": ["x", "\\udfff"]}]}', 'inputs[0].value[1]'),
    ('configs', '{"name": "ok", "options": {"k\\ud83d": 1}}', 'options.k'),
    ('deployments', '{"config_id": "c", "server_id": "s\\udc00"}',
     'server_id'),
    ('deployments', '{"config_id": "c", "server_id": "s", '
                    '"input_values": {"k": "\\ud83d tail"}}',
     'input_values.k'),
]


@pytest.mark.parametrize('resource, raw, field', LONE_SURROGATE_BODIES)
def test_lone_surrogates_are_refused(api, project, resource, raw, field):
    path = configs(project) if resource == 'configs' else deployments(
        project)
    error = assert_error(post_raw(api, path, raw), 400)
    assert field in error['message']
    assert 'surrogate' in error['message']
    assert_nothing_written(api, project)


def test_lone_surrogates_as_raw_utf8_bytes_are_refused(api, project):
    # The parser decodes UTF-8 with surrogatepass: the bytes of U+D800.
    error = assert_error(post_raw(api, configs(project),
                                  b'{"name": "a\xed\xa0\x80"}'), 400)
    assert 'name' in error['message'] and 'surrogate' in error['message']
    assert_nothing_written(api, project)


def test_lone_surrogates_in_updates_and_signals_are_refused(api, project):
    config = create_config(api, project, outputs=[{'name': 'result'}])
    deployment = create_deployment(api, project, config_id=config['id'],
                                   server_id=project + '-s',
                                   status='IN_PROGRESS')
    path = deployments(project, '/' + deployment['id'])
    error = assert_error(api.put(path, data='{"status_reason": "\\ud800"}',
                                 headers={'Content-Type':
                                          'application/json'}), 400)
    assert 'status_reason' in error['message']
    error = assert_error(post_raw(api, path + '/signal',
                                  '{"result": "\\udfff"}'), 400)
    assert 'result' in error['message']
    # Had the refused signal been stored, it would have completed the
    # action first and this one would be a duplicate.
    assert api.post(path + '/signal', json={'result': 'good'}).status == 200
    done = wait_for_status(api, path, 'COMPLETE')
    assert done['output_values']['result'] == 'good'
    assert done['status_reason'] != '\ud800'


@pytest.mark.parametrize('raw, field', [
    ('{"name": "n", "config": NaN}', 'config'),
    ('{"name": "n", "options": {"ratio": Infinity}}', 'options.ratio'),
    ('{"name": "n", "inputs": [{"name": "i", "type": "Number", '
     '"default": -Infinity}]}', 'inputs[0].default'),
    ('{"name": "n", "config": {"big": 1e400}}', 'config.big'),
])
def test_nan_and_infinity_are_refused(api, project, raw, field):
    error = assert_error(post_raw(api, configs(project), raw), 400)
    assert error['message'].startswith(f'Invalid value for {field}: ')
    assert 'not a JSON number' in error['message']
    assert_nothing_written(api, project)


def test_nan_in_deployment_values_is_refused(api, project):
    config = create_config(api, project)
    raw = json.dumps({'config_id': config['id'], 'server_id': project + '-s',
                      'input_values': {'x': float('nan')}})
    assert 'NaN' in raw
    error = assert_error(post_raw(api, deployments(project), raw), 400)
    assert 'input_values.x' in error['message']
    assert api.get(deployments(project)).json == {'software_deployments': []}


def test_utf8_project_name_works_under_noauth(api, project):
    name = project + '-pröject-✓'
    quoted = project + '-pr%C3%B6ject-%E2%9C%93'
    config = create_config(api, quoted, name='ünïcode')
    listed = api.get(configs(quoted)).json['software_configs']
    assert [c['id'] for c in listed] == [config['id']]
    deployment = create_deployment(api, quoted, config_id=config['id'],
                                   server_id=project + '-s',
                                   action='CREATE', status='IN_PROGRESS')
    path = deployments(quoted, '/' + deployment['id'])
    assert api.put(path, json={'status': 'COMPLETE'}).status == 200
    metadata = api.get(deployments(quoted, f'/metadata/{project}-s')).json
    assert [m['id'] for m in metadata['metadata']] == [config['id']]
    servers = api.get(helpers.url(quoted, 'servers')).json['servers']
    assert [s['project_id'] for s in servers] == [name]
    # The project is the caller's own: another one sees nothing of it.
    assert api.get(configs(project)).json == {'software_configs': []}


@pytest.mark.parametrize('url', [
    '/v1/pr%F6ject/software_configs',
    '/v1/{project}/software_configs/%ED%A0%80',
    '/v1/{project}/software_configs?marker=%FF',
])
def test_urls_that_are_not_utf8_are_400(api, project, url):
    error = assert_error(api.get(url.format(project=project)), 400)
    assert 'not valid UTF-8' in error['message']


def test_method_not_allowed_carries_allow(api, project):
    reply = api.request('PATCH', configs(project), json={})
    assert_error(reply, 405, 'HTTPMethodNotAllowed')
    assert set(reply.headers['Allow'].split(', ')) == {'GET', 'POST'}
    reply = api.request('POST', deployments(project, '/some-id'), json={})
    assert_error(reply, 405)
    assert set(reply.headers['Allow'].split(', ')) == {'GET', 'PUT',
                                                       'DELETE'}
