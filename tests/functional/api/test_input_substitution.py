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

"""Structured-config input substitution through the real API, on every
backend (MariaDB and PostgreSQL behind real API and engine processes, so
the fields cross RPC): the engine writes input values into the config it
derives at creation, for ``/actions``, for updates and for triggers, and
a STRICT deployment missing an input is refused with nothing written."""

from typing import Any

from tests.functional.api import helpers
from tests.functional.api.agent_helpers import config_ids_in
from tests.functional.api.agent_helpers import fetch_document
from tests.functional.api.agent_helpers import metadata_url_of
from tests.functional.api.deployment_helpers import deployments_url
from tests.functional.api.deployment_helpers import get_config
from tests.functional.api.deployment_helpers import inputs_by_name
from tests.functional.api.deployment_helpers import show_deployment
from tests.functional.api.helpers import assert_error

# What cfn-init or os-apply-config would read: no inputs of their own.
STRUCTURED = {
    'listen': {'get_input': 'port'},
    'server': {'get_input': 'deploy_server_id'},
    'action': {'get_input': 'deploy_action'},
    'signal': {'get_input': 'deploy_signal_id'},
    'names': [{'get_input': 'name'}, 'literal'],
    'data': {'get_input': 'port', 'note': 'two keys: data'},
    'other_key': {'my_input': 'port'},
}


def _deploy(api: Any, project: str, server: str, config_id: str,
            **body: Any) -> Any:
    body.setdefault('signal_transport', 'HEAT_SIGNAL')
    return api.post(deployments_url(project), json={
        'server_id': server, 'config_id': config_id, **body})


def _created(reply: Any) -> dict:
    assert reply.status == 200, reply.text
    return reply.json['software_deployment']


def _derived_config(api: Any, project: str, deployment: dict) -> Any:
    return get_config(api, project, deployment['config_id'])['config']


def _expected(derived: dict, port: Any, name: Any, action: str) -> dict:
    inputs = inputs_by_name(derived)
    return {
        'listen': port, 'server': inputs['deploy_server_id']['value'],
        'action': action, 'signal': inputs['deploy_signal_id']['value'],
        'names': [name, 'literal'],
        'data': {'get_input': 'port', 'note': 'two keys: data'},
        'other_key': {'my_input': 'port'},
    }


def _deployment_ids(api: Any, project: str) -> set[str]:
    reply = api.get(deployments_url(project))
    assert reply.status == 200, reply.text
    return {item['id'] for item in reply.json['software_deployments']}


def _all_config_ids(api: Any, project: str) -> set[str]:
    reply = api.get(helpers.url(project, 'software_configs'))
    assert reply.status == 200, reply.text
    return {item['id'] for item in reply.json['software_configs']}


def _servers(api: Any, project: str) -> list:
    reply = api.get(helpers.url(project, 'servers'))
    assert reply.status == 200, reply.text
    return reply.json['servers']


def test_every_derivation_substitutes(api, project):
    server = f'{project}-srv'
    source = helpers.create_config(
        api, project, name='web', group='os-apply-config',
        config=STRUCTURED, inputs=[{'name': 'port', 'type': 'Number'}])
    deployment = _created(_deploy(api, project, server, source['id'],
                                  input_key='get_input',
                                  input_values={'port': 80, 'name': 'a'}))
    assert (deployment['input_key'], deployment['input_values_validate']) \
        == ('get_input', 'LAX')
    assert show_deployment(api, project, deployment['id']) == deployment

    derived = get_config(api, project, deployment['config_id'])
    assert derived['config'] == _expected(derived, 80, 'a', 'CREATE')
    assert inputs_by_name(derived)['deploy_server_id']['value'] == server
    # The agent gets that config; the source config is untouched.
    document, _ = fetch_document(api, metadata_url_of(api, project, server))
    assert config_ids_in(document) == [deployment['config_id']]
    assert document['deployments'][0]['config'] == derived['config']
    assert get_config(api, project, source['id'])['config'] == STRUCTURED

    # /actions derives again with the same rule (a new signal URL).
    reply = api.post(deployments_url(project, f'/{deployment["id"]}/actions'),
                     json={'action': 'UPDATE'})
    assert reply.status == 200, reply.text
    updated = reply.json['software_deployment']
    derived = get_config(api, project, updated['config_id'])
    assert derived['config'] == _expected(derived, 80, 'a', 'UPDATE')
    assert derived['config']['signal'] != document['deployments'][0][
        'config']['signal']

    # So does a PUT that changes the input values (a stack update).
    reply = api.put(deployments_url(project, f'/{deployment["id"]}'),
                    json={'input_values': {'port': 8080}})
    assert reply.status == 200, reply.text
    changed = reply.json['software_deployment']
    assert changed['input_key'] == 'get_input'
    derived = get_config(api, project, changed['config_id'])
    # LAX: "name" is no longer given, so it becomes null.
    assert derived['config'] == _expected(derived, 8080, None, 'UPDATE')

    # A trigger inherits the substitution, with its merged input values.
    reply = api.post(deployments_url(project, f'/{deployment["id"]}/trigger'),
                     json={'action': 'BACKUP',
                           'input_values': {'name': 'backup'}})
    assert reply.status == 201, reply.text
    trigger = reply.json['software_deployment']
    assert (trigger['input_key'], trigger['input_values_validate']) == (
        'get_input', 'LAX')
    derived = get_config(api, project, trigger['config_id'])
    assert derived['config'] == _expected(derived, 8080, 'backup', 'BACKUP')


