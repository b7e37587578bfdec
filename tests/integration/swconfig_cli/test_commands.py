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

"""The ``swconfig`` command, run as the real console script against a
running ``swconfig-all`` (the embedded default, ``OS_AUTH_TYPE=none``).

Every command is run with ``-f json`` (and ``-c`` where it matters) and
judged by its exit status and parsed output; the failures by their exit
status and their one-line message on stderr. The last test is the
scenario of a component on a server with the real os-collect-config and
heat-agents: CREATE, a BACKUP trigger followed with ``--wait``, an
``Idempotency-Key`` retry, a cancelled trigger the agent never runs,
SUSPEND/RESUME and the DELETE that deleting the deployment runs.
"""

import os
import subprocess
import threading
import uuid

import requests

from tests.fixtures import agents
from tests.fixtures import processes
from tests.fixtures.waiting import wait_for
from tests.integration.swconfig_cli.cli_helpers import CLI_TIMEOUT
from tests.integration.swconfig_cli.cli_helpers import COMPONENT
from tests.integration.swconfig_cli.cli_helpers import HELLO_SCRIPT
from tests.integration.swconfig_cli.cli_helpers import Cli
from tests.integration.swconfig_cli.cli_helpers import hello_config
from tests.integration.swconfig_cli.cli_helpers import one_line_error
from tests.integration.swconfig_cli.cli_helpers import signal


def test_config_commands(cli):
    created = hello_config(cli)
    assert created['name'] == 'hello' and created['group'] == 'script'
    assert created['config'] == HELLO_SCRIPT
    assert [i['name'] for i in created['inputs']] == ['name']
    assert created['inputs'][0]['default'] == 'world'
    assert [o['name'] for o in created['outputs']] == ['greeting', 'extra']

    other = cli('config', 'create', 'other', '--group', 'script',
                '--config-file', 'hello.sh', '--input', 'a=1', '--input',
                'b', '-f', 'value', '-c', 'id').ok().stdout.strip()
    listed = cli('config', 'list', '-f', 'json').ok().json()
    assert {c['id'] for c in listed} == {created['id'], other}
    assert set(listed[0]) == {'id', 'name', 'group', 'creation_time'}

    shown = cli('config', 'show', other, '-f', 'json').ok().json()
    assert shown['inputs'] == [{'name': 'a', 'default': '1',
                                'type': 'String'},
                               {'name': 'b', 'type': 'String'}]
    only = cli('config', 'show', created['id'], '--config-only').ok()
    assert only.stdout == HELLO_SCRIPT
    names = cli('config', 'show', created['id'], '-f', 'json', '-c', 'name',
                '-c', 'group').ok().json()
    assert names == {'name': 'hello', 'group': 'script'}

    cli('config', 'delete', created['id'], other).ok()
    assert cli('config', 'list', '-f', 'json').ok().json() == []


def test_component_config_is_read_as_yaml(cli):
    (cli.workdir / 'component.yaml').write_text(COMPONENT)
    created = cli('config', 'create', 'comp', '--group', 'component',
                  '--config-file', 'component.yaml', '-f',
                  'json').ok().json()
    assert [e['actions'] for e in created['config']['configs']] == [
        ['CREATE'], ['BACKUP'], ['SUSPEND'], ['RESUME'], ['DELETE']]
    (cli.workdir / 'bad.yaml').write_text('configs:\n- actions: [CREATE]\n'
                                          '  config: x\n')
    refused = cli('config', 'create', 'bad', '--group', 'component',
                  '--config-file', 'bad.yaml')
    one_line_error(refused, 400, 'tool')


