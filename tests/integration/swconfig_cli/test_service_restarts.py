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

"""A wait outlives a restart of the service: ``deployment wait`` (and
every ``--wait``) says once that swconfig cannot be reached and that the
action goes on, keeps trying for ``--retry-for`` seconds, and follows the
action to its end when the service is back; past ``--retry-for`` it
exits 1 naming the command that follows the action again. A real
``swconfig-all`` stopped (SIGTERM) and started again on its port."""

import re
import uuid

import pytest

from tests.fixtures import agent_stacks
from tests.fixtures import processes
from tests.integration.swconfig_cli.cli_helpers import Cli
from tests.integration.swconfig_cli.cli_helpers import hello_config
from tests.integration.swconfig_cli.cli_helpers import signal


@pytest.fixture
def stack(tmp_path):
    with agent_stacks.embedded_stack(str(tmp_path / 'stack')) as running:
        yield running


def _restart(stack) -> None:
    service = stack.processes['all']
    service.start()
    processes.wait_for_http(stack.base_url + '/', service)


def test_a_wait_follows_the_action_across_a_restart(stack, tmp_path):
    project = f'restart-{uuid.uuid4().hex[:8]}'
    cli = Cli(tmp_path, f'{stack.base_url}/v1/{project}')
    config = hello_config(cli)
    deployments = [
        cli('deployment', 'create', '--config', config['id'], '--server',
            f'srv-{uuid.uuid4().hex[:8]}', '-f', 'value', '-c',
            'id').ok().stdout.strip() for _ in range(2)]
    waiting = cli.start('deployment', 'wait', deployments[0], '-f', 'value',
                        '-c', 'status')
    assert Cli.first_progress_line(waiting).startswith(
        f'{deployments[0]} IN_PROGRESS')

    stack.processes['all'].stop()
    away = waiting.stderr.readline()
    # Refused, reset or closed, as the service stopped during a long
    # poll or before the next one.
    assert re.fullmatch(
        re.escape(f'Cannot reach swconfig at {cli.env["OS_ENDPOINT"]} (')
        + '(connection refused|connection reset by peer|the connection was '
          'closed)'
        + re.escape('); check that the service runs and that OS_ENDPOINT '
                    '(or the catalog) points at it. The action goes on; '
                    'trying again for up to 60 s.\n'), away), away
    waiting.seen_stderr += away

    given_up = cli('deployment', 'wait', deployments[1], '--retry-for',
                   '1')
    assert given_up.returncode == 1, given_up
    assert given_up.stdout == ''
    assert given_up.stderr.splitlines()[-1].startswith(
        'Gave up waiting after 1 s without an answer: Cannot reach '
        'swconfig at '), given_up
    assert given_up.stderr.splitlines()[-1].endswith(
        f'The action goes on: "swconfig deployment wait {deployments[1]}" '
        f'follows it again.'), given_up
    assert 'Traceback' not in given_up.stderr

    _restart(stack)
    signal(stack, project, deployments[0], {'deploy_status_code': 0})
    done = Cli.finish(waiting)
    assert (done.returncode, done.stdout) == (0, 'COMPLETE\n'), done
    assert done.stderr.count('Cannot reach swconfig') == 1, done
    assert 'swconfig answers again; still waiting.' in done.stderr, done
    assert re.search(r'COMPLETE after \d+s', done.stderr), done
