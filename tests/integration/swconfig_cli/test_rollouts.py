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

"""``swconfig rollout ...``: the real console script against a real
``swconfig-all``, as in test_commands.py. ``rollout create --wait``
follows a rollout over labelled servers while the test signals their
deployments as agents would: a line per change (not a terminal), exit
0 when COMPLETE and 3 (FAILED) when the error budget stops it; list, show,
targets, events and cancel."""

import json
import time

from tests.integration.swconfig_cli.cli_helpers import COMPONENT
from tests.integration.swconfig_cli.cli_helpers import Cli
from tests.integration.swconfig_cli.cli_helpers import hello_config
from tests.integration.swconfig_cli.cli_helpers import one_line_error
from tests.integration.swconfig_cli.cli_helpers import signal

TIMEOUT = 60


def _drive(cli: Cli, service, project: str, process, fail: bool) -> None:
    """Signal every running target until the command ends."""
    signalled: set[str] = set()
    deadline = time.monotonic() + TIMEOUT
    while process.poll() is None and time.monotonic() < deadline:
        for rollout in cli('rollout', 'list', '-f', 'json').ok().json():
            for target in cli('rollout', 'targets', rollout['id'],
                              '--state', 'IN_PROGRESS', '-f',
                              'json').ok().json():
                if target['deployment_id'] not in signalled:
                    signalled.add(target['deployment_id'])
                    signal(service, project, target['deployment_id'],
                           {'deploy_status_code': 1 if fail else 0})
        time.sleep(0.2)


def _labelled(cli: Cli, project: str, count: int) -> list[str]:
    """``count`` servers of the project labelled role=web (server ids
    are global: each test's are its own)."""
    names = [f'{project}-web-{index}' for index in range(count)]
    for name in names:
        cli('server', 'set', name, '--label', 'role=web', '-f', 'json').ok()
    return names


def test_create_wait_follows_the_waves_to_complete(cli, service, project):
    config = hello_config(cli)
    names = _labelled(cli, project, 5)
    process = cli.start('rollout', 'create', '--selector', 'role=web',
                        '--config', config['id'], '--input', 'name=you',
                        '--max-concurrency', '40%', '--wait', '-f',
                        'json')
    _drive(cli, service, project, process, fail=False)
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, (out, err)
    rollout = json.loads(out)
    assert rollout['status'] == 'COMPLETE'
    assert rollout['targets']['COMPLETE'] == 5
    lines = err.splitlines()
    assert lines[0].startswith('IN_PROGRESS 0/5 done, 0 failed, 2 in '
                               'progress, 3 not started'), err
    assert lines[-1].startswith('COMPLETE 5/5 done, 0 failed, 0 in '
                                'progress, 0 not started'), err

    shown = cli('rollout', 'show', rollout['id'], '-f', 'json').ok().json()
    assert shown['status'] == 'COMPLETE'
    targets = cli('rollout', 'targets', rollout['id'], '-f',
                  'json').ok().json()
    assert [t['server_id'] for t in targets] == names
    events = cli('rollout', 'events', rollout['id'], '-f',
                 'json').ok().json()
    assert events[-1]['event'] == 'finished'
    refused = cli('rollout', 'cancel', rollout['id'])
    assert refused.returncode == 1, refused
    assert 'is COMPLETE already' in refused.stderr


def test_create_wait_exits_3_when_the_error_budget_stops_it(cli, service,
                                                            project):
    config = hello_config(cli)
    _labelled(cli, project, 3)
    process = cli.start('rollout', 'create', '--selector', 'role=web',
                        '--config', config['id'], '--max-concurrency', '1',
                        '--wait', '-f', 'json')
    _drive(cli, service, project, process, fail=True)
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 3, (out, err)
    assert json.loads(out)['status'] == 'FAILED'
    assert err.splitlines()[-1].startswith('FAILED 0/3 done, 1 failed'), err


def test_selector_matching_nothing_is_one_line(cli):
    config = hello_config(cli)
    refused = cli('rollout', 'create', '--selector', 'role=none',
                  '--config', config['id'])
    assert refused.returncode == 1, refused
    assert 'matches no server of the project' in refused.stderr
    assert 'Traceback' not in refused.stderr


def test_a_refused_limit_is_explained_in_a_sentence(cli, project):
    config = hello_config(cli)
    _labelled(cli, project, 1)
    concurrency = ('It must be a whole number from 1 to 9999999 or a '
                   'percentage from 1% to 100%.')
    errors = ('It must be a whole number from 0 to 9999999 or a percentage '
              'from 0% to 100%.')
    for option, value, must_be in (('--max-concurrency', '150%', concurrency),
                                   ('--max-concurrency', '-1', concurrency),
                                   ('--max-concurrency', '0', concurrency),
                                   ('--max-errors', 'abc', errors)):
        refused = cli('rollout', 'create', '--selector', 'role=web',
                      '--config', config['id'], option, value)
        field = option[2:].replace('-', '_')
        one_line_error(refused, 400, f"Invalid value for {field}: "
                                     f"'{value}'. {must_be}")
    assert cli('rollout', 'list', '-f', 'json').ok().json() == []


def test_what_cannot_run_is_refused_at_creation(cli, service, project):
    other = Cli(cli.workdir, cli.env['OS_ENDPOINT'] + '-other')
    theirs = f'{project}-theirs'
    other('server', 'set', theirs, '--label', 'role=db').ok()
    config = hello_config(cli)
    refused = cli('rollout', 'create', '--server', theirs, '--config',
                  config['id'])
    one_line_error(refused, 403, f'Server {theirs} belongs to another '
                                 f'project; a rollout runs only on servers '
                                 f'of its own project.')

    (cli.workdir / 'component.yaml').write_text(COMPONENT)
    component = cli('config', 'create', 'comp', '--group', 'component',
                    '--config-file', 'component.yaml', '-f', 'value', '-c',
                    'id').ok().stdout.strip()
    with_it, without = _labelled(cli, project, 2)
    cli('deployment', 'create', '--config', component, '--server', with_it,
        '--input', f'log={cli.workdir}/log').ok()
    backup = ('rollout', 'create', '--selector', 'role=web',
              '--deployment-name', 'comp', '--action', 'BACKUP')
    one_line_error(cli(*backup), 400, f'Server {without} has no deployment '
                                      f'named comp; give "skip_missing": '
                                      f'true (swconfig rollout create '
                                      f'--skip-missing)')
    assert cli('rollout', 'list', '-f', 'json').ok().json() == []

    rollout = cli(*backup, '--skip-missing', '-f', 'json').ok().json()
    assert sum(rollout['targets'].values()) == 1, rollout
    targets = cli('rollout', 'targets', rollout['id'], '-f',
                  'json').ok().json()
    assert [target['server_id'] for target in targets] == [with_it]
    events = cli('rollout', 'events', rollout['id'], '-f',
                 'json').ok().json()
    assert {'event': 'skipped', 'reason': f'Server {without} has no '
            f'deployment named comp: left out (skip_missing)'} in [
        {'event': event['event'], 'reason': event['reason']}
        for event in events], events
