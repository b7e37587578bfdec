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

"""The README's first session, run as written, with the local agent.

``python3 tools/dev.py agent SERVER`` runs the real os-collect-config,
os-refresh-config, os-apply-config and heat-agents (tools/local_agent.py)
against the embedded default (``swconfig-all`` with nothing but a state
directory and a free port of 127.0.0.1). The commands come from
README.rst itself (every literal block of "A first session" after the
``serve`` one), so the README cannot drift from what works; the only
changes are the service's address (a free port instead of 8004) and where
``.venv`` and ``tools/dev.py`` are (the test runs in a directory of its
own). The shell runs them with ``set -eu``: any command that fails
fails the test.
"""

import os
import pathlib
import re
import shlex
import signal
import subprocess
import sys

import pytest
import requests

from tests.fixtures import processes

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / 'README.rst'
DEV = ROOT / 'tools' / 'dev.py'
#: The first run installs the agent's virtualenv (pip: about a minute).
SESSION_TIMEOUT = 900
AGENT_TIMEOUT = 600


def section(text: str, title: str) -> str:
    """The body of the reST section *title* (up to the next title)."""
    lines = text.splitlines()
    start = lines.index(title) + 2
    end = next((i - 1 for i in range(start + 1, len(lines))
                if re.fullmatch(r'=+', lines[i])
                and len(lines[i]) == len(lines[i - 1])), len(lines))
    return '\n'.join(lines[start:end])


def literal_blocks(text: str) -> list[str]:
    """The literal blocks (after a paragraph ending with ``::``),
    dedented."""
    blocks: list[str] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        if not lines[index].rstrip().endswith('::'):
            index += 1
            continue
        index += 1
        body = []
        while index < len(lines) and (not lines[index].strip()
                                      or lines[index].startswith(' ')):
            body.append(lines[index])
            index += 1
        while body and not body[-1].strip():
            body.pop()
        indent = min(len(line) - len(line.lstrip())
                     for line in body if line.strip())
        blocks.append('\n'.join(line[indent:] for line in body).strip())
    return blocks


def first_session_blocks() -> list[str]:
    return literal_blocks(section(README.read_text(), 'A first session'))


@pytest.fixture(scope='module')
def service(tmp_path_factory):
    """swconfig-all as ``serve`` runs it: the embedded default, with a
    fresh state directory, on a free port."""
    workdir = tmp_path_factory.mktemp('first-session')
    port = processes.free_port()
    config_file = processes.write_config(str(workdir / 'swconfig.conf'), {
        'DEFAULT': {'state_path': str(workdir / 'state')},
        'api': {'bind_host': processes.HOST, 'bind_port': port},
    })
    process = processes.SwconfigProcess('swconfig-all', config_file,
                                        str(workdir)).start()
    base_url = f'http://{processes.HOST}:{port}'
    try:
        processes.wait_for_http(base_url + '/', process)
        process.base_url = base_url
        yield process
    finally:
        process.stop()


def shell_env(service, tmp_path: pathlib.Path) -> dict[str, str]:
    """The environment of a user's terminal: none of this machine's OS_*
    settings, a HOME of the test's own (no clouds.yaml), the agent's
    per-server state in the test's directory (its virtualenv is the
    repository's shared one, in .cache)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('OS_', 'SWCONFIG_AGENT_STATE'))}
    env.update(HOME=str(tmp_path),
               SWCONFIG_AGENT_STATE=str(tmp_path / 'agent-state'))
    return env


def as_script(blocks: list[str], base_url: str) -> str:
    """The README's commands, for this service and this checkout."""
    script = '\n'.join(blocks)
    script = script.replace('http://127.0.0.1:8004', base_url)
    script = script.replace(
        '"$PWD/.venv/bin', f'"{os.path.dirname(sys.executable)}')
    script = script.replace('python3 tools/dev.py',
                            f'{shlex.quote(sys.executable)} {DEV}')
    # Whatever happens, no agent is left polling.
    return ('set -eu\ntrap \'kill $(jobs -p) 2>/dev/null || true\' EXIT\n'
            + script + '\n')


def run_shell(script: str, env: dict, cwd: pathlib.Path,
              timeout: float) -> subprocess.CompletedProcess:
    proc = subprocess.Popen(['bash', '-x', '-c', script], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        raise AssertionError(f'timed out after {timeout}s\n{stdout}\n'
                             f'{stderr}')
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout,
                                       stderr)


def deployments(service, project: str = 'demo') -> list[dict]:
    base = f'{service.base_url}/v1/{project}/software_deployments'
    listed = requests.get(base, timeout=30).json()['software_deployments']
    return [requests.get(f'{base}/{d["id"]}', timeout=30).json()[
        'software_deployment'] for d in listed]


