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

"""Scenarios for /v1/{tenant_id}/software_configs
(doc/source/reference/configs.rst)."""

import pytest

from tests.functional.api import helpers


def configs_url(project: str, suffix: str = '') -> str:
    return helpers.url(project, 'software_configs', suffix)


create_config = helpers.create_config
assert_error = helpers.assert_error


def test_create_returns_normalised_config(api, project):
    config = create_config(
        api, project, name='deploy-app', config='#!/bin/sh\necho $foo',
        inputs=[{'name': 'foo', 'type': 'Number', 'default': '3'},
                {'name': 'bar', 'replace_on_change': 'true',
                 'description': None}],
        outputs=[{'name': 'result'}, {'name': 'failed',
                                      'error_output': True}],
        options={'debug': True})
    assert set(config) == {'id', 'name', 'group', 'creation_time', 'config',
                           'inputs', 'outputs', 'options'}
    assert config['inputs'] == [
        {'name': 'foo', 'type': 'Number', 'default': 3},
        {'name': 'bar', 'type': 'String', 'description': '',
         'replace_on_change': True}]
    assert config['outputs'] == [
        {'name': 'result', 'type': 'String', 'error_output': False},
        {'name': 'failed', 'type': 'String', 'error_output': True}]
    assert config['options'] == {'debug': True}
    assert config['creation_time'].endswith('Z')
    assert len(config['creation_time']) == len('2026-01-01T00:00:00Z')

    shown = api.get(configs_url(project, '/' + config['id']))
    assert shown.status == 200
    assert shown.json == {'software_config': config}


def test_create_with_empty_body_gets_defaults(api, project):
    reply = api.post(configs_url(project), json={})
    assert reply.status == 200
    config = reply.json['software_config']
    assert config['inputs'] == [] and config['outputs'] == []
    assert config['options'] == {}
    assert config['name'] is None and config['config'] is None


def test_structured_config_is_stored_verbatim(api, project):
    structured = {'config': {'a': [1, {'get_input': 'x'}]}, 'ünï': 'çödé'}
    config = create_config(api, project, config=structured,
                           name='名前 ✓')
    shown = api.get(configs_url(project, '/' + config['id'])).json
    assert shown['software_config']['config'] == structured
    assert shown['software_config']['name'] == '名前 ✓'


def test_list_is_newest_first_and_pages(api, project):
    ids = [create_config(api, project, name=f'c{i}')['id']
           for i in range(4)]
    listed = api.get(configs_url(project)).json['software_configs']
    assert [item['id'] for item in listed] == ids[::-1]
    assert set(listed[0]) == {'id', 'name', 'group', 'creation_time'}

    page = api.get(configs_url(project, '?limit=2')).json
    assert [c['id'] for c in page['software_configs']] == ids[:1:-1]
    rest = api.get(configs_url(
        project, f'?limit=2&marker={ids[2]}')).json['software_configs']
    assert [c['id'] for c in rest] == [ids[1], ids[0]]
    assert api.get(configs_url(project, '?limit=0')).json == {
        'software_configs': []}
    unknown = api.get(configs_url(project, '?marker=nope')).json
    assert len(unknown['software_configs']) == 4


@pytest.mark.parametrize('limit, message', [
    ('abc', "Only integer is acceptable by 'limit'."),
    ('-1', "Value '-1' is invalid for 'limit' which only accepts "
           "non-negative integer."),
    # Digits only, as the API reference says (int() takes these too).
    ('%2B5', "Only integer is acceptable by 'limit'."),
    ('%205', "Only integer is acceptable by 'limit'."),
    ('5_0', "Only integer is acceptable by 'limit'."),
    ('1&limit=2', "The query parameter 'limit' is given 2 times; give it "
                  "once."),
])
def test_bad_limit_is_400(api, project, limit, message):
    error = assert_error(api.get(configs_url(project, f'?limit={limit}')),
                         400)
    assert error['message'] == message


