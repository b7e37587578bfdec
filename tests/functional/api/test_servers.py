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

"""Server ownership: a server belongs to one project
(doc/source/user/servers.rst)."""

from tests.functional.api import helpers
from tests.functional.api.helpers import assert_error
from tests.functional.api.helpers import create_config
from tests.functional.api.helpers import create_deployment


def servers_url(project: str, suffix: str = '') -> str:
    return helpers.url(project, 'servers', suffix)


def test_register_list_show_delete(api, project):
    server_id = project + '-vm'
    reply = api.post(servers_url(project), json={'server_id': server_id})
    assert reply.status == 200, reply.text
    server = reply.json['server']
    assert server['server_id'] == server_id
    assert server['project_id'] == project
    assert server['creation_time'].endswith('Z')
    assert api.get(servers_url(project)).json == {'servers': [server]}
    assert api.get(servers_url(project, '/' + server_id)).json == {
        'server': server}
    # Registering again is harmless.
    assert api.post(servers_url(project),
                    json={'server_id': server_id}).status == 200
    assert api.delete(servers_url(project, '/' + server_id)).status == 204
    assert_error(api.get(servers_url(project, '/' + server_id)), 404)
    assert api.get(servers_url(project)).json == {'servers': []}


def test_other_projects_are_refused_and_nothing_is_written(api, project):
    server_id = project + '-vm'
    config = create_config(api, project)
    create_deployment(api, project, config_id=config['id'],
                      server_id=server_id)
    intruder = project + '-b'
    their_config = create_config(api, intruder)
    for body in ({'config_id': their_config['id'], 'server_id': server_id},
                 {'config_id': their_config['id'], 'server_id': server_id,
                  'signal_transport': 'HEAT_SIGNAL'}):
        error = assert_error(api.post(
            helpers.url(intruder, 'software_deployments'), json=body), 403,
            'ServerOwnedByOtherProject')
        assert server_id in error['message']
    assert api.get(helpers.url(intruder, 'software_deployments')).json == {
        'software_deployments': []}
    assert_error(api.get(helpers.url(
        intruder, 'software_deployments', f'?server_id={server_id}')), 403)
    assert_error(api.get(helpers.url(
        intruder, 'software_deployments', f'/metadata/{server_id}')), 403)
    assert_error(api.get(servers_url(intruder,
                                     f'/{server_id}/agent-config')), 403)
    assert_error(api.post(servers_url(intruder),
                          json={'server_id': server_id}), 403)
    assert_error(api.get(servers_url(intruder, '/' + server_id)), 404)
    assert_error(api.delete(servers_url(intruder, '/' + server_id)), 404)
    assert api.get(servers_url(intruder)).json == {'servers': []}
    # The owner still sees exactly its own deployment.
    listed = api.get(helpers.url(project, 'software_deployments',
                                 f'?server_id={server_id}')).json
    assert len(listed['software_deployments']) == 1


def test_delete_refused_while_deployed(api, project):
    server_id = project + '-vm'
    config = create_config(api, project)
    deployment = create_deployment(api, project, config_id=config['id'],
                                   server_id=server_id)
    assert_error(api.delete(servers_url(project, '/' + server_id)), 409,
                 'ServerInUse')
    api.delete(helpers.url(project, 'software_deployments',
                           '/' + deployment['id']))
    assert api.delete(servers_url(project, '/' + server_id)).status == 204


def test_agent_config_claims_the_server(api, project):
    server_id = project + '-fresh'
    reply = api.get(servers_url(project, f'/{server_id}/agent-config'))
    assert reply.status == 200, reply.text
    settings = reply.json
    url = settings['os-collect-config']['request']['metadata_url']
    assert f'/agent/servers/{server_id}/metadata?token=' in url
    assert f'metadata_url = {url}' in settings['os_collect_config_conf']
    assert api.get(servers_url(project)).json['servers'][0][
        'server_id'] == server_id
    assert_error(api.get(servers_url(project, f'/{server_id}/nothing')),
                 404)


def test_reader_cannot_register(api, project):
    reader = {'X-Roles': 'reader'}
    assert_error(api.post(servers_url(project), json={'server_id': 'x'},
                          headers=reader), 403, 'Forbidden')
    assert_error(api.get(servers_url(project, '/x/agent-config'),
                         headers=reader), 403)
    assert api.get(servers_url(project), headers=reader).json == {
        'servers': []}