def test_a_custom_input_key_and_a_string_config(api, project):
    server = f'{project}-srv'
    structured = helpers.create_config(api, project, name='s',
                                       group='Heat::Ungrouped',
                                       config=STRUCTURED)
    deployment = _created(_deploy(api, project, server, structured['id'],
                                  input_key='my_input',
                                  input_values_validate='STRICT',
                                  input_values={'port': 22},
                                  signal_transport='NO_SIGNAL'))
    assert _derived_config(api, project, deployment) == {
        **STRUCTURED, 'other_key': 22}

    script = '#!/bin/sh\necho \'{"get_input": "nothing"}\'\n'
    source = helpers.create_config(api, project, name='sh', config=script)
    deployment = _created(_deploy(api, project, server, source['id'],
                                  input_key='get_input',
                                  input_values_validate='STRICT',
                                  signal_transport='NO_SIGNAL'))
    assert _derived_config(api, project, deployment) == script


def test_strict_refuses_a_missing_input_and_writes_nothing(api, project):
    server = f'{project}-srv'
    source = helpers.create_config(api, project, name='web',
                                   config=STRUCTURED)
    configs_before = _all_config_ids(api, project)
    reply = _deploy(api, project, server, source['id'],
                    input_key='get_input', input_values_validate='STRICT',
                    input_values={'port': 80})
    error = assert_error(reply, 400, 'InputValueMissing')
    assert error['message'].startswith(
        'The config substitutes input name at config.names[0] '
        '({"get_input": "name"})')
    # No deployment, no derived config, and the server was not claimed.
    assert _deployment_ids(api, project) == set()
    assert _all_config_ids(api, project) == configs_before
    assert _servers(api, project) == []

    deployment = _created(_deploy(
        api, project, server, source['id'], input_key='get_input',
        input_values_validate='STRICT',
        input_values={'port': 80, 'name': 'a'}))
    assert deployment['input_values_validate'] == 'STRICT'
    # An update that drops the value is refused and changes nothing.
    reply = api.put(deployments_url(project, f'/{deployment["id"]}'),
                    json={'input_values': {'port': 81}})
    error = assert_error(reply, 400, 'InputValueMissing')
    assert 'input name' in error['message']
    assert show_deployment(api, project, deployment['id']) == deployment
    assert get_config(api, project, deployment['config_id'])['config'][
        'names'] == ['a', 'literal']


def test_strict_triggers_and_new_source_configs(api, project):
    """What a trigger or an update changes (its transport, the source
    config) is checked again, and a refusal makes or changes nothing."""
    server = f'{project}-srv'
    signalled = {'port': {'get_input': 'port'},
                 'signal': {'get_input': 'deploy_signal_id'}}
    source = helpers.create_config(api, project, name='web',
                                   config=signalled)
    deployment = _created(_deploy(
        api, project, server, source['id'], input_key='get_input',
        input_values_validate='STRICT', input_values={'port': 80}))
    derived = get_config(api, project, deployment['config_id'])
    assert derived['config'] == {
        'port': 80,
        'signal': inputs_by_name(derived)['deploy_signal_id']['value']}

    # NO_SIGNAL has no deploy_signal_id: that trigger is refused.
    configs_before = _all_config_ids(api, project)
    reply = api.post(deployments_url(project, f'/{deployment["id"]}/trigger'),
                     json={'action': 'BACKUP',
                           'signal_transport': 'NO_SIGNAL'})
    error = assert_error(reply, 400, 'InputValueMissing')
    assert 'input deploy_signal_id at config.signal' in error['message']
    assert _deployment_ids(api, project) == {deployment['id']}
    assert _all_config_ids(api, project) == configs_before

    # A new source config referring to an input with no value.
    other = helpers.create_config(api, project, name='other',
                                  config={'path': {'get_input': 'path'}})
    reply = api.put(deployments_url(project, f'/{deployment["id"]}'),
                    json={'config_id': other['id']})
    assert 'input path at config.path' in assert_error(
        reply, 400, 'InputValueMissing')['message']
    assert show_deployment(api, project, deployment['id']) == deployment
    reply = api.put(deployments_url(project, f'/{deployment["id"]}'),
                    json={'config_id': other['id'],
                          'input_values': {'path': '/srv'}})
    assert reply.status == 200, reply.text
    changed = reply.json['software_deployment']
    assert changed['input_values_validate'] == 'STRICT'
    assert _derived_config(api, project, changed) == {'path': '/srv'}


def test_bad_substitution_settings_are_refused(api, project):
    server = f'{project}-srv'
    source = helpers.create_config(api, project, config=STRUCTURED)
    cases = [
        ({'input_key': 'get_input', 'signal_transport': None},
         '"input_key" and "input_values_validate" need "signal_transport"'),
        ({'input_values_validate': 'STRICT', 'signal_transport': None},
         '"input_key" and "input_values_validate" need "signal_transport"'),
        ({'input_values_validate': 'LAX'},
         '"input_values_validate" applies only with "input_key"'),
        ({'input_key': 'get_input', 'input_values_validate': 'strict'},
         'Invalid value for input_values_validate'),
        ({'input_key': ''}, 'Invalid value for input_key'),
        ({'input_key': 'k' * 256},
         'Invalid value for input_key: a string of 256 characters. It must '
         'be at most 255 characters long.'),
        ({'input_key': {'get_input': 'x'}}, 'Invalid value for input_key'),
    ]
    for body, words in cases:
        error = assert_error(_deploy(api, project, server, source['id'],
                                     **body), 400)
        assert words in error['message'], (body, error)
    assert _deployment_ids(api, project) == set()
    assert _servers(api, project) == []