def test_readme_first_session_completes_with_the_local_agent(
        service, tmp_path):
    blocks = first_session_blocks()
    assert blocks[0] == 'python3 tools/dev.py serve', blocks
    script = as_script(blocks[1:], service.base_url)

    done = run_shell(script, shell_env(service, tmp_path), tmp_path,
                     SESSION_TIMEOUT)
    context = (f'exit {done.returncode}\n--- stdout ---\n{done.stdout}\n'
               f'--- stderr ---\n{done.stderr}\n--- service ---\n'
               f'{service.log_tail()}')
    assert done.returncode == 0, context

    # The agent printed what it runs, and the real chain ran.
    assert '==> $ . ' in done.stdout, context
    assert 'os-collect-config --config-file' in done.stdout, context
    assert '--one-time' in done.stdout, context
    assert 'Running ' in done.stdout and '55-heat-config' in done.stdout
    # The greeting, from "deployment output show ... -f value -c value".
    assert 'hello you' in done.stdout.splitlines(), context

    found = {(d['action'], tuple(sorted(d['output_values'] or {})))
             : d for d in deployments(service)}
    greeting = found[('CREATE', ('deploy_status_code', 'deploy_stderr',
                                 'deploy_stdout', 'greeting'))]
    assert greeting['status'] == 'COMPLETE', context
    assert greeting['server_id'] == 'server-1'
    assert greeting['output_values']['greeting'] == 'hello you\n'
    results = {d['action']: d for d in deployments(service)
               if 'result' in (d['output_values'] or {})}
    assert set(results) == {'CREATE', 'BACKUP'}, context
    for action, text in (('CREATE', 'created /srv/db\n'),
                         ('BACKUP', 'backed up /srv/db\n')):
        assert results[action]['status'] == 'COMPLETE', context
        assert results[action]['output_values']['result'] == text
    # trigger --wait printed the completed BACKUP.
    assert 'backed up /srv/db' in done.stdout, context
    assert 'COMPLETE' in done.stdout, context
    # The background agent ran the BACKUP and was stopped.
    agent_log = (tmp_path / 'agent.log').read_text()
    assert 'os-collect-config --config-file' in agent_log, agent_log
    assert '--one-time' not in agent_log, agent_log


def test_the_user_guide_shows_the_same_session():
    guide = (ROOT / 'doc' / 'source' / 'user' /
             'first-deployment.rst').read_text()
    shown = literal_blocks(section(guide, 'The whole session'))
    assert shown == first_session_blocks()[1:3]


def test_first_start_does_not_log_every_migration(service):
    log = service.log_tail(400)
    assert 'at schema revision' in log, log
    assert 'alembic' not in log, log


def agent(server: str, env: dict, cwd: pathlib.Path,
          *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(DEV), 'agent', server,
                           *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=AGENT_TIMEOUT)


def test_agent_once_fails_when_a_deployment_fails(service, tmp_path):
    project = f'demo-{tmp_path.name[-8:]}'
    base = f'{service.base_url}/v1/{project}'
    config = requests.post(f'{base}/software_configs', json={
        'name': 'broken', 'group': 'script',
        'config': '#!/bin/sh\necho "it broke" >&2\nexit 3\n'},
        timeout=30).json()['software_config']
    deployment = requests.post(f'{base}/software_deployments', json={
        'config_id': config['id'], 'server_id': 'server-9',
        'signal_transport': 'HEAT_SIGNAL'},
        timeout=30).json()['software_deployment']
    env = shell_env(service, tmp_path)
    env.update(OS_AUTH_TYPE='none', OS_ENDPOINT=base)

    done = agent('server-9', env, tmp_path, '--once')

    context = f'{done.stdout}\n{done.stderr}'
    assert done.returncode == 1, context
    assert (f'==> {deployment["id"]} (broken, CREATE): FAILED'
            in done.stdout), context
    assert ('error: 1 of 1 deployment(s) did not complete'
            in done.stderr), context
    assert 'Traceback' not in context


def test_agent_once_says_when_the_service_is_unreachable(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    env.update(OS_AUTH_TYPE='none', SWCONFIG_AGENT_STATE=str(tmp_path),
               OS_ENDPOINT=f'http://{processes.HOST}:'
                           f'{processes.free_port()}/v1/demo')

    done = agent('server-1', env, tmp_path, '--once')

    assert done.returncode == 1, done
    assert done.stderr.strip().splitlines()[-1] == (
        f'python3 tools/dev.py agent: error: Cannot reach swconfig at '
        f'{env["OS_ENDPOINT"]} (Connection refused). Start it with '
        f'"python3 tools/dev.py serve", or set OS_ENDPOINT to the service '
        f'you use.'), done
    assert 'Traceback' not in done.stderr
