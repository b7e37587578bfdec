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

"""The dashboard's pages are listed once, in ``swconfig.api.dashboard.
PAGES``: the API answers their URLs, and ``app.js`` reads the list from
``settings.json``. What the scripts cannot check for themselves is
checked here: every page's drawing function exists and ``app.js`` can
reach it, and every path is one the script's pattern reads right."""

import json
import re

import pytest
import webob

from swconfig import dashboard
from swconfig.api import dashboard as serving

APP = (dashboard.STATIC_DIR / 'app.js').read_text('utf-8')


def _views_app_js_knows() -> set[str]:
    match = re.search(r'const VIEWS = \{([^}]*)\};', APP)
    assert match, 'app.js has no VIEWS table'
    return {name.strip() for name in match.group(1).split(',')}


@pytest.mark.parametrize('page', [p for p in serving.PAGES if p.view],
                         ids=lambda page: page.path or '(root)')
def test_each_page_is_drawn_by_an_exported_function(page):
    module, name = page.view.split('.')
    script = dashboard.STATIC_DIR / f'{module}.js'
    assert script.is_file(), f'{page.view}: no static/{module}.js'
    assert re.search(rf'^export (?:async )?function {name}\(',
                     script.read_text('utf-8'), re.M), (
        f'static/{module}.js exports no function {name}')
    assert f"import * as {module} from './{module}.js';" in APP
    assert module in _views_app_js_knows(), f'{module} is not in VIEWS'


def test_paths_are_words_or_an_id():
    """app.js turns a path into a pattern by replacing ``*`` alone."""
    for page in serving.PAGES:
        for segment in page.path.split('/') if page.path else ():
            assert re.fullmatch(r'[a-z]+|\*', segment), page


def test_a_named_page_comes_before_the_id_it_would_match():
    paths = [page.path for page in serving.PAGES]
    for index, path in enumerate(paths):
        if path.endswith('/*'):
            stem = path[:-1]
            assert all(paths.index(other) < index for other in paths
                       if other.startswith(stem) and other != path), path


def test_the_navigation_links_to_listed_pages():
    linked = [page for page in serving.PAGES if page.nav]
    assert [page.nav for page in linked] == [
        'Configs', 'Deployments', 'Servers', 'Rollouts']
    for page in linked:
        assert page.view and '/' not in page.path, page


@pytest.mark.parametrize('path, is_page', [
    ('', True), ('signin', True), ('configs/new', True),
    ('deployments/d-1', True), ('servers/*', True),
    ('servers/new', True), ('rollouts/r1/extra', False),
    ('signin/x', False), ('nothing', False), ('configs/', False),
])
def test_the_api_answers_exactly_the_listed_pages(path, is_page):
    segments = path.split('/') if path else []
    assert serving._is_page(segments) is is_page


def test_settings_carry_the_list(set_conf):
    set_conf('dashboard', True, group='api')
    reply = webob.Request.blank('/dashboard/settings.json').get_response(
        serving.DashboardApp())
    assert reply.status_int == 200
    assert json.loads(reply.body)['pages'] == [
        {'path': page.path, 'view': page.view, 'nav': page.nav}
        for page in serving.PAGES]
