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


"""What a user who got something wrong reads: plain sentences, never the
parser's codec or recursion wording or a Python repr, on every backend."""

import json

import pytest

from tests.functional.api.agent_helpers import local_path
from tests.functional.api.agent_helpers import signal_url_of
from tests.functional.api.deployment_helpers import deploy_to
from tests.functional.api.deployment_helpers import deployments_url
from tests.functional.api.deployment_helpers import script_config
from tests.functional.api.deployment_helpers import show_deployment
from tests.functional.api.deployment_helpers import wait_event
from tests.functional.api.helpers import assert_error

JSON = {'Content-Type': 'application/json'}
TOO_DEEP = 'Request limit exceeded: JSON body is nested deeper than 32 levels.'
CREATE_FIELDS = ('config_id, server_id, input_values, action, status, '
                 'status_reason, stack_user_project_id, signal_transport, '
                 'name, timeout, input_key, input_values_validate '
                 '(config_id, server_id required)')


def test_a_body_that_is_not_utf8_is_said_plainly(api, project):
    error = assert_error(api.post(
        deployments_url(project), data=b'{"config_id": "\xff\xfe"}',
        headers=JSON), 400, 'InvalidParameterValue')
    assert error['message'] == (
        'The request body is not valid JSON: JSON text must be UTF-8, and '
        'byte 16 is not part of a UTF-8 character.')


def test_an_id_that_is_not_utf8_is_said_plainly(api, project):
    for method in ('GET', 'DELETE'):
        error = assert_error(api.request(
            method, deployments_url(project, '/%FF%FE')), 400)
        assert error['message'] == 'The URL path is not valid UTF-8.'
    error = assert_error(api.post(deployments_url(project, '/%FF/trigger'),
                                  json={'action': 'BACKUP'}), 400)
    assert error['message'] == 'The URL path is not valid UTF-8.'


@pytest.mark.parametrize('raw', [
    '{"config_id": ' + '[' * 100000 + ']' * 100000 + '}',
    '[' * 100000 + ']' * 100000,
])
def test_json_nested_past_the_limit_is_said_plainly(api, project, raw):
    error = assert_error(api.post(deployments_url(project), data=raw,
                                  headers=JSON), 400, 'RequestLimitExceeded')
    assert error['message'] == TOO_DEEP


def test_a_json_array_body_says_an_object_is_expected(api, project):
    # (a list of deployments is a creation of its own: see
    # test_deployment_lists.py)
    error = assert_error(api.post(
        f'/v1/{project}/software_configs', data=json.dumps([{'name': 'c'}]),
        headers=JSON), 400, 'InvalidParameterValue')
    assert error['message'].startswith(
        'The request body is a JSON array; a JSON object is expected, with '
        'the fields ')
    assert 'group' in error['message']
    error = assert_error(api.post(
        deployments_url(project, '/d1/trigger'), data='"BACKUP"',
        headers=JSON), 400)
    assert error['message'] == (
        'The request body is a JSON string; a JSON object is expected, with '
        'the fields action, input_values, signal_transport, timeout, '
        'allow_concurrent (action required).')


def test_a_progress_reason_that_is_an_object_is_stored_as_json(api,
                                                               project):
    server = f'{project}-srv'
    deployment = deploy_to(api, project, server,
                           script_config(api, project)['id'])
    url = local_path(signal_url_of(api, project, deployment))
    reply = api.put(url, data=json.dumps({
        'deploy_status': 'IN_PROGRESS',
        'deploy_status_reason': {'step': 2, 'of': 5, 'done': True}}))
    assert reply.status == 200, reply.text
    stored = '{"done": true, "of": 5, "step": 2}'
    assert wait_event(api, project, deployment['id'],
                      '{')['reason'] == stored
    assert show_deployment(api, project, deployment['id'])[
        'status_reason'] == stored


@pytest.mark.parametrize('path, meant', [
    ('/software_configs', '/v1/<project>/software_configs'),
    ('/v1/software_deployments', '/v1/<project>/software_deployments'),
    ('/{project}/servers', '/v1/{project}/servers'),
])
def test_a_url_without_v1_and_the_project_names_the_form(api, project,
                                                        path, meant):
    path, meant = path.format(project=project), meant.format(project=project)
    error = assert_error(api.get(path), 404, 'HTTPNotFound')
    assert error['message'] == (
        f"No URL {path}; did you mean {meant}? The API's URLs start with "
        f"/v1/, a project's with /v1/<project>/.")
    error = assert_error(api.get(f'/v1/{project}/stacks'), 404)
    assert error['message'].startswith(f'No URL /v1/{project}/stacks. ')
    assert '/v1/<project>/' in error['message']
