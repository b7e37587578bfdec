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

"""``swconfig deployment signal`` and ``deployment wait``, the readable
lists and the command's plain messages, run as the real console script
against a running ``swconfig-all`` (the fixtures of this folder's
conftest).

``deployment signal`` plays the agent here: it reports as heat-agents
would, and its exit status says whether the signal counted.
"""

import re
import signal as signals
import uuid

from tests.integration.swconfig_cli.cli_helpers import Cli
from tests.integration.swconfig_cli.cli_helpers import Run
from tests.integration.swconfig_cli.cli_helpers import hello_config
from tests.integration.swconfig_cli.cli_helpers import one_line_error

BACKUP_COMPONENT = '''\
configs:
- actions: [CREATE]
  tool: script
  config: echo create
- actions: [BACKUP]
  tool: script
  config: echo backup
'''


def _deploy(cli: Cli, config_id: str, *args: str) -> dict:
    server = f'server-{uuid.uuid4().hex[:8]}'
    return cli('deployment', 'create', '--config', config_id, '--server',
               server, *args, '-f', 'json').ok().json()


def _events(cli: Cli, deployment_id: str) -> list[dict]:
    return cli('deployment', 'events', deployment_id, '-f',
               'json').ok().json()


def _usage_error(run: Run, text: str) -> None:
    assert run.returncode == 2, run
    assert text in run.stderr, run
    assert 'Traceback' not in run.stderr


# -- deployment signal -------------------------------------------------------

def test_signal_a_result_as_an_agent_would(cli):
    config = hello_config(cli)
    deployment = _deploy(cli, config['id'])
    done = cli('deployment', 'signal', deployment['id'], '--status-code',
               '0', '--output', 'greeting=hello you', '--output',
               'extra=a=b', '--stdout', 'all good', '--stderr', '',
               '-f', 'json').ok()
    shown = done.json()
    assert (shown['status'], shown['status_reason']) == (
        'COMPLETE', 'Outputs received')
    assert shown['output_values'] == {
        'greeting': 'hello you', 'extra': 'a=b', 'deploy_stdout':
        'all good', 'deploy_stderr': '', 'deploy_status_code': 0}
    assert 'applied: CREATE COMPLETE: Outputs received' in done.stderr

    # The action finished: a second signal does not count, and says so.
    again = cli('deployment', 'signal', deployment['id'], '--status-code',
                '0')
    assert again.returncode == 1, again
    assert again.stdout == ''
    assert 'was not applied: Duplicate signal ignored: the action already ' \
           'finished (COMPLETE).' in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1, again


def test_signal_a_failure_and_progress(cli):
    config = hello_config(cli)
    deployment = _deploy(cli, config['id'])
    progress = cli('deployment', 'signal', deployment['id'], '--progress',
                   'copied 3 of 5 tables', '-f', 'json').ok().json()
    assert (progress['status'], progress['status_reason']) == (
        'IN_PROGRESS', 'copied 3 of 5 tables')
    failed = cli('deployment', 'signal', deployment['id'], '--status-code',
                 '7', '--stderr', 'boom', '-f', 'json').ok().json()
    assert failed['status'] == 'FAILED'
    assert failed['status_reason'] == (
        'deploy_status_code : Deployment exited with non-zero status '
        'code: 7')
    assert failed['output_values']['deploy_stderr'] == 'boom'
    # Progress after the end does not count either.
    late = cli('deployment', 'signal', deployment['id'], '--progress',
               'still here')
    assert late.returncode == 1, late
    assert 'was not applied' in late.stderr


def test_signal_mistakes_send_nothing(cli):
    config = hello_config(cli)
    deployment = _deploy(cli, config['id'])
    before = _events(cli, deployment['id'])

    typo = cli('deployment', 'signal', deployment['id'], '--output',
               'greting=hi', '--status-code', '0')
    assert typo.returncode == 1, typo
    assert typo.stderr.strip() == (
        f'The config of deployment {deployment["id"]} declares no output '
        'greting (it declares greeting, extra); nothing was sent.')
    _usage_error(cli('deployment', 'signal', deployment['id'],
                     '--progress', 'half', '--status-code', '0'),
                 '--progress reports progress, not a result')
    _usage_error(cli('deployment', 'signal', deployment['id'], '--output',
                     'deploy_status_code=0'),
                 'deploy_status_code is not an output: use --status-code')
    _usage_error(cli('deployment', 'signal', deployment['id'], '--output',
                     'greeting'), "'greeting' is not NAME=VALUE")
    _usage_error(cli('deployment', 'signal', deployment['id'],
                     '--status-code', 'zero'), "invalid int value: 'zero'")
    _usage_error(cli('deployment', 'signal', deployment['id'],
                     '--progress', ' '), '--progress needs a text')
    one_line_error(cli('deployment', 'signal', 'nope', '--status-code', '0'),
                   404, 'Deployment with id nope not found')

    assert _events(cli, deployment['id']) == before
    assert cli('deployment', 'show', deployment['id'], '-f', 'value', '-c',
               'status').ok().stdout == 'IN_PROGRESS\n'


# -- deployment wait ---------------------------------------------------------

