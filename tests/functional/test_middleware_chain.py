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

"""What every non-agent request passes first: the request id (on errors
too), CORS, proxy headers and the health check, in the in-process app."""

import pytest
import webtest

from swconfig.conf import CONF
from tests.fixtures import api_client


@pytest.fixture
def build_app(inprocess_stack):
    """An app built after the test's option overrides (the middleware read
    them when they are made); the overrides are undone afterwards."""
    overridden = []

    def build(options):
        for (group, name), value in options.items():
            overridden.append((group, name, CONF[group][name]))
            CONF.set_override(name, value, group=group)
        from swconfig.api import app
        return api_client.WebTestClient(webtest.TestApp(app.setup_app()))

    yield build
    for group, name, before in reversed(overridden):
        CONF.set_override(name, before, group=group)


def test_answers_carry_the_request_id(inprocess_stack, project):
    """2xx and 4xx here; a 5xx (the database down) in
    tests/integration/test_healthcheck.py."""
    ok = inprocess_stack.get(f'/v1/{project}/software_configs')
    assert ok.status == 200
    assert ok.headers['x-openstack-request-id'].startswith('req-')
    for reply in (inprocess_stack.get('/nowhere'),
                  inprocess_stack.get(f'/v1/{project}/software_configs/x'),
                  inprocess_stack.request('PATCH', '/v1')):
        assert reply.status in (404, 405), reply.text
        assert reply.headers['x-openstack-request-id'].startswith('req-')


def test_healthcheck_answers_without_a_token(inprocess_stack):
    reply = inprocess_stack.get('/healthcheck',
                                headers={'Accept': 'application/json'})
    assert reply.status == 200, reply.text
    assert sorted(reply.json['reasons']) == ['database OK',
                                             'message bus OK',
                                             'transports OK']
    assert reply.headers['x-openstack-request-id'].startswith('req-')
    assert inprocess_stack.request('POST', '/healthcheck').status == 405


def test_cors_preflight_and_answers(build_app, project):
    origin = 'https://dashboard.example'
    api = build_app({('cors', 'allowed_origin'): [origin]})
    path = f'/v1/{project}/software_configs'
    preflight = api.request('OPTIONS', path, headers={
        'Origin': origin, 'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'X-Auth-Token, Content-Type'})
    assert preflight.status == 200, preflight.text
    assert preflight.headers['Access-Control-Allow-Origin'] == origin
    assert 'POST' in preflight.headers['Access-Control-Allow-Methods']
    answer = api.get(path, headers={'Origin': origin})
    assert answer.status == 200
    assert answer.headers['Access-Control-Allow-Origin'] == origin
    assert 'Retry-After' in answer.headers['Access-Control-Expose-Headers']
    other = api.get(path, headers={'Origin': 'https://elsewhere.example'})
    assert 'Access-Control-Allow-Origin' not in other.headers
    refused = api.request('OPTIONS', path, headers={
        'Origin': 'https://elsewhere.example',
        'Access-Control-Request-Method': 'POST'})
    assert 'Access-Control-Allow-Origin' not in refused.headers


@pytest.mark.parametrize('parsing', [True, False])
def test_proxy_headers_only_when_enabled(build_app, parsing):
    api = build_app({('oslo_middleware', 'enable_proxy_headers_parsing'):
                     parsing, ('api', 'public_url'): None})
    reply = api.get('/v1', headers={'X-Forwarded-Proto': 'https',
                                    'X-Forwarded-Host': 'api.example'})
    href = reply.json['version']['links'][0]['href']
    assert href == ('https://api.example/v1/' if parsing
                    else 'http://localhost/v1/')
