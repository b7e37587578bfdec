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

"""The tenant metadata view from the agents' cache (the route's ``cached``
handler, run by ``router.ProjectDispatch``): which requests it answers
itself and which it hands to pecan."""

import io
import json
import uuid

import pytest

from swconfig.api import router
from swconfig.api.agent import metadata_cache
from swconfig.api.controllers.v1 import software_deployments
from swconfig.common import exception
from tests.functional.api import helpers

TABLE = router.RouteTable()


class _Pecan:
    """Stands in for pecan behind the view: records what it was handed."""

    def __init__(self):
        self.handed = []

    def __call__(self, environ, start_response):
        self.handed.append(environ['PATH_INFO'])
        start_response('200 OK', [])
        return [b'pecan']


def _call(app, path, method='GET', query='', roles='reader,member',
          project=None):
    environ = {'REQUEST_METHOD': method, 'PATH_INFO': path,
               'QUERY_STRING': query, 'wsgi.input': io.BytesIO(),
               'HTTP_X_ROLES': roles, 'HTTP_X_USER_ID': 'u',
               'HTTP_X_PROJECT_ID': project or path.split('/')[2]}
    environ[router.MATCH_KEY] = TABLE.match(method, path)
    answer = {}

    def start_response(status, headers):
        answer['status'], answer['headers'] = status, dict(headers)

    content = b''.join(app(environ, start_response))
    return answer['status'], answer['headers'], content


@pytest.fixture
def server(inprocess_stack):
    project = f'p-{uuid.uuid4().hex[:12]}'
    config = helpers.create_config(inprocess_stack, project, config='x')
    server_id = f'{project}-srv'
    helpers.create_deployment(inprocess_stack, project,
                              config_id=config['id'], server_id=server_id)
    return project, server_id, config


def _app():
    pecan = _Pecan()
    cache = metadata_cache.MetadataCache(100, 1.0)
    return router.ProjectDispatch(pecan, cache), pecan


def test_the_route_table_says_so():
    match = TABLE.match('GET', '/v1/p/software_deployments/metadata/s')
    assert match.handler is software_deployments.server_metadata
    assert match.route.cached == {
        'GET': software_deployments.server_metadata_from_cache}
    assert [route.template for route in router.ROUTES if route.cached] == [
        match.route.template]


def test_the_owner_is_answered_from_the_cache(server):
    project, server_id, config = server
    app, pecan = _app()
    path = f'/v1/{project}/software_deployments/metadata/{server_id}'
    status, headers, content = _call(app, path)
    assert status == '200 OK' and pecan.handed == []
    assert [item['id'] for item in json.loads(content)['metadata']] == [
        config['id']]
    assert headers['Content-Length'] == str(len(content))
    entry = app.cache.get(server_id)
    assert metadata_cache.tenant(entry) == project
    assert json.loads(content)['metadata'] == json.loads(
        metadata_cache.content(entry))['deployments']
    assert _call(app, path)[2] == content


def test_others_go_to_pecan(server):
    project, server_id, _config = server
    app, pecan = _app()
    path = f'/v1/{project}/software_deployments/metadata/{server_id}'
    _call(app, path, query='x=1')
    _call(app, path, method='HEAD')
    _call(app, f'/v1/{project}/software_deployments')
    # A stack user project or a stranger: the controller decides.
    stranger = f'/v1/{project}-x/software_deployments/metadata/{server_id}'
    _call(app, stranger)
    assert pecan.handed == [path, path, f'/v1/{project}/software_deployments',
                            stranger]


def test_an_unknown_server_lists_nothing(server):
    project, _server_id, _config = server
    app, pecan = _app()
    _status, _headers, content = _call(
        app, f'/v1/{project}/software_deployments/metadata/unknown')
    assert json.loads(content) == {'metadata': []} and pecan.handed == []


def test_refusals_are_raised_and_never_kept(server):
    project, server_id, _config = server
    app, _pecan = _app()
    path = f'/v1/{project}/software_deployments/metadata/{server_id}'
    for _ in range(2):
        with pytest.raises(exception.PolicyNotAuthorized):
            _call(app, path, roles='nobody')
    with pytest.raises(exception.TenantMismatch):
        _call(app, path, project='another')
    assert _call(app, path)[0] == '200 OK'


def test_an_admin_reads_any_project(server):
    project, server_id, config = server
    app, pecan = _app()
    status, _headers, content = _call(
        app, f'/v1/admins/software_deployments/metadata/{server_id}',
        roles='admin,member,reader')
    assert status == '200 OK' and pecan.handed == []
    assert [item['id'] for item in json.loads(content)['metadata']] == [
        config['id']]