def test_wait_reattaches_after_ctrl_c(cli):
    """Ctrl-C stops ``--wait`` and names the command that follows the
    action again; ``deployment wait`` does, with the same progress lines
    and exit statuses."""
    config = hello_config(cli)
    server = f'server-{uuid.uuid4().hex[:8]}'
    creating = cli.start('deployment', 'create', '--config', config['id'],
                         '--server', server, '--wait', '-f', 'json')
    first = Cli.first_progress_line(creating)
    deployment_id = first.split()[0]
    assert f'{deployment_id} IN_PROGRESS' in first, Cli.finish(creating)
    creating.send_signal(signals.SIGINT)
    stopped = Cli.finish(creating)
    assert stopped.returncode == 130, stopped
    assert stopped.stderr.splitlines()[-1] == (
        f'Stopped waiting; deployment {deployment_id} goes on: swconfig '
        f'deployment wait {deployment_id} follows it again, swconfig '
        f'deployment cancel {deployment_id} stops it.'), stopped
    assert 'Traceback' not in stopped.stderr

    waiting = cli.start('deployment', 'wait', deployment_id, '-f', 'json')
    again = Cli.first_progress_line(waiting)
    assert f'{deployment_id} IN_PROGRESS' in again, Cli.finish(waiting)
    cli('deployment', 'signal', deployment_id, '--progress',
        'half way there').ok()
    cli('deployment', 'signal', deployment_id, '--status-code', '0',
        '--output', 'greeting=hi').ok()
    done = Cli.finish(waiting).ok()
    assert done.json()['status'] == 'COMPLETE'
    assert done.json()['output_values']['greeting'] == 'hi'
    progress = done.stderr.splitlines()
    assert any(line.endswith('half way there') for line in progress), done
    assert re.fullmatch(r'COMPLETE after \d+s: Outputs received',
                        progress[-1]), done

    # A finished action: the result at once, its exit status too.
    finished = cli('deployment', 'wait', deployment_id, '-f', 'value', '-c',
                   'status').ok()
    assert finished.stdout == 'COMPLETE\n'
    cancelled = _deploy(cli, config['id'])
    cli('deployment', 'cancel', cancelled['id']).ok()
    failed = cli('deployment', 'wait', cancelled['id'], '-f', 'value', '-c',
                 'status_reason')
    assert failed.returncode == 4, failed
    assert failed.stdout == 'Deployment cancelled.\n'
    one_line_error(cli('deployment', 'wait', 'nope'), 404,
                   'Deployment with id nope not found')


# -- readable lists ----------------------------------------------------------

def test_deployments_show_name_source_transport_and_trigger(cli):
    (cli.workdir / 'component.yaml').write_text(BACKUP_COMPONENT)
    source = cli('config', 'create', 'db', '--group', 'component',
                 '--config-file', 'component.yaml', '-f',
                 'json').ok().json()
    original = _deploy(cli, source['id'], '--name', 'db-main',
                       '--signal-transport', 'HEAT_SIGNAL')
    trigger = cli('deployment', 'trigger', original['id'], '--action',
                  'BACKUP', '-f', 'json').ok().json()

    columns = ('name', 'source_config_id', 'signal_transport',
               'triggered_from')
    listed = cli('deployment', 'list', '-f', 'json').ok().json()
    assert [tuple(d[c] for c in ('id', *columns)) for d in listed] == [
        (original['id'], 'db-main', source['id'], 'HEAT_SIGNAL', None),
        (trigger['id'], 'db-BACKUP', source['id'], 'HEAT_SIGNAL',
         original['id'])]
    assert list(listed[0]) == ['id', 'name', 'server_id', 'action',
                               'status', *columns[1:], 'creation_time']
    shown = cli('deployment', 'show', trigger['id'], '-f', 'json').ok()
    assert {c: shown.json()[c] for c in columns} == {
        'name': 'db-BACKUP', 'source_config_id': source['id'],
        'signal_transport': 'HEAT_SIGNAL', 'triggered_from': original['id']}
    table = cli('deployment', 'list').ok().stdout
    assert 'triggered_from' in table and 'db-BACKUP' in table


def test_config_list_hides_derived_configs_unless_all(cli):
    config = hello_config(cli)
    deployment = _deploy(cli, config['id'])
    listed = cli('config', 'list', '-f', 'json').ok().json()
    assert [c['id'] for c in listed] == [config['id']]
    everything = cli('config', 'list', '--all', '-f', 'json').ok().json()
    assert [c['id'] for c in everything] == [deployment['config_id'],
                                             config['id']]


# -- plain messages ----------------------------------------------------------

def test_a_config_file_that_is_not_utf8_is_named(cli):
    (cli.workdir / 'latin1.sh').write_bytes(b'#!/bin/sh\necho caf\xe9\n')
    refused = cli('config', 'create', 'latin', '--group', 'script',
                  '--config-file', 'latin1.sh')
    assert refused.returncode == 1, refused
    assert refused.stderr == (
        'latin1.sh is not UTF-8 text (line 2 is not valid UTF-8); save it '
        'as UTF-8.\n')
    assert cli('config', 'list', '--all', '-f', 'json').ok().json() == []


def test_all_outputs_of_a_deployment_without_any(cli):
    config = hello_config(cli)
    deployment = _deploy(cli, config['id'])
    nothing = cli('deployment', 'output', 'show', deployment['id'], '--all')
    assert nothing.returncode == 1, nothing
    assert nothing.stdout == ''
    assert nothing.stderr == (
        f'Deployment {deployment["id"]} has no outputs (CREATE IN_PROGRESS: '
        'Deploy data available).\n')
