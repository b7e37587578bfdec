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

"""The Heat fixture (``tests.fixtures.heat_service``) is a working cloud:
the real ``openstack`` CLI creates and deletes stacks through heat-api and
heat-engine as a project member, heat-engine loads the resource plug-ins
of heat.conf ``plugin_dirs`` (swconfig's directory, as
``swconfig-manage heat-plugin-path`` prints it, and the fixture's
test-only one), Heat's stack-user domain works (a wait condition handle's
user signals the stack to completion), and swconfig answers a user at
the catalog's ``software-config`` endpoint.
"""

import configparser
import json
import subprocess
import sys
import uuid

import pytest
import requests

from tests.fixtures import heat_service
from tests.fixtures import processes
from tests.fixtures import waiting

pytestmark = pytest.mark.integration

PROBE_TYPE = 'SwconfigTest::Fixture::Probe'

VALUE_TEMPLATE = '''
heat_template_version: 2021-04-16
parameters:
  greeting:
    type: string
    default: hello
resources:
  value:
    type: OS::Heat::Value
    properties:
      type: string
      value: {list_join: [' ', [{get_param: greeting}, from heat]]}
outputs:
  said:
    value: {get_attr: [value, value]}
'''


def _name(prefix: str) -> str:
    return f'{prefix}-{uuid.uuid4().hex[:8]}'


def test_openstack_cli_creates_and_deletes_a_stack(heat_cloud, tmp_path):
    template = tmp_path / 'value.yaml'
    template.write_text(VALUE_TEMPLATE)
    name = _name('cli')

    created = heat_cloud.openstack(
        'stack', 'create', '--wait', '--poll', '1', '-t', str(template),
        '--parameter', 'greeting=bonjour', name, '-f', 'json')
    assert created['stack_status'] == 'CREATE_COMPLETE', created
    output = heat_cloud.openstack('stack', 'output', 'show', name, 'said',
                                  '-f', 'json')
    assert output['output_value'] == 'bonjour from heat'
    listed = heat_cloud.openstack('stack', 'list', '-f', 'json')
    assert name in [stack['Stack Name'] for stack in listed]
    # Another project does not see it.
    other = heat_cloud.openstack('stack', 'list', '-f', 'json',
                                 user='member_b')
    assert name not in [stack['Stack Name'] for stack in other]

    heat_cloud.openstack('stack', 'delete', '--yes', '--wait', name)
    shown = heat_cloud.openstack('stack', 'show', name, check=False)
    assert shown.returncode != 0
    assert 'not found' in (shown.stdout + shown.stderr).lower()


def test_stack_abandon_and_adopt_are_enabled(heat_cloud, tmp_path):
    name = _name('abandon')
    stack = heat_cloud.create_stack(name, VALUE_TEMPLATE,
                                    parameters={'greeting': 'hi'})
    assert stack.stack_status == 'CREATE_COMPLETE', (
        stack.stack_status_reason, heat_cloud.describe_events(name))

    abandoned = heat_cloud.openstack('stack', 'abandon', name, '-f', 'json')
    assert set(abandoned['resources']) == {'value'}
    gone = heat_cloud.openstack('stack', 'show', name, check=False)
    assert gone.returncode != 0

    adopt_file = tmp_path / 'abandoned.json'
    adopt_file.write_text(json.dumps(abandoned))
    adopted = heat_cloud.openstack(
        'stack', 'adopt', '--adopt-file', str(adopt_file), '--wait', name,
        '-f', 'json')
    assert adopted['stack_status'] == 'ADOPT_COMPLETE', adopted
    outputs = {o['output_key']: o['output_value']
               for o in heat_cloud.heat_client().stacks.get(name).outputs}
    assert outputs == {'said': 'hi from heat'}
    assert heat_cloud.delete_stack(name) is None


def test_resource_types_include_the_plugin_dirs_types(heat_cloud):
    listed = heat_cloud.openstack('orchestration', 'resource', 'type',
                                  'list', '-f', 'json')
    types = {row['Resource Type'] for row in listed}
    assert 'OS::Heat::Value' in types
    assert PROBE_TYPE in types
    # Whatever swconfig's plug-in directory maps, Heat lists.
    assert _swconfig_plugin_types() <= types


def _swconfig_plugin_types() -> set[str]:
    """The types the modules of swconfig's plug-in directory map, read in
    a Python of their own (Heat's global options share names with
    swconfig's, so the two are never imported into one process)."""
    listed = subprocess.run(
        [sys.executable, '-c', _LIST_TYPES, _plugin_path()],
        capture_output=True, text=True, timeout=120, check=False)
    assert listed.returncode == 0, listed.stderr[-3000:]
    return set(json.loads(listed.stdout.splitlines()[-1]))


