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

"""The real ``openstack`` CLI (python-heatclient's OSC plugin) against a real
``swconfig-all``.

Each command runs as a subprocess, authenticated with
``OS_AUTH_TYPE=admin_token OS_ENDPOINT=... OS_TOKEN=T`` (or
``--os-auth-type none``), and is judged by its exit code and its parsed
output. OSC takes 1-2 s to start, so fixtures that the command under test
does not exercise are made through the REST API directly.
"""

import json
import os
import subprocess
import uuid

import pytest

from tests.fixtures import processes

CLI_TIMEOUT = 90

SCRIPT = '#!/bin/sh\necho "hello $foo" > $heat_outputs_path.result\n'
DEFINITION = """\
inputs:
  - name: foo
    default: bar
    description: what to greet
  - name: count
    type: Number
    default: 2
outputs:
  - name: result
options:
  enable_hiera: true
"""


class Cli:
    """Runs ``openstack`` for one project of the embedded service."""

    def __init__(self, endpoint: str, workdir: str) -> None:
        self.endpoint = endpoint
        self.workdir = workdir
        self.executable = processes.script('openstack')

    def _env(self) -> dict:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith('OS_')}
        env['HOME'] = self.workdir  # no clouds.yaml or cache from the host
        return env

    def run(self, *args: str, auth: str = 'admin_token',
            expect_rc: int | None = 0) -> subprocess.CompletedProcess:
        env = self._env()
        command = [self.executable]
        if auth == 'admin_token':
            env.update(OS_AUTH_TYPE='admin_token', OS_ENDPOINT=self.endpoint,
                       OS_TOKEN='T')
        else:
            command += ['--os-auth-type', 'none',
                        '--os-endpoint', self.endpoint]
        command += list(args)
        result = subprocess.run(command, env=env, cwd=self.workdir,
                                capture_output=True, text=True,
                                timeout=CLI_TIMEOUT)
        if expect_rc is not None:
            assert result.returncode == expect_rc, (
                f'{command[1:]} exited {result.returncode}, expected '
                f'{expect_rc}\nstdout: {result.stdout}\n'
                f'stderr: {result.stderr}')
        return result

    def json(self, *args: str, auth: str = 'admin_token'):
        result = self.run(*args, '-f', 'json', auth=auth)
        return json.loads(result.stdout)


@pytest.fixture
def cli(embedded_service, project, tmp_path):
    return Cli(embedded_service.endpoint(project), str(tmp_path))


@pytest.fixture
def api(embedded_service, project):
    """REST helper for fixtures and for checking what the CLI did."""
    http = embedded_service.http
    prefix = f'/v1/{project}'

    class Api:
        def get(self, path):
            return http.get(prefix + path)

        def post(self, path, body):
            reply = http.post(prefix + path, json=body)
            assert reply.status == 200, reply.text
            return reply.json

        def put(self, path, body):
            reply = http.put(prefix + path, json=body)
            assert reply.status == 200, reply.text
            return reply.json

    return Api()


def source_config(api) -> dict:
    return api.post('/software_configs', {
        'name': 'source', 'group': 'script', 'config': SCRIPT,
        'inputs': [{'name': 'foo', 'default': 'bar'}],
        'outputs': [{'name': 'result'}],
        'options': {'enable_hiera': True},
    })['software_config']


def derived_deployment(api, server_id: str) -> dict:
    """What ``software deployment create --signal-transport NO_SIGNAL``
    leaves behind: a derived config and a deployment pointing at it."""
    derived = api.post('/software_configs', {
        'name': 'derived', 'group': 'script', 'config': SCRIPT,
        'inputs': [{'name': 'deploy_server_id', 'value': server_id}],
    })['software_config']
    return api.post('/software_deployments', {
        'config_id': derived['id'], 'server_id': server_id,
        'action': 'UPDATE', 'status': 'IN_PROGRESS',
    })['software_deployment']


# -- software config --------------------------------------------------------

def test_config_create_list_show(cli, api, tmp_path):
    (tmp_path / 'f.sh').write_text(SCRIPT)
    (tmp_path / 'd.yaml').write_text(DEFINITION)

    created = cli.json('software', 'config', 'create', 'greeter',
                       '--config-file', 'f.sh', '--definition-file',
                       'd.yaml', '--group', 'script')
    uuid.UUID(created['id'])
    assert created['name'] == 'greeter'
    assert created['group'] == 'script'
    assert created['config'] == SCRIPT
    assert created['inputs'] == [
        {'name': 'foo', 'type': 'String', 'default': 'bar',
         'description': 'what to greet'},
        {'name': 'count', 'type': 'Number', 'default': 2},
    ]
    assert created['outputs'] == [
        {'name': 'result', 'type': 'String', 'error_output': False}]
    assert created['options'] == {'enable_hiera': True}
    stored = api.get(f'/software_configs/{created["id"]}')
    assert stored.status == 200
    assert stored.json['software_config'] == created

    other = source_config(api)
    listed = cli.json('software', 'config', 'list', auth='none')
    assert sorted(listed, key=lambda c: c['id']) == sorted([
        {'id': created['id'], 'name': 'greeter', 'group': 'script',
         'creation_time': created['creation_time']},
        {'id': other['id'], 'name': 'source', 'group': 'script',
         'creation_time': other['creation_time']},
    ], key=lambda c: c['id'])

    shown = cli.json('software', 'config', 'show', created['id'])
    assert shown == created


