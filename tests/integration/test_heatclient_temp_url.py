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

"""What ``openstack software deployment create`` does with heatclient's
default transport (TEMP_URL_SIGNAL), against swconfig behind a real
Keystone and a real Swift in that Keystone's catalog.

heatclient derives the config itself: it makes a container and an empty
object in the *user's* Swift account, a PUT TempURL to it, and creates
the deployment in Heat's raw form. python-heatclient 5.3.0's OSC command
cannot get that far on its own (its orchestration client has no auth
plugin to make the Swift client with: "'NoneType' object has no
attribute 'get_token'", whatever the auth type), so the test runs the
command's steps with heatclient's own functions on a client that has
one; everything else goes through the real ``openstack`` CLI. The real
os-collect-config + heat-agents run it and heat-config-notify PUTs the
result there. swconfig cannot see that object in the background (only
the user can read it): as in Heat, showing the deployment reads it with
the caller's token and applies what it holds
(doc/source/user/transports.rst).
"""

import argparse
import json
import os
import subprocess
import uuid

import pytest

from tests.fixtures import agents
from tests.fixtures import keystone as keystone_fixture
from tests.fixtures import keystone_stack
from tests.fixtures import processes

CLI_TIMEOUT = 120
USER = 'member_a'
SCRIPT = '#!/bin/sh\necho "hello $name"\n' \
         'printf "%s" "done-$name" > "$heat_outputs_path.result"\n'


@pytest.fixture(scope='module')
def stack(keystone, swift, tmp_path_factory):
    """swconfig-api + swconfig-engine with auth_strategy = keystone, and
    Keystone's catalog naming them and the Keystone-backed Swift proxy."""
    workdir = str(tmp_path_factory.mktemp('heatclient-temp-url'))
    swift_url = swift.start_keystone_proxy(keystone.authtoken_options())
    port = processes.free_port()
    keystone.register_endpoint('object-store',
                               swift_url + '/v1/AUTH_%(project_id)s')
    keystone.register_endpoint(
        'orchestration',
        f'http://{processes.HOST}:{port}/v1/%(project_id)s')
    with keystone_stack.running(keystone, workdir, port) as running:
        yield running.base_url, workdir, {'api': running.api,
                                          'engine': running.engine}


def openstack(keystone, workdir, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    env.update(HOME=workdir, OS_AUTH_URL=keystone.auth_url,
               OS_USERNAME=USER, OS_PASSWORD=keystone.passwords[USER],
               OS_PROJECT_NAME=keystone_fixture.PROJECT_A,
               OS_USER_DOMAIN_ID=keystone_fixture.DOMAIN,
               OS_PROJECT_DOMAIN_ID=keystone_fixture.DOMAIN,
               OS_REGION_NAME=keystone_fixture.REGION,
               OS_IDENTITY_API_VERSION='3', OS_INTERFACE='public')
    result = subprocess.run([processes.script('openstack'), *args],
                            env=env, cwd=workdir, capture_output=True,
                            text=True, timeout=CLI_TIMEOUT)
    assert result.returncode == 0, (args, result.stdout, result.stderr)
    return json.loads(result.stdout) if '-f' in args else result.stdout


def test_cli_temp_url_deployment_completes_when_shown(stack, keystone,
                                                      tmp_path):
    base_url, workdir, procs = stack
    server = f'server-{uuid.uuid4().hex[:12]}'
    source = openstack(
        keystone, workdir, 'software', 'config', 'create', 'hello',
        '--config-file', _write(tmp_path / 'hello.sh', SCRIPT),
        '--definition-file', _write(tmp_path / 'def.yaml',
                                    'inputs:\n  - name: name\n'
                                    'outputs:\n  - name: result\n'),
        '--group', 'script', '-f', 'json')
    created = deployment_create(keystone, base_url, source['id'], server,
                                {'name': 'swift'})
    assert created['status'] == 'IN_PROGRESS', created
    derived = openstack(keystone, workdir, 'software', 'config', 'show',
                        created['config_id'], '-f', 'json')
    inputs = {item['name']: item.get('value')
              for item in derived['inputs']}
    assert inputs['deploy_signal_transport'] == 'TEMP_URL_SIGNAL'
    assert inputs['deploy_signal_id'].startswith(
        swift_proxy(keystone) + '/v1/AUTH_'), inputs

    # Not signalled yet: showing it changes nothing.
    shown = openstack(keystone, workdir, 'software', 'deployment', 'show',
                      created['id'], '-f', 'json')
    assert shown['status'] == 'IN_PROGRESS', shown

    token = keystone.token(USER)
    project_id = keystone.project_id(keystone_fixture.PROJECT_A)
    import requests
    settings = requests.get(
        f'{base_url}/v1/{project_id}/servers/{server}/agent-config',
        headers={'X-Auth-Token': token}, timeout=30)
    assert settings.status_code == 200, settings.text
    metadata_url = settings.json()['os-collect-config']['request'][
        'metadata_url']
    agent = agents.Agent(tmp_path / 'agent')
    run = agent.run_once(metadata_url)
    assert run.returncode == 0, run
    assert agent.deployed_ids() == {created['config_id']}, run
    assert 'Signaling to' in run.output or 'Response' in run.output, run

    shown = openstack(keystone, workdir, 'software', 'deployment', 'show',
                      created['id'], '-f', 'json')
    assert shown['status'] == 'COMPLETE', (shown, procs['api'].log_tail(),
                                           procs['engine'].log_tail())
    output = openstack(keystone, workdir, 'software', 'deployment',
                       'output', 'show', created['id'], 'result')
    assert 'done-swift' in output, output
    # Applied once: showing it again stores nothing more.
    again = openstack(keystone, workdir, 'software', 'deployment', 'show',
                      created['id'], '-f', 'json')
    assert again == shown


def swift_proxy(keystone) -> str:
    client = keystone.admin_client()
    (service,) = client.services.list(type='object-store')
    (endpoint,) = [e for e in client.endpoints.list(service=service)
                   if e.interface == 'public']
    return endpoint.url.split('/v1/')[0]


def deployment_create(keystone, base_url, config_id, server, inputs):
    """``openstack software deployment create greet --config C --server S
    --input-value ...``, step by step as its take_action does them."""
    from heatclient import client as heat_client
    from heatclient.common import deployment_utils

    session = keystone.session(USER)
    client = heat_client.Client(
        '1', session=session, auth=session.auth,
        endpoint=f'{base_url}/v1/{session.get_project_id()}')
    args = argparse.Namespace(
        signal_transport='TEMP_URL_SIGNAL', name='greet', timeout=60,
        os_region_name=keystone_fixture.REGION,
        os_project_name=keystone_fixture.PROJECT_A, os_tenant_name=None,
        os_username=USER, os_cacert=None, insecure=False)
    config = client.software_configs.get(config_id)
    params = deployment_utils.build_derived_config_params(
        'UPDATE', config, 'greet', inputs, server, 'TEMP_URL_SIGNAL',
        signal_id=deployment_utils.build_signal_id(client, args))
    derived = client.software_configs.create(**params)
    return client.software_deployments.create(
        config_id=derived.id, server_id=server, action='UPDATE',
        status='IN_PROGRESS').to_dict()


def _write(path, text: str) -> str:
    path.write_text(text)
    return str(path)
