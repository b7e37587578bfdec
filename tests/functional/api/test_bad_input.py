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

"""Bad input gets a 4xx with Heat's error body — never a 500 — and
nothing is written."""

import json

import pytest

from tests.functional.api import helpers
from tests.functional.api.helpers import assert_error
from tests.functional.api.helpers import create_config

ONE_MIB = 1024 * 1024


def configs(project: str) -> str:
    return helpers.url(project, 'software_configs')


def assert_nothing_written(api, project):
    assert api.get(configs(project)).json == {'software_configs': []}
    assert api.get(helpers.url(project, 'software_deployments')).json == {
        'software_deployments': []}


@pytest.mark.parametrize('data, content_type', [
    ('{"name": ', 'application/json'),            # truncated JSON
    ('{"name": "x",}', 'application/json'),         # trailing comma
    ('[{"name": "x"}]', 'application/json'),        # not an object
    ('"just a string"', 'application/json'),
    ('', 'application/json'),                       # no body at all
    (b'{"name": "\xff\xfe"}', 'application/json'),  # not UTF-8
])
def test_malformed_bodies(api, project, data, content_type):
    reply = api.post(configs(project), data=data,
                     headers={'Content-Type': content_type})
    assert_error(reply, 400)
    assert_nothing_written(api, project)


@pytest.mark.parametrize('data, content_type', [
    ('name=x', 'application/x-www-form-urlencoded'),
    ('<config/>', 'application/xml'),
    ('{"name": "x"}', 'application/octet-stream'),  # not JSON by type
])
def test_bodies_not_declared_json(api, project, data, content_type):
    reply = api.post(configs(project), data=data,
                     headers={'Content-Type': content_type})
    assert_error(reply, 415, 'HTTPUnsupportedMediaType')
    assert_nothing_written(api, project)


def test_body_without_content_type_is_json(api, project):
    reply = api.post(configs(project), data='{"name": "plain"}')
    assert reply.status == 200, reply.text


@pytest.mark.parametrize('body', [
    {'inputs': 'not-a-list'},
    {'inputs': ['not-an-object']},
    {'inputs': [{'description': 'no name'}]},
    {'inputs': [{'name': 'x', 'unknown_key': 1}]},
    {'inputs': [{'name': 'x', 'type': 'Float'}]},
    {'inputs': [{'name': 'x', 'type': 'Number', 'default': 'abc'}]},
    {'inputs': [{'name': 'x', 'type': 'Boolean', 'default': 'maybe'}]},
    {'inputs': [{'name': 'x', 'type': 'Json', 'default': 5}]},
    {'inputs': [{'name': 'x', 'type': 'String', 'default': {'a': 1}}]},
    {'inputs': [{'name': 'x', 'replace_on_change': 'yes'}]},
    {'inputs': [{'name': 'x', 'error_output': True}]},
    {'outputs': [{'name': 'x', 'default': 1}]},
    {'outputs': [{'name': 'x', 'error_output': 'sometimes'}]},
    {'outputs': [{'name': {'nested': 'object'}}]},
    {'name': ['a', 'list']},
    {'group': 42},
    {'name': 'x' * 256},
])
def test_invalid_config_schemas(api, project, body):
    error = assert_error(api.post(configs(project), json=body), 400)
    assert error['message']
    assert_nothing_written(api, project)


def test_oversized_body_is_refused(api, project):
    body = json.dumps({'name': 'big', 'config': 'x' * ONE_MIB})
    error = assert_error(api.post(configs(project), data=body,
                                  headers={'Content-Type':
                                           'application/json'}),
                         400, 'RequestLimitExceeded')
    assert 'exceeds maximum allowed size (1048576 bytes)' in error['message']
    assert_nothing_written(api, project)


