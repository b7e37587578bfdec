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

"""The ``swconfig`` console script as the CLI tests run it (``Cli``, with
``OS_AUTH_TYPE=none`` and a project's endpoint), what a run gives back
(``Run``), and the configs and checks several of the tests share."""

import dataclasses
import json
import os
import pathlib
import subprocess
import sys

from tests.fixtures import processes

#: Runs the rest of its arguments with SIGINT's default disposition.
AS_FROM_A_TERMINAL = (
    sys.executable, '-c',
    'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); '
    'os.execv(sys.argv[1], sys.argv[1:])')
CLI_TIMEOUT = 120

HELLO_SCRIPT = '#!/bin/sh\necho "hello $name" > $heat_outputs_path.greeting\n'
HELLO_DEFINITION = ('inputs:\n- name: name\n  default: world\n'
                    'outputs:\n- name: greeting\n')

# Each entry appends its action to the file named by the input ``log``,
# so the test sees exactly which entries the agent ran, in order.
COMPONENT = '''\
configs:
- actions: [CREATE]
  tool: script
  config: |
    #!/bin/sh
    echo CREATE >> "$log"
- actions: [BACKUP]
  tool: script
  config: |
    #!/bin/sh
    echo BACKUP >> "$log"
    printf 'backup of %s' "$target" > "$heat_outputs_path.result"
- actions: [SUSPEND]
  tool: script
  config: |
    #!/bin/sh
    echo SUSPEND >> "$log"
- actions: [RESUME]
  tool: script
  config: |
    #!/bin/sh
    echo RESUME >> "$log"
- actions: [DELETE]
  tool: script
  config: |
    #!/bin/sh
    echo DELETE >> "$log"
'''


@dataclasses.dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)

    def ok(self) -> 'Run':
        assert self.returncode == 0, self
        return self


class Cli:
    """The console script with ``OS_AUTH_TYPE=none`` and the endpoint of
    one project, in a directory (and ``HOME``) of the test's own so no
    clouds.yaml of the machine is read."""

    def __init__(self, workdir: pathlib.Path, endpoint: str) -> None:
        self.workdir = workdir
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith('OS_')}
        self.env.update(HOME=str(workdir), OS_AUTH_TYPE='none',
                        OS_ENDPOINT=endpoint)
        self.script = processes.script('swconfig')
        assert self.script, 'the swconfig console script is not installed'

    def command(self, args: tuple) -> list[str]:
        return [self.script, *map(str, args)]

    def __call__(self, *args: object, env: dict | None = None) -> Run:
        done = subprocess.run(self.command(args), cwd=self.workdir,
                              env=env or self.env, capture_output=True,
                              text=True, timeout=CLI_TIMEOUT, check=False)
        return Run(done.returncode, done.stdout, done.stderr)

    def start(self, *args: object) -> subprocess.Popen:
        """A command that runs while the test drives the agent, with
        Ctrl-C's default disposition, as a shell in a terminal starts it
        (a CI job started in the background ignores SIGINT, and every
        process it starts inherits that)."""
        return subprocess.Popen([*AS_FROM_A_TERMINAL, *self.command(args)],
                                cwd=self.workdir, env=self.env,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    @staticmethod
    def first_progress_line(process: subprocess.Popen) -> str:
        """Block until ``--wait`` reports for the first time (it is then
        following the deployment); '' if the command ended instead."""
        line = process.stderr.readline()
        process.seen_stderr = line
        return line

    @staticmethod
    def finish(process: subprocess.Popen) -> Run:
        stdout, stderr = process.communicate(timeout=CLI_TIMEOUT)
        seen = getattr(process, 'seen_stderr', '')
        return Run(process.returncode, stdout, seen + stderr)


def one_line_error(run: Run, status: int, text: str) -> None:
    """A refused request: exit 1, its message on one line, no traceback."""
    assert run.returncode == 1, run
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run
    assert f'(HTTP {status})' in lines[0] and text in lines[0], run
    assert 'Traceback' not in run.stderr
    assert run.stdout == ''


def hello_config(cli: Cli) -> dict:
    (cli.workdir / 'hello.sh').write_text(HELLO_SCRIPT)
    (cli.workdir / 'hello.yaml').write_text(HELLO_DEFINITION)
    return cli('config', 'create', 'hello', '--group', 'script',
               '--config-file', 'hello.sh', '--definition-file',
               'hello.yaml', '--output', 'extra', '-f', 'json').ok().json()


def signal(service, project: str, deployment_id: str, payload: dict) -> None:
    """What an agent would report, through the authenticated API."""
    reply = service.request(
        'POST', f'/v1/{project}/software_deployments/{deployment_id}/signal',
        json=payload)
    assert reply.status_code == 200, reply.text
