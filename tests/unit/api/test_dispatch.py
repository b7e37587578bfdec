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

"""The dispatcher and the route table: one match per request, Heat's
404/405 otherwise."""

import pytest

from swconfig.api import dispatch
from swconfig.api import routes
from swconfig.api.agent import application as agent
from swconfig.api.agent import tenant_view
from swconfig.api.controllers.v1 import servers
from swconfig.api.controllers.v1 import software_deployments as deployments
from swconfig.common import exception
from swconfig.common import urls

TABLE = dispatch.RouteTable(routes.ROUTES)


def _match(method: str, path: str) -> dispatch.Match:
    # PATH_INFO carries the URL's bytes as latin-1 (PEP 3333).
    return TABLE.match(method, path.encode('utf-8').decode('latin-1'))


@pytest.mark.parametrize('method, path, handler, args', [
    ('GET', '/v1/p1/software_deployments/d1', deployments.show,
     {'tenant_id': 'p1', 'deployment_id': 'd1'}),
    ('GET', '/v1/p1/software_deployments/d1/', deployments.show,
     {'tenant_id': 'p1', 'deployment_id': 'd1'}),
    # Heat's order: /metadata/signal is the metadata of a server "signal",
    # /metadata alone a deployment named "metadata".
    ('GET', '/v1/p1/software_deployments/metadata/signal',
     tenant_view.server_metadata, {'tenant_id': 'p1',
                                   'server_id': 'signal'}),
    ('POST', '/v1/p1/software_deployments/metadata/signal',
     deployments.signal, {'tenant_id': 'p1', 'deployment_id': 'metadata'}),
    ('GET', '/v1/p1/software_deployments/metadata', deployments.show,
     {'tenant_id': 'p1', 'deployment_id': 'metadata'}),
    ('GET', '/v1/p1/servers/sé/agent-config', servers.agent_config,
     {'tenant_id': 'p1', 'server_id': 'sé'}),
    ('HEAD', '/v1/p1/servers/s1', servers.show,
     {'tenant_id': 'p1', 'server_id': 's1'}),
    ('HEAD', '/agent/servers/s1/metadata', agent.AgentApp.metadata,
     {'server_id': 's1'}),
    ('POST', '/agent/deployments/d1/signal', agent.AgentApp.signal,
     {'deployment_id': 'd1'}),
])
def test_match(method, path, handler, args):
    match = _match(method, path)
    assert match.handler is handler
    assert match.args == args
    assert match.handler_args == [value for name, value in args.items()
                                  if name != 'tenant_id']


def test_a_url_requested_again_is_not_matched_again(monkeypatch):
    table = dispatch.RouteTable(routes.ROUTES, matches_kept=2)
    matched = []
    match = table._match
    monkeypatch.setattr(table, '_match',
                        lambda *args: matched.append(args) or match(*args))
    view = '/v1/p1/software_deployments/metadata/s1'
    # Its first request only notes the URL; the second keeps its match.
    first = table.match('GET', view)
    kept = table.match('GET', view)
    assert kept == first and len(matched) == 2
    assert table.match('GET', view) is kept and len(matched) == 2
    # Each method of the URL is matched on its own.
    for _ in range(3):
        assert table.match('HEAD', view).handler is first.handler
    assert len(matched) == 4
    # A miss is matched again each time: it raises, nothing is kept.
    for _ in range(3):
        with pytest.raises(exception.MethodNotAllowed):
            table.match('PATCH', '/v1/p1/software_deployments/d1')
    assert len(matched) == 7
    # Past the URLs kept per method (2 here), all are forgotten.
    for path in ('/v1/p1/servers/a', '/v1/p1/servers/b'):
        table.match('GET', path)
        table.match('GET', path)
    assert len(matched) == 11
    table.match('GET', view)
    assert len(matched) == 12


def test_a_sweep_over_many_urls_keeps_no_match():
    """Each URL requested once (a monitor reading every server) leaves
    the kept matches empty: nothing is built to be freed later."""
    table = dispatch.RouteTable(routes.ROUTES, matches_kept=4)
    for n in range(100):
        table.match('GET', f'/v1/p1/software_deployments/metadata/s{n}')
    assert not table._matches['GET']


def test_the_application_of_each_kind_of_url():
    assert _match('GET', '/').route.app == dispatch.PUBLIC
    assert _match('GET', '/v1/openapi.json').route.app == dispatch.PUBLIC
    assert _match('GET', '/v1/p/servers').route.app == dispatch.TENANT
    assert _match('PUT', '/agent/deployments/d/signal').route.app == (
        dispatch.AGENT)
    assert _match('GET', '/v1/p/software_deployments/metadata/s').route.app \
        == dispatch.AGENT_AUTHENTICATED
    assert _match('GET', '/dashboard/x').route.app == dispatch.DASHBOARD


