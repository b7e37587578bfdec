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

"""``implicit_server_registration = False``: only registered servers
accept deployments (in-process, where the option can be switched)."""

import pytest

from swconfig.conf import CONF
from tests.functional.api import helpers


@pytest.fixture
def explicit_only(inprocess_stack):
    CONF.set_override('implicit_server_registration', False)
    yield inprocess_stack
    CONF.clear_override('implicit_server_registration')


def test_unregistered_server_is_refused(explicit_only, project):
    api = explicit_only
    config = helpers.create_config(api, project)
    body = {'config_id': config['id'], 'server_id': project + '-vm'}
    error = helpers.assert_error(api.post(
        helpers.url(project, 'software_deployments'), json=body), 400,
        'ServerNotRegistered')
    assert 'POST /v1/{tenant_id}/servers' in error['message']
    assert helpers.assert_error(api.get(helpers.url(
        project, 'servers', f'/{project}-vm/agent-config')), 400)
    assert api.get(helpers.url(project, 'software_deployments')).json == {
        'software_deployments': []}

    assert api.post(helpers.url(project, 'servers'),
                    json={'server_id': project + '-vm'}).status == 200
    helpers.create_deployment(api, project, **body)