def test_an_empty_limit_is_none_as_in_heat(api, project):
    create_config(api, project)
    assert len(api.get(configs_url(project, '?limit=')).json[
        'software_configs']) == 1


def test_global_tenant_is_denied_by_default(api, project):
    error = assert_error(
        api.get(configs_url(project, '?global_tenant=true')), 403,
        'Forbidden')
    assert 'software_configs:global_index' in error['message']
    assert_error(api.get(configs_url(project, '?global_tenant=maybe')), 400)


def test_projects_are_isolated(api, project):
    config = create_config(api, project)
    other = project + '-other'
    assert_error(api.get(configs_url(other, '/' + config['id'])), 404,
                 'NotFound')
    assert_error(api.delete(configs_url(other, '/' + config['id'])), 404)
    assert api.get(configs_url(other)).json == {'software_configs': []}


def test_admin_sees_all_projects_with_project_key(api, project):
    config = create_config(api, project)
    admin = {'X-Roles': 'admin,member,reader'}
    listed = api.get(configs_url('admin-project'), headers=admin).json
    mine = [c for c in listed['software_configs'] if c['id'] == config['id']]
    assert mine == [dict(mine[0], project=project)]
    shown = api.get(configs_url('admin-project', '/' + config['id']),
                    headers=admin)
    assert shown.status == 200


def test_delete_and_not_found(api, project):
    config = create_config(api, project)
    reply = api.delete(configs_url(project, '/' + config['id']))
    assert reply.status == 204 and reply.text == ''
    error = assert_error(api.get(configs_url(project, '/' + config['id'])),
                         404, 'NotFound')
    assert error['message'] == (
        f'Software config with id {config["id"]} not found')
    assert_error(api.delete(configs_url(project, '/' + config['id'])), 404)


def test_delete_of_referenced_config_is_409(api, project):
    config = create_config(api, project)
    deployment = api.post(f'/v1/{project}/software_deployments', json={
        'config_id': config['id'], 'server_id': project + '-srv'})
    assert deployment.status == 200
    error = assert_error(api.delete(configs_url(project, '/' + config['id'])),
                         409, 'ConfigInUse')
    assert 'referenced' in error['message']
    assert api.get(configs_url(project, '/' + config['id'])).status == 200


def test_configs_are_immutable(api, project):
    config = create_config(api, project)
    assert_error(api.put(configs_url(project, '/' + config['id']),
                         json={'name': 'x'}), 405)


def test_input_check_names_what_the_config_does_not_take(api, project):
    config = create_config(
        api, project, name='web', group='apply-config',
        inputs=[{'name': 'name'}],
        config={'listen': {'get_input': 'port'}, 'server': 'x'})
    url = configs_url(project, f'/{config["id"]}/input_check')

    def check(**body):
        reply = api.post(url, json=body)
        assert reply.status == 200, reply.text
        return reply.json['input_check']

    typo = check(input_values={'nme': 'x', 'name': 'y', 'prot': 1,
                               'deploy_server_id': 's'})
    assert typo == {
        'inputs': ['name'],
        'unknown': [{'name': 'nme', 'closest': 'name'},
                    {'name': 'prot', 'closest': None}],
        'message': 'Config web has no input nme (did you mean name?), '
                   'prot; it declares name.'}
    # Through input_key, what the structured config refers to is taken.
    referred = check(input_values={'prot': 1}, input_key='get_input')
    assert referred['inputs'] == ['name', 'port']
    assert referred['unknown'] == [{'name': 'prot', 'closest': 'port'}]
    assert referred['message'].endswith(
        '; it declares or refers to name, port.')
    assert check(input_values={'name': 'x', 'port': 80},
                 input_key='get_input') == {
        'inputs': ['name', 'port'], 'unknown': [], 'message': None}
    assert_error(api.post(url, json={'input_values': []}), 400)
    assert_error(api.post(configs_url(project, '/missing/input_check'),
                          json={'input_values': {}}), 404)
    assert_error(api.post(configs_url(project + '-other',
                                      f'/{config["id"]}/input_check'),
                          json={'input_values': {}}), 404)