@pytest.mark.parametrize('path', [
    '/v1/p1/stacks', '/v1/p1', '/agent/servers/a/b/metadata',
    '/v1/p1/software_configs/c1/extra', '/nothing', '//',
])
def test_unknown_urls_are_route_not_found(path):
    with pytest.raises(exception.RouteNotFound):
        _match('GET', path)


def test_method_not_allowed_names_every_allowed_method():
    with pytest.raises(exception.MethodNotAllowed) as caught:
        _match('PATCH', '/v1/p1/software_deployments/d1')
    assert caught.value.code == 405
    assert caught.value.headers == [('Allow', 'GET, PUT, DELETE')]
    with pytest.raises(exception.MethodNotAllowed) as caught:
        _match('GET', '/agent/deployments/d1/signal')
    assert caught.value.headers == [('Allow', 'PUT, POST')]


def test_nul_and_undecodable_urls_are_client_errors():
    with pytest.raises(exception.InvalidParameterValue, match='NUL'):
        _match('GET', '/v1/p1/software_configs/a\x00b')
    with pytest.raises(exception.InvalidParameterValue, match='NUL'):
        dispatch.check_url({'PATH_INFO': '/v1/p1/software_configs',
                            'QUERY_STRING': 'marker=a%00b'})
    with pytest.raises(exception.RouteNotFound):
        TABLE.match('GET', '/agent/servers/\xff/metadata')


def test_templates_are_the_urls_module_and_unique():
    declared = [(route.template, route.method) for route in routes.ROUTES]
    assert len(declared) == len(set(declared))
    spelled = {value for name, value in vars(urls).items()
               if name.isupper() and isinstance(value, str)}
    assert {template for template, _ in declared} == spelled - {urls.PROJECT}


class _Recorder:
    def __init__(self, name: str) -> None:
        self.name = name
        self.seen: list[dict] = []

    def __call__(self, environ, start_response):
        self.seen.append(environ)
        start_response('200 OK', [])
        return [self.name.encode()]


class _Agent(_Recorder):
    def __init__(self):
        super().__init__('agent')
        self.project_requests = 0

    def project_request_done(self):
        self.project_requests += 1


def _dispatcher(agent_app, **apps):
    apps.setdefault(dispatch.TENANT, _Recorder('project'))
    return dispatch.Dispatcher(TABLE, agent_app, apps,
                               after_write=agent_app.project_request_done)


def _call(app, method: str, path: str) -> tuple[str, bytes]:
    answer = {}

    def start_response(status, headers):
        answer['status'] = status

    environ = {'REQUEST_METHOD': method, 'PATH_INFO': path,
               'QUERY_STRING': ''}
    content = b''.join(app(environ, start_response))
    return answer['status'], content


def test_misses_outside_the_agent_urls_go_through_authentication(
        inprocess_stack):  # the error body needs the parsed options
    public, project = _Recorder('public'), _Recorder('project')
    agent = _Agent()
    app = _dispatcher(agent, public=public, tenant=project)
    assert _call(app, 'GET', '/v1/openapi.json') == ('200 OK', b'public')
    assert _call(app, 'PUT', '/agent/deployments/d/signal') == (
        '200 OK', b'agent')
    assert agent.project_requests == 0
    assert _call(app, 'GET', '/v1/p/servers') == ('200 OK', b'project')
    assert project.seen[-1][dispatch.MATCH_KEY].error is None
    # A read changes nothing: the next poll need not read the change log.
    assert agent.project_requests == 0
    assert _call(app, 'POST', '/v1/p/servers') == ('200 OK', b'project')
    # A write's: its next poll reads what the request changed.
    assert agent.project_requests == 1
    for method, path, error in (
            ('POST', '/v1/openapi.json', exception.MethodNotAllowed),
            ('GET', '/v1/p/stacks', exception.RouteNotFound)):
        assert _call(app, method, path) == ('200 OK', b'project')
        assert isinstance(project.seen[-1][dispatch.MATCH_KEY].error, error)
    # Everything under /agent/ is the agent app's, as it arrives.
    for path in ('/agent/deployments/d/signal', '/agent/nothing'):
        assert _call(app, 'GET', path) == ('200 OK', b'agent')
        assert dispatch.MATCH_KEY not in agent.seen[-1]


def test_the_dashboard_is_a_subtree_of_the_table():
    public, project = _Recorder('public'), _Recorder('project')
    dashboard = _Recorder('dashboard')
    app = _dispatcher(_Agent(), public=public, tenant=project,
                      dashboard=dashboard)
    for path in ('/dashboard', '/dashboard/', '/dashboard/x/y/z'):
        assert _call(app, 'GET', path) == ('200 OK', b'dashboard')
        assert dashboard.seen[-1][dispatch.MATCH_KEY].route.app == (
            dispatch.DASHBOARD)
    # Only that path: a longer first segment is the API's 404.
    assert _call(app, 'GET', '/dashboards') == ('200 OK', b'project')
    assert isinstance(project.seen[-1][dispatch.MATCH_KEY].error,
                      exception.RouteNotFound)