_LIST_TYPES = """
import importlib, json, pkgutil, sys
found = set()
for module in pkgutil.iter_modules([sys.argv[1]]):
    loaded = importlib.import_module('swconfig.heat.resources.' + module.name)
    mapping = getattr(loaded, 'resource_mapping', None)
    if mapping:
        found.update(mapping())
print(json.dumps(sorted(found)))
"""


def _plugin_path() -> str:
    return subprocess.run(
        [processes.script('swconfig-manage'), 'heat-plugin-path'],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout.strip()


def test_heat_loads_the_modules_of_its_plugin_dirs(heat_cloud):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(heat_cloud.config_file)
    plugin_dirs = parser.get('DEFAULT', 'plugin_dirs').split(',')
    assert plugin_dirs == [_plugin_path(), heat_service.TEST_PLUGIN_DIR]

    # The probe lives only in the second directory: heat-engine imported
    # it from there (Heat's loader walks every directory of the list).
    stack = heat_cloud.create_stack(_name('probe'), {
        'heat_template_version': '2021-04-16',
        'resources': {'probe': {'type': PROBE_TYPE}},
        'outputs': {'from': {'value': {'get_attr': ['probe',
                                                    'loaded_from']}}},
    })
    assert stack.stack_status == 'CREATE_COMPLETE', (
        stack.stack_status_reason, heat_cloud.log_tails())
    outputs = {o['output_key']: o['output_value'] for o in stack.outputs}
    assert outputs == {'from': heat_service.TEST_PLUGIN_DIR}
    assert heat_cloud.delete_stack(stack.stack_name) is None


def test_stack_user_signals_a_wait_condition(heat_cloud):
    """Heat creates a user in its stack-user domain (the domain admin's
    work) whose token may signal the handle through heat-api."""
    name = _name('wait')
    heat_cloud.create_stack(name, '''
heat_template_version: 2021-04-16
resources:
  handle:
    type: OS::Heat::WaitConditionHandle
  wait:
    type: OS::Heat::WaitCondition
    properties:
      handle: {get_resource: handle}
      timeout: 300
outputs:
  data:
    value: {get_attr: [wait, data]}
''', wait=False)
    client = heat_cloud.heat_client()

    def handle_ready():
        handle = client.resources.get(name, 'handle')
        return handle.resource_status == 'CREATE_COMPLETE' and handle
    handle = _wait(handle_ready, name, heat_cloud)
    attributes = client.resources.get(name, 'handle',
                                      with_attr=['token', 'endpoint'])
    token = attributes.attributes['token']
    endpoint = attributes.attributes['endpoint']
    assert token and endpoint.startswith(heat_cloud.heat_url), endpoint

    reply = requests.post(endpoint, timeout=30, json={
        'status': 'SUCCESS', 'reason': 'signalled', 'data': 'done',
        'id': '1'}, headers={'X-Auth-Token': token})
    assert reply.status_code == 200, reply.text

    stack = heat_cloud.wait_for_stack(name)
    assert stack.stack_status == 'CREATE_COMPLETE', (
        stack.stack_status_reason, heat_cloud.describe_events(name))
    outputs = {o['output_key']: o['output_value'] for o in stack.outputs}
    assert outputs == {'data': '{"1": "done"}'}
    assert handle.physical_resource_id
    events = heat_cloud.stack_events(name)
    assert ('wait', 'CREATE_COMPLETE') in {
        (event.resource_name, event.resource_status) for event in events}
    assert heat_cloud.delete_stack(name) is None


def _wait(condition, name: str, heat_cloud):
    try:
        return waiting.wait_for(condition, heat_service.STACK_TIMEOUT,
                                f'stack {name}')
    except AssertionError as exc:
        raise AssertionError(f'{exc}\n{heat_cloud.describe_events(name)}\n'
                             f'{heat_cloud.log_tails()}') from None


def test_swconfig_answers_at_its_catalog_endpoint(heat_cloud):
    member_a = heat_cloud.swconfig_session('member_a')
    created = member_a.post('/software_configs', json={
        'name': _name('cfg'), 'group': 'script', 'config': 'echo hi'})
    assert created.status_code == 200, created.text
    config_id = created.json()['software_config']['id']
    assert created.url.startswith(heat_cloud.swconfig_endpoint('member_a'))

    shown = member_a.get(f'/software_configs/{config_id}')
    assert shown.status_code == 200, shown.text
    # Project B's catalog endpoint is its own project's: not found there.
    member_b = heat_cloud.swconfig_session('member_b')
    assert member_b.get(
        f'/software_configs/{config_id}').status_code == 404
