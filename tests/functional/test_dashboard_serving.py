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

"""How the API serves the dashboard (``swconfig.api.dashboard``): deep
links answer the app's page, files carry an ETag and a
Content-Security-Policy, anything else is the standard 404 or 405. What
the pages do is tests/integration/test_dashboard.py's, in a browser."""

import json
import re

import pytest
import webob

from swconfig import dashboard
from swconfig.api import dashboard as serving
from swconfig.conf import CONF


@pytest.mark.parametrize('path', [
    '/dashboard/', '/dashboard/configs', '/dashboard/configs/c1',
    '/dashboard/configs/new', '/dashboard/deployments/d1',
    '/dashboard/deployments/d1/', '/dashboard/servers/s%C3%A9',
    '/dashboard/rollouts/r1', '/dashboard/signin',
])
def test_deep_links_answer_the_page(inprocess_stack, path):
    reply = inprocess_stack.get(path)
    assert reply.status == 200, reply.text
    assert reply.headers['Content-Type'] == 'text/html; charset=utf-8'
    assert '<base href="/dashboard/">' in reply.text
    assert 'static/app.js' in reply.text
    policy = reply.headers['Content-Security-Policy']
    assert "script-src 'self'" in policy
    assert 'unsafe-inline' not in policy and 'unsafe-eval' not in policy
    assert reply.headers['X-Content-Type-Options'] == 'nosniff'


def test_the_bare_url_redirects_with_its_query(inprocess_stack):
    reply = inprocess_stack.get('/dashboard?project=p1')
    assert reply.status == 301
    assert reply.headers['Location'].endswith('/dashboard/?project=p1')


@pytest.mark.parametrize('path, named', [
    ('/dashboard/static/nothing.js', "no file 'nothing.js'"),
    ('/dashboard/static/.hidden.js', "no file '.hidden.js'"),
    ('/dashboard/static/../__init__.py', 'no page'),
    ('/dashboard/nothing', 'no page'),
    ('/dashboard/configs/c1/extra', 'no page'),
    ('/dashboard/configs//', 'no page'),
])
def test_unknown_files_and_pages_are_404(inprocess_stack, path, named):
    reply = inprocess_stack.get(path)
    assert reply.status == 404, reply.text
    body = json.loads(reply.text)
    assert body['code'] == 404
    assert body['error']['type'] == 'HTTPNotFound'
    assert named in body['error']['message']
    assert reply.headers['x-openstack-request-id'].startswith('req-')


def test_only_reads(inprocess_stack):
    reply = inprocess_stack.request('POST', '/dashboard/configs')
    assert reply.status == 405
    assert reply.headers['Allow'] == 'GET, HEAD'
    assert json.loads(reply.text)['error']['type'] == 'HTTPMethodNotAllowed'


def test_files_revalidate_with_their_etag(inprocess_stack):
    reply = inprocess_stack.get('/dashboard/static/app.js')
    assert reply.status == 200
    assert reply.headers['Content-Type'] == 'text/javascript; charset=utf-8'
    assert reply.headers['Cache-Control'] == 'no-cache'
    assert reply.text == (dashboard.STATIC_DIR / 'app.js').read_text()
    etag = reply.headers['ETag']
    again = inprocess_stack.get('/dashboard/static/app.js',
                                headers={'If-None-Match': etag})
    assert again.status == 304
    assert again.text == ''
    other = inprocess_stack.get('/dashboard/static/app.js',
                                headers={'If-None-Match': '"other"'})
    assert other.status == 200
    head = inprocess_stack.request('HEAD', '/dashboard/static/style.css')
    assert head.status == 200 and head.text == ''


def test_settings_name_the_sign_in(inprocess_stack):
    reply = inprocess_stack.get('/dashboard/settings.json')
    assert reply.status == 200
    assert reply.headers['Cache-Control'] == 'no-store'
    assert json.loads(reply.text)['auth_strategy'] == 'noauth'


def test_keystone_sign_in_may_connect_to_keystone(inprocess_stack):
    url = 'https://keystone.example:5000/identity/v3'
    CONF.set_override('dashboard_keystone_url', url, group='api')
    try:
        reply = inprocess_stack.get('/dashboard/settings.json')
    finally:
        CONF.clear_override('dashboard_keystone_url', group='api')
    assert json.loads(reply.text)['keystone_url'] == url
    assert ("connect-src 'self' https://keystone.example:5000;"
            in reply.headers['Content-Security-Policy'])


def test_the_dashboard_can_be_turned_off(inprocess_stack):
    CONF.set_override('dashboard', False, group='api')
    try:
        reply = inprocess_stack.get('/dashboard/')
    finally:
        CONF.clear_override('dashboard', group='api')
    assert reply.status == 404
    assert 'dashboard = false' in json.loads(reply.text)['error']['message']


def test_no_inline_script_or_handler():
    """The CSP forbids inline script: the page must not need any."""
    page = dashboard.INDEX.read_text()
    for tag in re.findall(r'<script\b[^>]*>', page):
        assert 'src=' in tag, tag
    assert not re.search(r'\son[a-z]+=', page)
    assert re.findall(r'<script\b[^>]*>(.*?)</script>', page, re.S) == ['']


def test_a_proxy_prefix_is_followed():
    """Behind a proxy that mounts the API under a path, the page's base
    (which the scripts find the API from) and the redirect keep it."""
    app = serving.DashboardApp()
    page = webob.Request.blank(
        '/dashboard/deployments/d1',
        environ={'SCRIPT_NAME': '/orchestration'}).get_response(app)
    assert page.status_int == 200
    assert '<base href="/orchestration/dashboard/">' in page.text
    bare = webob.Request.blank(
        '/dashboard', environ={'SCRIPT_NAME': '/orchestration'}
    ).get_response(app)
    assert bare.status_int == 301
    assert bare.location.endswith('/orchestration/dashboard/')
    # A prefix never makes the base another origin.
    page = webob.Request.blank(
        '/dashboard/', environ={'SCRIPT_NAME': '//evil.example'}
    ).get_response(app)
    assert '<base href="/evil.example/dashboard/">' in page.text
