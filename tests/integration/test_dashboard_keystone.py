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

"""Signing in to the dashboard under Keystone, in a real browser
(``tests.fixtures.browser``): with an application credential, which the
browser exchanges for a token at Keystone (``[api]
dashboard_keystone_url``), and with a pasted token. The pages then call
the API with that token, so Keystone's roles decide as they do for the
CLI: a reader's config is refused with the API's 403, shown on the page.
"""

import pathlib
import uuid

from keystoneclient.v3 import client as ks_client
import pytest

from tests.fixtures import keystone as keystone_fixture
from tests.fixtures import keystone_stack
from tests.fixtures.browser import Dash
from tests.fixtures.browser import artefacts_dir
from tests.fixtures.browser import browser  # noqa: F401

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope='module')
def stack(keystone, tmp_path_factory):
    workdir = str(tmp_path_factory.mktemp('dashboard-keystone'))
    with keystone_stack.running(keystone, workdir, options={
            'api': {'dashboard_keystone_url': keystone.auth_url}}) as running:
        yield running


def test_sign_in_with_keystone(browser, keystone, stack):  # noqa: F811
    dash = Dash(browser, stack.base_url, artefacts_dir(ROOT, 'dashboard'))
    project_a = keystone.project_id(keystone_fixture.PROJECT_A)
    identity = ks_client.Client(session=keystone.session('member_a'))
    credential = identity.application_credentials.create(
        name=f'dashboard-{uuid.uuid4().hex[:8]}',
        user=identity.session.get_user_id())

    dash.open('')
    dash.heading('Sign in')
    dash.shot('20-keystone-sign-in')
    # A token Keystone does not know: the API's 401, and a way back.
    dash.fill('#token', 'not-a-token')
    dash.fill('#token-project', project_a)
    dash.click('#signin-token button')
    assert 'sign in again' in dash.wait_text('[role=alert]',
                                             '401 Unauthorized')
    dash.link('sign in again')
    dash.heading('Sign in')
    dash.fill('#credential-id', credential.id)
    dash.fill('#credential-secret', credential.secret)
    dash.click('#signin-credential button')
    dash.heading('Configs')
    assert dash.text('#project') == project_a

    # A reader's token: the API refuses the write, as for the CLI.
    dash.click('#who button')
    dash.heading('Sign in')
    dash.fill('#token', keystone.token('reader_a'))
    dash.fill('#token-project', project_a)
    dash.click('#signin-token button')
    dash.heading('Configs')
    dash.open('configs/new')
    dash.heading('Create a config')
    dash.fill('#config-name', 'refused')
    dash.set_value('#config-source', 'echo hi')
    dash.click('#config-form button[type=submit]')
    error = dash.wait_text('#form-errors', '403 Forbidden')
    assert 'Forbidden' in error
    dash.shot('21-keystone-reader-refused')
    assert browser.script_errors() == []

    browser.read_log()
    sent = [url for _method, url in browser.requests()]
    assert any(url == keystone.auth_url + '/auth/tokens' for url in sent)
    assert all(url.startswith((stack.base_url + '/v1/',
                               stack.base_url + '/dashboard/',
                               keystone.auth_url + '/auth/tokens'))
               for url in sent), sent