def test_config_create_invalid_definition_fails(cli, api, tmp_path):
    (tmp_path / 'f.sh').write_text(SCRIPT)
    (tmp_path / 'bad.yaml').write_text(
        'outputs:\n  - name: result\n    default: not-for-outputs\n')
    result = cli.run('software', 'config', 'create', 'broken',
                     '--config-file', 'f.sh', '--definition-file',
                     'bad.yaml', '--group', 'script', expect_rc=1)
    assert 'default' in result.stderr
    # /validate refused the template, so nothing was created.
    assert api.get('/software_configs').json == {'software_configs': []}


def test_config_delete(cli, api):
    config = source_config(api)
    cli.run('software', 'config', 'delete', config['id'])
    assert api.get(f'/software_configs/{config["id"]}').status == 404


def test_config_not_found(cli):
    missing = str(uuid.uuid4())
    result = cli.run('software', 'config', 'show', missing, expect_rc=1)
    assert f'Configuration not found: {missing}' in result.stderr

    result = cli.run('software', 'config', 'delete', missing, expect_rc=1)
    assert f'Software config with ID {missing} not found' in result.stdout
    assert 'Unable to delete 1 of the 1 software configs.' in result.stderr


# -- software deployment ----------------------------------------------------

def test_deployment_workflow(cli, api):
    source = source_config(api)
    elsewhere = derived_deployment(api, 'server-elsewhere')

    created = cli.json('software', 'deployment', 'create', 'backup-run',
                       '--server', 'server-1', '--config', source['id'],
                       '--signal-transport', 'NO_SIGNAL',
                       '--input-value', 'foo=world',
                       '--input-value', 'extra=1', '--action', 'BACKUP')
    uuid.UUID(created['id'])
    assert created['server_id'] == 'server-1'
    assert created['action'] == 'BACKUP'
    assert created['status'] == 'IN_PROGRESS'
    assert created['config_id'] != source['id']

    # The client derived a config from the source, with the values inlined.
    derived = api.get(f'/software_configs/{created["config_id"]}')
    assert derived.status == 200
    derived = derived.json['software_config']
    assert derived['name'] == 'backup-run'
    assert derived['group'] == 'script'
    assert derived['config'] == SCRIPT
    assert derived['options'] == {'enable_hiera': True}
    assert derived['outputs'] == source['outputs']
    values = {i['name']: i.get('value') for i in derived['inputs']}
    assert values == {'foo': 'world', 'extra': '1',
                      'deploy_server_id': 'server-1',
                      'deploy_action': 'BACKUP',
                      'deploy_signal_transport': 'NO_SIGNAL'}

    listed = cli.json('software', 'deployment', 'list', '--server',
                      'server-1', '--long')
    assert listed == [{
        'id': created['id'], 'config_id': created['config_id'],
        'server_id': 'server-1', 'action': 'BACKUP',
        'status': 'IN_PROGRESS',
        'creation_time': created['creation_time'], 'status_reason': None,
    }]
    assert elsewhere['id'] not in {d['id'] for d in listed}

    metadata = cli.run('software', 'deployment', 'metadata', 'show',
                       'server-1')
    assert json.loads(metadata.stdout) == [derived]

    # The agent's result, as a signal or Heat's resource would store it.
    api.put(f'/software_deployments/{created["id"]}', {
        'status': 'COMPLETE', 'status_reason': 'Outputs received',
        'output_values': {'result': 'hello world', 'deploy_stdout': 'out',
                          'deploy_stderr': '', 'deploy_status_code': 0}})

    shown = cli.json('software', 'deployment', 'show', created['id'],
                     '--long')
    assert shown['id'] == created['id']
    assert shown['status'] == 'COMPLETE'
    assert shown['status_reason'] == 'Outputs received'
    assert shown['action'] == 'BACKUP'
    assert shown['config_id'] == created['config_id']
    assert shown['updated_time'].endswith('Z')
    assert shown['output_values']['result'] == 'hello world'

    outputs = cli.run('software', 'deployment', 'output', 'show',
                      created['id'], '--all')
    assert 'output_values:' in outputs.stdout
    assert 'result: hello world' in outputs.stdout
    assert 'deploy_status_code: 0' in outputs.stdout

    missing = cli.run('software', 'deployment', 'output', 'show',
                      created['id'], 'missing', expect_rc=1)
    assert (f'Output missing does not exist in deployment '
            f'{created["id"]}') in missing.stderr

    # A finished ad-hoc action leaves the server's document, and the
    # tenant view lists what the agent receives (the same document).
    metadata = cli.run('software', 'deployment', 'metadata', 'show',
                       'server-1')
    assert json.loads(metadata.stdout) == []


def test_deployment_delete_removes_derived_config(cli, api):
    deployment = derived_deployment(api, 'server-del')
    result = cli.run('software', 'deployment', 'delete', deployment['id'])
    assert 'Failed to delete' not in result.stdout
    assert api.get(
        f'/software_deployments/{deployment["id"]}').status == 404
    assert api.get(
        f'/software_configs/{deployment["config_id"]}').status == 404


def test_deployment_not_found(cli):
    missing = str(uuid.uuid4())
    result = cli.run('software', 'deployment', 'show', missing,
                     expect_rc=1, auth='none')
    assert f'Software Deployment not found: {missing}' in result.stderr

    result = cli.run('software', 'deployment', 'output', 'show', missing,
                     '--all', expect_rc=1)
    assert f'Deployment not found: {missing}' in result.stderr

    result = cli.run('software', 'deployment', 'delete', missing,
                     expect_rc=1)
    assert f'Deployment with ID {missing} not found' in result.stdout
    assert 'Unable to delete 1 of the 1 deployments.' in result.stderr