POLL_PATHS = [
    '/agent/servers/s1/metadata', '/agent/servers/s1/metadata/',
    '/agent/servers//metadata', '/agent/servers/metadata',
    '/agent/servers/a/b/metadata', '/agent/servers/s\x00/metadata',
    '/agent/servers/caf\xc3\xa9/metadata', '/agent/servers/\xff/metadata',
    '/agent/servers/s1/metadatax', '/agent/servers/s1/metadata/signal',
    '/xagent/servers/s1/metadata', '/agent/deployments/d/signal',
    '/v1/p/software_deployments/metadata/s1', '/',
]


@pytest.mark.parametrize('path', POLL_PATHS)
@pytest.mark.parametrize('method', ['GET', 'HEAD', 'PUT', 'POST'])
def test_the_poll_fast_path_agrees_with_the_table(method, path):
    server_id = agent.poll_server_id(method, path)
    if server_id is None:
        return  # left to the table
    match = _match(method, path)
    assert match.handler is agent.AgentApp.metadata
    assert match.args == {'server_id': server_id}


def test_plain_polls_take_the_fast_path(inprocess_stack, monkeypatch):
    agent_app = agent.AgentApp(None, TABLE)
    polls = []

    def poll(server_id, environ, start_response):
        polls.append(server_id)
        start_response('200 OK', [])
        return [b'poll']

    monkeypatch.setattr(agent_app, 'poll', poll)
    app = _dispatcher(agent_app)
    for method in ('GET', 'HEAD'):
        assert _call(app, method, '/agent/servers/s-1/metadata') == (
            '200 OK', b'poll')
    # What the fast path leaves goes through the table to the handler,
    # which does not know the server.
    status, content = _call(app, 'GET', '/agent/servers/s-1/metadata/')
    assert status.startswith('404') and b's-1' in content
    assert polls == ['s-1', 's-1']
    status, _ = _call(app, 'PUT', '/agent/servers/s-1/metadata')
    assert status.startswith('405')
    status, _ = _call(app, 'GET', '/agent/deployments/d/signal')
    assert status.startswith('405')
    status, _ = _call(app, 'GET', '/agent/nothing')
    assert status.startswith('404')


def test_a_segment_spelled_like_a_placeholder_is_a_value():
    match = _match('GET', '/agent/servers/{server_id}/metadata')
    assert match.args == {'server_id': '{server_id}'}
    with pytest.raises(exception.RouteNotFound):
        _match('GET', '/agent/{servers}/s1/metadata')


@pytest.mark.parametrize('environ', [
    {'PATH_INFO': '/v1/pr\xf6ject/software_configs'},       # latin-1 ö
    {'PATH_INFO': '/v1/p/software_configs/\xed\xa0\x80'},   # a surrogate
    {'PATH_INFO': '/v1/p/software_configs', 'QUERY_STRING': 'marker=%FF'},
])
def test_urls_that_are_not_utf8_are_400(environ):
    with pytest.raises(exception.InvalidParameterValue,
                       match='is not valid UTF-8'):
        dispatch.check_url(environ)


@pytest.mark.parametrize('environ', [
    {'PATH_INFO': '/v1/pr\xc3\xb6ject/software_configs'},   # UTF-8 ö
    {'PATH_INFO': '/v1/p/software_configs',
     'QUERY_STRING': 'marker=%C3%B6&limit=1'},
    {'PATH_INFO': '/'},
])
def test_utf8_urls_pass(environ):
    assert dispatch.check_url(environ) is None


@pytest.mark.parametrize('path, meant', [
    ('/software_configs', '/v1/<project>/software_configs'),
    ('/v1/software_configs', '/v1/<project>/software_configs'),
    ('/v1/software_deployments/d1/trigger',
     '/v1/<project>/software_deployments/d1/trigger'),
    ('/demo/servers', '/v1/demo/servers'),
    ('/openapi.json', '/v1/openapi.json'),
])
def test_a_url_without_v1_or_the_project_names_the_url_meant(path, meant):
    with pytest.raises(exception.RouteNotFound) as caught:
        _match('GET', path)
    assert caught.value.code == 404
    assert caught.value.message == (
        f"No URL {path}; did you mean {meant}? The API's URLs start with "
        f"/v1/, a project's with /v1/<project>/.")


@pytest.mark.parametrize('path', ['/v1/p1/stacks', '/nothing', '/v1/p1',
                                  '/v2/p1/software_configs/c1/x'])
def test_any_other_unknown_url_names_the_form_of_the_urls(path):
    with pytest.raises(exception.RouteNotFound) as caught:
        _match('GET', path)
    assert caught.value.message == (
        f"No URL {path}. The API's URLs start with /v1/, a project's with "
        f'/v1/<project>/ (such as /v1/<project>/software_configs); GET '
        f'/v1/openapi.json lists them all.')


def test_an_unknown_agent_url_stays_a_bare_404():
    with pytest.raises(exception.RouteNotFound) as caught:
        _match('GET', '/agent/nothing')
    assert caught.value.message == 'The resource could not be found.'