def test_deployment_and_server_commands(cli, service, project):
    config = hello_config(cli)
    server = f'server-{uuid.uuid4().hex[:8]}'
    created = cli('deployment', 'create', '--config', config['id'],
                  '--server', server, '--input', 'name=you', '--name',
                  'greeter', '--timeout', '600', '-f', 'json').ok().json()
    assert created['status'] == 'IN_PROGRESS'
    assert created['action'] == 'CREATE'
    assert created['input_values'] == {'name': 'you'}
    assert created['config_id'] != config['id']  # derived by the service

    listed = cli('deployment', 'list', '--server', server, '-f',
                 'json').ok().json()
    assert [d['id'] for d in listed] == [created['id']]
    assert cli('deployment', 'list', '--server', 'elsewhere', '-f',
               'json').ok().json() == []

    servers = cli('server', 'list', '-f', 'json').ok().json()
    assert [s['server_id'] for s in servers] == [server]
    assert servers[0]['project_id'] == project
    assert servers[0]['last_poll_time'] is None  # no agent polled yet
    metadata = cli('server', 'metadata', 'show', server, '-f',
                   'json').ok().json()
    assert [m['name'] for m in metadata] == ['greeter']
    values = {i['name']: i.get('value') for i in metadata[0]['inputs']}
    assert values['name'] == 'you' and values['deploy_server_id'] == server
    conf = cli('server', 'agent-config', server, '-f', 'value', '-c',
               'os_collect_config_conf').ok().stdout
    assert 'collectors = request' in conf
    assert f'/agent/servers/{server}/metadata?token=' in conf
    # Its agent polls once: the commands show when (the API writes it
    # within [api] poll_time_interval, 1 s on this stack).
    metadata_url = cli('server', 'agent-config', server, '-f', 'json').ok(
        ).json()['os-collect-config']['request']['metadata_url']
    assert requests.get(metadata_url, timeout=30).status_code == 200
    polled = wait_for(lambda: cli('server', 'show', server, '-f', 'json').ok(
        ).json()['last_poll_time'], 30, 'the last poll time')
    assert polled.endswith('Z') and polled >= servers[0]['creation_time']
    listed = cli('server', 'list', '-f', 'json').ok().json()
    assert listed[0]['last_poll_time'] >= polled

    signal(service, project, created['id'],
           {'greeting': 'hello you', 'deploy_status_code': 0})
    service.wait_for_deployment(project, created['id'])
    shown = cli('deployment', 'show', created['id'], '-f', 'json').ok()
    assert shown.json()['status'] == 'COMPLETE'
    assert shown.json()['output_values']['greeting'] == 'hello you'
    events = cli('deployment', 'events', created['id'], '-f',
                 'json').ok().json()
    assert [e['new_status'] for e in events] == ['IN_PROGRESS', 'COMPLETE']
    assert set(events[0]) == {'time', 'action', 'old_status', 'new_status',
                              'reason'}
    greeting = cli('deployment', 'output', 'show', created['id'],
                   'greeting', '-f', 'value', '-c', 'value').ok().stdout
    assert greeting == 'hello you\n'
    outputs = cli('deployment', 'output', 'show', created['id'], '--all',
                  '-f', 'json').ok().json()
    assert outputs['greeting'] == 'hello you'
    assert outputs['deploy_status_code'] == 0

    cli('deployment', 'delete', created['id']).ok()
    assert cli('deployment', 'list', '-f', 'json').ok().json() == []


def test_create_again_with_the_same_key_makes_no_second_deployment(
        cli, service, project):
    config = hello_config(cli)
    server = f'server-{uuid.uuid4().hex[:8]}'
    create = ('deployment', 'create', '--config', config['id'], '--server',
              server, '--idempotency-key', 'run-1', '-f', 'json')
    first = cli(*create).ok().json()
    again = cli(*create).ok().json()
    assert again == first
    listed = cli('deployment', 'list', '--server', server, '-f',
                 'json').ok().json()
    assert [d['id'] for d in listed] == [first['id']]
    one_line_error(cli('deployment', 'create', '--config', config['id'],
                       '--server', f'{server}-b', '--idempotency-key',
                       'run-1'), 422, 'run-1')