def test_body_just_under_the_limit_is_accepted(api, project):
    body = json.dumps({'name': 'big', 'config': 'x' * (ONE_MIB - 100)})
    assert len(body) <= ONE_MIB
    reply = api.post(configs(project), data=body,
                     headers={'Content-Type': 'application/json'})
    assert reply.status == 200, reply.text[:200]
    created = reply.json['software_config']
    shown = api.get(configs(project) + '/' + created['id']).json
    assert len(shown['software_config']['config']) == ONE_MIB - 100


@pytest.mark.parametrize('suffix', [
    '/00000000-0000-0000-0000-000000000000', '/not-a-uuid',
    '/%E2%9C%93', '/' + 'x' * 300,
])
def test_unknown_ids_are_404(api, project, suffix):
    for resource in ('software_configs', 'software_deployments'):
        assert_error(api.get(helpers.url(project, resource, suffix)), 404)
        assert_error(api.delete(helpers.url(project, resource, suffix)), 404)
    assert_error(api.put(helpers.url(project, 'software_deployments',
                                     suffix), json={}), 404)


@pytest.mark.parametrize('query', [
    'limit=1.5', 'limit=', 'limit=99999999999999999999', 'marker=',
    'marker=' + 'm' * 500, 'limit=%E2%9C%93',
])
def test_paging_parameters_never_fail_the_server(api, project, query):
    create_config(api, project)
    reply = api.get(configs(project) + '?' + query)
    assert reply.status in (200, 400), reply.text
    if reply.status == 400:
        assert_error(reply, 400)


def test_unicode_everywhere(api, project):
    config = create_config(
        api, project, name='конфиг ✓', group='script',
        config='echo "héllo wörld ✓"',
        inputs=[{'name': 'входные', 'default': 'значение ✓'}],
        outputs=[{'name': '出力'}])
    deployment = helpers.create_deployment(
        api, project, config_id=config['id'],
        server_id=project + '-сервер-✓',
        action='CREATE', input_values={'ключ': 'значение'})
    shown = api.get(helpers.url(project, 'software_deployments',
                                '/' + deployment['id'])).json
    assert shown['software_deployment']['server_id'] == project + '-сервер-✓'
    metadata = api.get(helpers.url(
        project, 'software_deployments',
        f'/metadata/{project}-%D1%81%D0%B5%D1%80%D0%B2%D0%B5%D1%80-%E2%9C%93'
    )).json
    assert metadata['metadata'][0]['name'] == 'конфиг ✓'


@pytest.mark.parametrize('body', [
    {'config_id': 1, 'server_id': 's'},
    {'config_id': 'c', 'server_id': ''},
    {'config_id': 'c', 'server_id': 5},
    {'config_id': 'c', 'server_id': 'x' * 256},
    {'config_id': 'c', 'server_id': 's', 'input_values': []},
    {'config_id': 'c', 'server_id': 's', 'action': {'a': 1}},
    {'config_id': 'c', 'server_id': 's', 'status': 'x' * 256},
])
def test_invalid_deployment_bodies(api, project, body):
    assert_error(api.post(helpers.url(project, 'software_deployments'),
                          json=body), 400)
    assert_nothing_written(api, project)


def test_unknown_routes_and_methods(api, project):
    error = assert_error(api.get(f'/v1/{project}/stacks'), 404,
                         'HTTPNotFound')
    assert error['message']
    assert_error(api.request('PATCH', configs(project), json={}), 405,
                 'HTTPMethodNotAllowed')
    assert_error(api.delete(configs(project)), 405)


def test_nul_characters_are_refused(api, project):
    error = assert_error(api.get(configs(project) + '/bad%00id'), 400)
    assert 'NUL' in error['message']
    assert_error(api.get(configs(project) + '?marker=%00'), 400)
    assert_error(api.post(configs(project), json={'name': 'a\x00b'}), 400)
    assert_error(api.post(helpers.url(project, 'software_deployments'),
                          json={'config_id': 'c',
                                'server_id': project + '-s\x00'}), 400)
    assert_nothing_written(api, project)
