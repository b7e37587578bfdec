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

"""The tenant metadata view served from the agents' cache (the route's
``cached`` handler, ``software_deployments.server_metadata_from_cache``)
answers exactly what pecan's
controller answers. A request with a query string goes to pecan (the
controller ignores the query), so each view is compared with pecan's own
answer to the same request."""

import json

from tests.functional.api import helpers

ADMIN = {'X-Roles': 'admin,member,reader'}


def _view(project: str, server: str) -> str:
    return helpers.url(project, 'software_deployments',
                       f'/metadata/{server}')


def _both(api, path, headers=None):
    """The answer from memory and pecan's, for the same caller."""
    fast = api.get(path, headers=headers)
    slow = api.get(path + '?from=pecan', headers=headers)
    return fast, slow


def _assert_same(fast, slow, status):
    assert (fast.status, slow.status) == (status, status), (fast.text,
                                                            slow.text)
    assert fast.text == slow.text
    assert fast.headers['Content-Type'] == slow.headers['Content-Type']


def test_owner_admin_and_strangers_get_what_pecan_answers(api, project):
    config = helpers.create_config(api, project, config='echo hi')
    server = f'{project}-srv 1'
    helpers.create_deployment(api, project, config_id=config['id'],
                              server_id=server)
    path = _view(project, server.replace(' ', '%20'))
    fast, slow = _both(api, path)
    _assert_same(fast, slow, 200)
    assert [item['id'] for item in fast.json['metadata']] == [config['id']]
    # Twice: the second answer comes from the cached bytes.
    _assert_same(api.get(path), slow, 200)
    # An admin acting from another project.
    _assert_same(*_both(api, _view(project + '-admin',
                                   server.replace(' ', '%20')), ADMIN), 200)
    # A stranger is refused, a reader may look, no role may not.
    _assert_same(*_both(api, _view(project + '-x',
                                   server.replace(' ', '%20'))), 403)
    fast, _ = _both(api, _view(project + '-x', server.replace(' ', '%20')))
    assert fast.json['error']['type'] == 'ServerOwnedByOtherProject'
    _assert_same(*_both(api, path, {'X-Roles': 'reader'}), 200)
    _assert_same(*_both(api, path, {'X-Roles': 'nobody'}), 403)
    # A server nobody registered lists nothing.
    fast, slow = _both(api, _view(project, f'{project}-unknown'))
    _assert_same(fast, slow, 200)
    assert fast.json == {'metadata': []}


def test_a_stack_user_project_reads_it(api, project):
    config = helpers.create_config(api, project)
    reader = project + '-stackuser'
    server = project + '-s'
    helpers.create_deployment(api, project, config_id=config['id'],
                              server_id=server, stack_user_project_id=reader)
    api.get(_view(project, server))  # the owner's view fills the cache
    fast, slow = _both(api, _view(reader, server))
    _assert_same(fast, slow, 200)
    assert [item['id'] for item in fast.json['metadata']] == [config['id']]


def test_a_change_through_the_api_is_seen_at_once(api, project):
    first = helpers.create_config(api, project, name='a')
    second = helpers.create_config(api, project, name='b')
    server = project + '-s'
    deployment = helpers.create_deployment(api, project,
                                           config_id=first['id'],
                                           server_id=server)
    path = _view(project, server)
    assert [item['id'] for item in api.get(path).json['metadata']] == [
        first['id']]
    helpers.create_deployment(api, project, config_id=second['id'],
                              server_id=server)
    assert [item['id'] for item in api.get(path).json['metadata']] == [
        first['id'], second['id']]
    reply = api.delete(helpers.url(project, 'software_deployments',
                                   '/' + deployment['id']))
    assert reply.status == 204, reply.text
    fast, slow = _both(api, path)
    _assert_same(fast, slow, 200)
    assert [item['id'] for item in json.loads(fast.text)['metadata']] == [
        second['id']]