def test_create_with_an_input_key(cli, service, project):
    """``--input-key`` and ``--strict-inputs`` on a structured config
    (made through the API: ``config create`` reads a file as text)."""
    reply = service.request(
        'POST', f'/v1/{project}/software_configs',
        json={'name': 'web', 'group': 'os-apply-config',
              'config': {'listen': {'get_input': 'port'},
                         'tag': {'get_input': 'tag'},
                         'server': {'get_input': 'deploy_server_id'}}})
    assert reply.status_code == 200, reply.text
    config_id = reply.json()['software_config']['id']
    server = f'server-{uuid.uuid4().hex[:8]}'
    create = ('deployment', 'create', '--config', config_id, '--server',
              server, '--input', 'port=80', '--input-key', 'get_input')

    created = cli(*create, '-f', 'json').ok().json()
    assert (created['input_key'], created['input_values_validate']) == (
        'get_input', 'LAX')
    derived = cli('config', 'show', created['config_id'], '-f',
                  'json').ok().json()
    assert derived['config'] == {'listen': '80', 'tag': None,
                                 'server': server}

    one_line_error(cli(*create, '--strict-inputs'), 400,
                   'The config substitutes input tag at config.tag')
    strict = cli(*create, '--input', 'tag=blue', '--strict-inputs', '-f',
                 'json', '-c', 'id', '-c', 'input_values_validate')
    assert strict.ok().json()['input_values_validate'] == 'STRICT'

    alone = cli('deployment', 'create', '--config', config_id, '--server',
                server, '--strict-inputs')
    assert alone.returncode == 1, alone
    assert alone.stderr.strip() == ('--strict-inputs needs --input-key (the '
                                    'key of the maps that input values '
                                    'replace)')
    listed = cli('deployment', 'list', '-f', 'json').ok().json()
    assert len(listed) == 2


def test_refused_requests_exit_1_with_one_line(cli, service, project):
    one_line_error(cli('config', 'show', 'nope'), 404,
                   'Software config with id nope not found')
    one_line_error(cli('deployment', 'show', 'nope'), 404,
                   'Deployment with id nope not found')
    config = hello_config(cli)
    deployment = cli('deployment', 'create', '--config', config['id'],
                     '--server', 'srv-1', '-f', 'json').ok().json()
    one_line_error(cli('config', 'delete', config['id']), 409,
                   'referenced')
    one_line_error(cli('deployment', 'create', '--config', config['id'],
                       '--server', 'srv-1', '--signal-transport', 'PIGEON'),
                   400, 'PIGEON')
    one_line_error(cli('deployment', 'output', 'show', deployment['id'],
                       'greeting'), 404, 'greeting')

    cancelled = cli('deployment', 'cancel', deployment['id'], '-f',
                    'json').ok().json()
    assert cancelled['status'] == 'FAILED'
    assert cancelled['status_reason'] == 'Deployment cancelled.'
    one_line_error(cli('deployment', 'cancel', deployment['id']), 409,
                   'nothing to cancel')

    # Deleting several: each failure named on its own line, exit 1.
    mixed = cli('deployment', 'delete', 'missing-1', deployment['id'])
    assert mixed.returncode == 1, mixed
    assert mixed.stderr.startswith('missing-1: Not Found (HTTP 404)')
    assert cli('deployment', 'list', '-f', 'json').ok().json() == []


def test_usage_and_connection_errors(cli, tmp_path):
    usage = cli('deployment', 'create', '--config', 'c', '--server', 's',
                '--input', 'no-equals-sign')
    assert usage.returncode == 2, usage
    assert "'no-equals-sign' is not KEY=VALUE" in usage.stderr

    bare = {k: v for k, v in cli.env.items()
            if k not in ('OS_AUTH_TYPE', 'OS_ENDPOINT')}
    no_credentials = cli('config', 'list', env=bare)
    assert no_credentials.returncode == 1, no_credentials
    assert no_credentials.stderr.count('\n') == 1, no_credentials
    assert 'OS_AUTH_TYPE=none' in no_credentials.stderr
    assert 'Traceback' not in no_credentials.stderr

    closed = dict(cli.env, OS_ENDPOINT=f'http://{processes.HOST}:'
                                       f'{processes.free_port()}/v1/p')
    unreachable = cli('config', 'list', env=closed)
    assert unreachable.returncode == 1, unreachable
    assert unreachable.stderr.count('\n') == 1, unreachable
    assert unreachable.stderr == (
        f'Cannot reach swconfig at {closed["OS_ENDPOINT"]} (connection '
        f'refused); check that the service runs and that OS_ENDPOINT (or '
        f'the catalog) points at it.\n')
    # --debug is the one way to a traceback.
    debugged = cli('--debug', 'config', 'show', 'x', env=closed)
    assert debugged.returncode == 1, debugged
    assert 'Traceback' in debugged.stderr


