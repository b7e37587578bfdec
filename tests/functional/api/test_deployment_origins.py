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

"""What a deployment shows beyond Heat's keys (its name, its source
config, its signal transport, the deployment a trigger ran from) and the
``derived`` filter of the config list, which leaves out the configs the
service derived for deployments."""

from typing import Any

from tests.functional.api import helpers
from tests.functional.api.deployment_helpers import deployments_url
from tests.functional.api.helpers import assert_error

HEAT_KEYS = {'id', 'config_id', 'server_id', 'input_values',
             'output_values', 'action', 'status', 'status_reason',
             'creation_time'}
ORIGIN_KEYS = {'name', 'source_config_id', 'signal_transport',
               'triggered_from'}
# The input substitution: tests/functional/api/test_input_substitution.py.
SWCONFIG_KEYS = ORIGIN_KEYS | {'input_key', 'input_values_validate'}
COMPONENT = {'configs': [
    {'actions': ['CREATE'], 'tool': 'script', 'config': 'create'},
    {'actions': ['BACKUP'], 'tool': 'script', 'config': 'backup'}]}


def _configs(project: str, query: str = '') -> str:
    return helpers.url(project, 'software_configs', query)


def _show(api: Any, project: str, deployment_id: str) -> dict:
    reply = api.get(deployments_url(project, '/' + deployment_id))
    assert reply.status == 200, reply.text
    return reply.json['software_deployment']


def _listed(api: Any, project: str) -> dict[str, dict]:
    reply = api.get(deployments_url(project))
    assert reply.status == 200, reply.text
    return {item['id']: item for item in reply.json['software_deployments']}


def _config_ids(api: Any, project: str, query: str = '') -> set[str]:
    reply = api.get(_configs(project, query))
    assert reply.status == 200, reply.text
    return {item['id'] for item in reply.json['software_configs']}


def _origin(deployment: dict) -> dict:
    return {key: deployment[key] for key in ORIGIN_KEYS}


def test_heats_form_names_its_config_and_has_no_origin(api, project):
    config = helpers.create_config(api, project, name='client-derived')
    created = helpers.create_deployment(api, project, config_id=config['id'],
                                        server_id=project + '-s')
    assert set(created) == HEAT_KEYS | SWCONFIG_KEYS
    assert _origin(created) == {
        'name': 'client-derived', 'source_config_id': None,
        'signal_transport': None, 'triggered_from': None}
    assert (created['input_key'], created['input_values_validate']) == (
        None, None)
    assert _show(api, project, created['id']) == created
    assert _listed(api, project) == {created['id']: created}


def test_server_side_deployment_and_its_trigger(api, project):
    source = helpers.create_config(api, project, name='db',
                                   group='component', config=COMPONENT)
    original = helpers.create_deployment(
        api, project, config_id=source['id'], server_id=project + '-s',
        signal_transport='default', name='db-main')
    assert _origin(original) == {
        'name': 'db-main', 'source_config_id': source['id'],
        'signal_transport': 'HEAT_SIGNAL', 'triggered_from': None}

    reply = api.post(deployments_url(project, f'/{original["id"]}/trigger'),
                     json={'action': 'BACKUP'})
    assert reply.status == 201, reply.text
    trigger = reply.json['software_deployment']
    assert _origin(trigger) == {
        'name': 'db-BACKUP', 'source_config_id': source['id'],
        'signal_transport': 'HEAT_SIGNAL',
        'triggered_from': original['id']}
    assert _show(api, project, trigger['id']) == trigger
    listed = _listed(api, project)
    assert {key: _origin(value) for key, value in listed.items()} == {
        original['id']: _origin(original), trigger['id']: _origin(trigger)}

    # Cancelling answers the same view.
    cancelled = api.post(deployments_url(project, f'/{trigger["id"]}/cancel'))
    assert cancelled.status == 200, cancelled.text
    assert _origin(cancelled.json['software_deployment']) == _origin(
        trigger)


def test_config_list_leaves_out_derived_configs_when_asked(api, project):
    source = helpers.create_config(api, project, name='source')
    raw = helpers.create_config(api, project, name='client-derived')
    helpers.create_deployment(api, project, config_id=raw['id'],
                              server_id=project + '-s')
    deployment = helpers.create_deployment(
        api, project, config_id=source['id'], server_id=project + '-s',
        signal_transport='NO_SIGNAL')
    derived = deployment['config_id']

    # Heat's list: every config.
    assert _config_ids(api, project) == {source['id'], raw['id'], derived}
    assert _config_ids(api, project, '?derived=false') == {source['id'],
                                                          raw['id']}
    assert _config_ids(api, project, '?derived=TRUE') == {derived}
    assert _config_ids(api, project, '?derived=false&limit=1') == {
        raw['id']}  # newest first, paged after filtering


def test_config_list_refuses_a_bad_derived_value(api, project):
    for value in ('', 'no', '1'):
        error = assert_error(api.get(_configs(project, f'?derived={value}')),
                             400)
        assert error['message'] == (
            f'Unrecognized value "{value}" for "derived", acceptable '
            f'values are: true, false.')
