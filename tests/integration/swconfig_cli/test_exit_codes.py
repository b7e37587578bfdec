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

"""One table of exit statuses for every command that waits (cli.rst):
0 COMPLETE, 3 FAILED, 4 CANCELLED, 1 refused, 2 usage, 130 interrupted.
The real console script against a real ``swconfig-all``; the test
signals as an agent would."""

import signal as signals
import uuid

from tests.integration.swconfig_cli.cli_helpers import Cli
from tests.integration.swconfig_cli.cli_helpers import hello_config
from tests.integration.swconfig_cli.cli_helpers import signal

COMPLETE, REFUSED, USAGE, FAILED, CANCELLED, INTERRUPTED = 0, 1, 2, 3, 4, 130


def _deploy(cli: Cli, config_id: str) -> str:
    return cli('deployment', 'create', '--config', config_id, '--server',
               f'srv-{uuid.uuid4().hex[:8]}', '-f', 'value', '-c',
               'id').ok().stdout.strip()


def test_deployment_waits(cli, service, project):
    config = hello_config(cli)
    refused = cli('deployment', 'create', '--config', 'nope', '--server',
                  'srv-x', '--wait')
    assert refused.returncode == REFUSED, refused
    usage = cli('deployment', 'create', '--server', 'srv-x', '--wait')
    assert usage.returncode == USAGE, usage

    outcomes = {}
    for outcome in ('complete', 'failed', 'cancelled'):
        deployment = _deploy(cli, config['id'])
        if outcome == 'cancelled':
            cli('deployment', 'cancel', deployment).ok()
        else:
            signal(service, project, deployment, {
                'deploy_status_code': 0 if outcome == 'complete' else 1})
        outcomes[outcome] = cli('deployment', 'wait', deployment, '-f',
                                'value', '-c', 'status').returncode
    assert outcomes == {'complete': COMPLETE, 'failed': FAILED,
                        'cancelled': CANCELLED}


def test_rollout_waits(cli, service, project):
    config = hello_config(cli)
    server = f'{project}-web'
    cli('server', 'set', server, '--label', 'role=web').ok()
    rollout = cli('rollout', 'create', '--selector', 'role=web', '--config',
                  config['id'], '-f', 'value', '-c', 'id').ok().stdout.strip()

    following = cli.start('rollout', 'wait', rollout, '-f', 'value', '-c',
                          'status')
    assert Cli.first_progress_line(following).startswith('IN_PROGRESS')
    following.send_signal(signals.SIGINT)
    stopped = Cli.finish(following)
    assert stopped.returncode == INTERRUPTED, stopped
    assert stopped.stderr.splitlines()[-1] == (
        f'Stopped waiting; rollout {rollout} goes on: swconfig rollout wait '
        f'{rollout} follows it again, swconfig rollout cancel {rollout} '
        f'stops it.'), stopped

    cli('rollout', 'cancel', rollout).ok()
    cancelled = cli('rollout', 'wait', rollout, '-f', 'value', '-c',
                    'status')
    assert (cancelled.returncode, cancelled.stdout) == (
        CANCELLED, 'CANCELLED\n'), cancelled

    again = cli('rollout', 'create', '--selector', 'role=web', '--config',
                config['id'], '-f', 'value', '-c', 'id').ok().stdout.strip()
    target = cli('rollout', 'targets', again, '-f', 'json').ok().json()[0]
    signal(service, project, target['deployment_id'],
           {'deploy_status_code': 0})
    done = cli('rollout', 'wait', again, '-f', 'value', '-c', 'status')
    assert (done.returncode, done.stdout) == (COMPLETE, 'COMPLETE\n'), done
    assert cli('rollout', 'wait', 'nope').returncode == REFUSED