def test_wait_exit_status_and_progress(cli, service, project):
    """``--wait`` follows the action with the service's long poll: the
    progress on stderr, the final deployment on stdout, 0 for COMPLETE
    and 3 for FAILED."""
    config = hello_config(cli)
    waiting = cli.start('deployment', 'create', '--config', config['id'],
                        '--server', 'srv-w', '--wait', '-f', 'json')
    deployment_id = _only_deployment(service, project, 'srv-w')
    first = Cli.first_progress_line(waiting)
    assert f'{deployment_id} IN_PROGRESS' in first, Cli.finish(waiting)
    signal(service, project, deployment_id,
           {'deploy_status': 'IN_PROGRESS',
            'deploy_status_reason': 'half way there'})
    service.wait_for_deployment(
        project, deployment_id,
        until=lambda d: d['status_reason'] == 'half way there')
    signal(service, project, deployment_id,
           {'greeting': 'hi', 'deploy_status_code': 0})
    done = Cli.finish(waiting).ok()
    assert done.json()['status'] == 'COMPLETE'
    assert done.json()['output_values']['greeting'] == 'hi'
    progress = done.stderr.splitlines()
    assert any('half way there' in line for line in progress), done
    assert progress[-1].startswith('COMPLETE after '), done

    failing = cli.start('deployment', 'create', '--config', config['id'],
                        '--server', 'srv-f', '--wait', '-f', 'json')
    failed_id = _only_deployment(service, project, 'srv-f')
    signal(service, project, failed_id,
           {'deploy_status_code': 7, 'deploy_stderr': 'boom'})
    failed = Cli.finish(failing)
    assert failed.returncode == 3, failed
    assert failed.json()['status'] == 'FAILED'
    assert failed.stderr.splitlines()[-1].startswith('FAILED after '), failed


def test_wait_on_a_terminal_redraws_one_line(cli, service, project):
    """stderr on a terminal (a pseudo-terminal here): one line redrawn
    with a carriage return and a spinner, not a line per event."""
    config = hello_config(cli)
    leader, follower = os.openpty()
    waiting = subprocess.Popen(
        cli.command(('deployment', 'create', '--config', config['id'],
                     '--server', 'srv-t', '--wait', '-f', 'value', '-c',
                     'status')),
        cwd=cli.workdir, env=cli.env, stdout=subprocess.PIPE,
        stderr=follower, text=True)
    os.close(follower)
    seen = bytearray()
    redrawn = threading.Event()

    def read() -> None:
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the command closed the terminal
                return
            if not chunk:
                return
            seen.extend(chunk)
            if seen.count(b'\r') >= 3:
                redrawn.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deployment_id = _only_deployment(service, project, 'srv-t')
    assert redrawn.wait(60), bytes(seen)
    signal(service, project, deployment_id, {'deploy_status_code': 0})
    stdout, _ = waiting.communicate(timeout=CLI_TIMEOUT)
    reader.join(10)
    os.close(leader)
    text = bytes(seen).decode()
    assert waiting.returncode == 0, text
    assert stdout == 'COMPLETE\n'
    assert f'{deployment_id} IN_PROGRESS' in text
    assert '\r\x1b[K' in text
    lines = text.replace('\r\n', '\n').split('\n')
    # Only the final word ends a line; the progress was redrawn in place.
    assert lines[-1] == '' and len(lines) == 2, text
    assert lines[0].rsplit('\r\x1b[K', 1)[1].startswith(
        'COMPLETE after '), text


def _only_deployment(service, project: str, server: str,
                     timeout: float = 60) -> str:
    """The id of the one deployment a command just created on server."""
    listed = wait_for(lambda: _deployments_on(service, project, server),
                      timeout, f'a deployment to {server}')
    return listed[0]['id']


