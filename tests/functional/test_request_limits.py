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

"""Request limits: JSON nesting depth and the per-project write rate
(in-process, where the options can be switched per test)."""

import pytest

from swconfig.conf import CONF
from tests.functional.api import helpers


def test_deeply_nested_body_is_refused(inprocess_stack, project):
    api = inprocess_stack
    deep = '{"config": ' + '[' * 40 + ']' * 40 + '}'
    error = helpers.assert_error(
        api.post(helpers.url(project, 'software_configs'), data=deep,
                 headers={'Content-Type': 'application/json'}), 400,
        'RequestLimitExceeded')
    assert 'nested deeper than 32 levels' in error['message']
    absurd = '{"config": ' + '[' * 100000 + ']' * 100000 + '}'
    helpers.assert_error(
        api.post(helpers.url(project, 'software_configs'), data=absurd,
                 headers={'Content-Type': 'application/json'}), 400)
    assert api.get(helpers.url(project, 'software_configs')).json == {
        'software_configs': []}


@pytest.fixture
def limited(inprocess_stack):
    CONF.set_override('max_writes_per_second_per_project', 0.5,
                      group='api')
    CONF.set_override('write_burst_per_project', 3, group='api')
    yield inprocess_stack
    CONF.clear_override('max_writes_per_second_per_project', group='api')
    CONF.clear_override('write_burst_per_project', group='api')


def test_write_rate_is_limited_per_project(limited, project):
    api = limited
    url = helpers.url(project, 'software_configs')
    statuses = [api.post(url, json={'name': f'c{i}'}).status
                for i in range(5)]
    assert statuses == [200, 200, 200, 429, 429]
    refused = api.post(url, json={'name': 'again'})
    error = helpers.assert_error(refused, 429, 'RequestLimitExceeded')
    assert project in error['message']
    assert int(refused.headers['Retry-After']) >= 1
    # Reads are not limited, and other projects have their own bucket.
    assert api.get(url).status == 200
    assert len(api.get(url).json['software_configs']) == 3
    other = helpers.url(project + '-b', 'software_configs')
    assert api.post(other, json={'name': 'x'}).status == 200
