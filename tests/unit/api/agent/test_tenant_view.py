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

"""The tenant metadata view (``swconfig.api.agent.tenant_view``): served
by the agent app from the agents' cache to the server's owner or an
admin, from the database to anybody else, after the one access check."""

import io
import json
import uuid

import pytest

from swconfig.api import dispatch
from swconfig.api import routes
from swconfig.api.agent import metadata_cache
from swconfig.api.agent import tenant_view
from swconfig.common import exception
from tests.functional.api import helpers

TABLE = dispatch.RouteTable(routes.ROUTES)


def _call(app, path, method='GET', query='', roles='reader,member',
          project=None):
    environ = {'REQUEST_METHOD': method, 'PATH_INFO': path,
               'QUERY_STRING': query, 'wsgi.input': io.BytesIO(),
               'HTTP_X_ROLES': roles, 'HTTP_X_USER_ID': 'u',
               'HTTP_X_PROJECT_ID': project or path.split('/')[2]}
    environ[dispatch.MATCH_KEY] = TABLE.match(method, path)
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
    return tenant_view.TenantViewApp(metadata_cache.MetadataCache(100, 1.0))


def _load_counted(app, monkeypatch):
    """Count the view's reads of the database (cache misses and the
    callers the cache cannot answer)."""
    reads = []
    load = app.cache.load
    monkeypatch.setattr(app.cache, 'load',
                        lambda server_id: reads.append(server_id) or load(
                            server_id))
    real = tenant_view.db_api.server_document_get
    monkeypatch.setattr(tenant_view.db_api, 'server_document_get',
                        lambda context, server_id: reads.append(
                            server_id) or real(context, server_id))
    return reads


def test_the_route_table_says_so():
    match = TABLE.match('GET', '/v1/p/software_deployments/metadata/s')
    assert match.handler is tenant_view.server_metadata
    assert match.route.app == dispatch.AGENT_AUTHENTICATED
    assert match.route.rule == tenant_view.RULE
    assert [route.template for route in routes.ROUTES
            if route.app == dispatch.AGENT_AUTHENTICATED] == [
        match.route.template]


def test_the_owner_is_answered_from_the_cache(server):
    project, server_id, config = server
    app = _app()
    path = f'/v1/{project}/software_deployments/metadata/{server_id}'
    status, headers, content = _call(app, path)
    assert status == '200 OK'
    assert [item['id'] for item in json.loads(content)['metadata']] == [
        config['id']]
    assert headers['Content-Length'] == str(len(content))
    entry = app.cache.get(server_id)
    assert metadata_cache.tenant(entry) == project
    assert json.loads(content)['metadata'] == json.loads(
        metadata_cache.content(entry))['deployments']
    assert _call(app, path)[2] == content


def test_others_are_answered_from_the_database(server, monkeypatch):
    project, server_id, _config = server
    app = _app()
    path = f'/v1/{project}/software_deployments/metadata/{server_id}'
    owners = _call(app, path)
    reads = _load_counted(app, monkeypatch)
    # A query string is ignored, as Heat does; a HEAD has no body.
    assert _call(app, path, query='x=1') == owners
    status, headers, content = _call(app, path, method='HEAD')
    assert (status, headers, content) == (owners[0], owners[1], b'')
    assert reads == []
    # A stack user project or a stranger: the database decides.
    stranger = f'/v1/{project}-x/software_deployments/metadata/{server_id}'
    with pytest.raises(exception.ServerOwnedByOtherProject):
        _call(app, stranger, project=f'{project}-x')
    assert reads == [server_id]


def test_an_unknown_server_lists_nothing(server):
    project, _server_id, _config = server
    app = _app()
    _status, _headers, content = _call(
        app, f'/v1/{project}/software_deployments/metadata/unknown')
    assert json.loads(content) == {'metadata': []}


def test_refusals_are_raised_and_never_kept(server):
    project, server_id, _config = server
    app = _app()
    path = f'/v1/{project}/software_deployments/metadata/{server_id}'
    for _ in range(2):
        with pytest.raises(exception.PolicyNotAuthorized):
            _call(app, path, roles='nobody')
    with pytest.raises(exception.TenantMismatch):
        _call(app, path, project='another')
    assert _call(app, path)[0] == '200 OK'


def test_an_admin_reads_any_project(server, monkeypatch):
    project, server_id, config = server
    app = _app()
    reads = _load_counted(app, monkeypatch)
    status, _headers, content = _call(
        app, f'/v1/admins/software_deployments/metadata/{server_id}',
        roles='admin,member,reader')
    assert status == '200 OK' and reads == [server_id]  # the cache's miss
    assert [item['id'] for item in json.loads(content)['metadata']] == [
        config['id']]