def test_component_scenario_with_real_agents(cli, service, project):
    """A component deployed to a server whose real agent runs each entry:
    only the entry of the action runs, a retried trigger does not run
    again and a cancelled one never runs."""
    log = cli.workdir / 'actions.log'
    agent = agents.Agent(cli.workdir / 'agent')
    server = f'server-{uuid.uuid4().hex[:8]}'

    def ran() -> list[str]:
        return log.read_text().split() if log.exists() else []

    def poll() -> None:
        agents_run = agent.run_once(metadata_url)
        assert agents_run.returncode == 0, agents_run

    (cli.workdir / 'component.yaml').write_text(COMPONENT)
    config = cli('config', 'create', 'app', '--group', 'component',
                 '--config-file', 'component.yaml', '--input', 'log',
                 '--input', 'target=db', '--output', 'result', '-f',
                 'json').ok().json()
    creating = cli.start('deployment', 'create', '--config', config['id'],
                         '--server', server, '--input', f'log={log}',
                         '--signal-transport', 'HEAT_SIGNAL', '--wait',
                         '-f', 'json')
    deployment_id = _only_deployment(service, project, server)
    metadata_url = cli('server', 'agent-config', server, '-f',
                       'json').ok().json()['os-collect-config'][
                           'request']['metadata_url']
    poll()
    created = Cli.finish(creating).ok().json()
    assert created['status'] == 'COMPLETE', created
    assert ran() == ['CREATE']

    # BACKUP as a trigger, followed with --wait: only its entry runs.
    key = uuid.uuid4().hex
    backing_up = cli.start('deployment', 'trigger', deployment_id,
                           '--action', 'BACKUP', '--idempotency-key', key,
                           '--wait', '-f', 'json')
    trigger_id = _trigger_of(service, project, server, 'BACKUP')
    poll()
    backup = Cli.finish(backing_up).ok()
    assert backup.json()['id'] == trigger_id
    assert backup.json()['status'] == 'COMPLETE', backup
    assert backup.json()['output_values']['result'] == 'backup of db'
    assert ran() == ['CREATE', 'BACKUP']
    assert 'COMPLETE after' in backup.stderr
    result = cli('deployment', 'output', 'show', trigger_id, 'result',
                 '-f', 'value', '-c', 'value').ok().stdout
    assert result == 'backup of db\n'
    original = cli('deployment', 'show', deployment_id, '-f', 'json').ok()
    assert original.json()['action'] == 'CREATE'  # untouched

    # The same key: the same trigger, and the agent runs nothing new.
    again = cli('deployment', 'trigger', deployment_id, '--action',
                'BACKUP', '--idempotency-key', key, '-f', 'json').ok()
    assert again.json()['id'] == trigger_id
    poll()
    assert ran() == ['CREATE', 'BACKUP']

    # Cancelled before the agent polls: the agent never runs it.
    pending = cli('deployment', 'trigger', deployment_id, '--action',
                  'BACKUP', '-f', 'json').ok().json()
    assert pending['status'] == 'IN_PROGRESS'
    cancelled = cli('deployment', 'cancel', pending['id'], '-f',
                    'json').ok().json()
    assert cancelled['status_reason'] == 'Deployment cancelled.'
    poll()
    assert ran() == ['CREATE', 'BACKUP']

    # SUSPEND and RESUME run their entries.
    for action in ('SUSPEND', 'RESUME'):
        running = cli.start('deployment', 'action', deployment_id, action,
                            '--wait', '-f', 'json')
        service.wait_for_deployment(
            project, deployment_id,
            until=lambda d, a=action: d['action'] == a)
        poll()
        finished = Cli.finish(running).ok().json()
        assert (finished['action'], finished['status']) == (action,
                                                            'COMPLETE')
    assert ran() == ['CREATE', 'BACKUP', 'SUSPEND', 'RESUME']

    # Deleting the deployment runs DELETE, then removes it.
    deleting = cli('deployment', 'delete', deployment_id).ok()
    assert 'DELETE action runs first' in deleting.stderr
    poll()
    assert ran() == ['CREATE', 'BACKUP', 'SUSPEND', 'RESUME', 'DELETE']
    wait_for(lambda: cli('deployment', 'show', deployment_id).returncode == 1,
             60, 'the deployment removed')


def _trigger_of(service, project: str, server: str, action: str,
                timeout: float = 60) -> str:
    """The id of the IN_PROGRESS ``action`` trigger on server."""
    found = wait_for(lambda: [
        d['id'] for d in _deployments_on(service, project, server)
        if d['action'] == action and d['status'] == 'IN_PROGRESS'],
        timeout, f'a {action} trigger on {server}')
    return found[0]


def _deployments_on(service, project: str, server: str) -> list[dict]:
    return service._json(
        'GET', f'/v1/{project}/software_deployments?server_id={server}'
    )['software_deployments']
