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

"""`python3 tools/dev.py serve` on a fresh virtualenv: it installs the
runtime requirements only, quietly, with one line of progress, prints the
lines for a second terminal, and the embedded default answers on the port
it was given, without alembic's log lines."""

import os
import pathlib
import signal
import subprocess
import sys
import time

import requests

from tests.fixtures import processes

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: uv (or pip, where uv cannot be had) downloads, or takes from its
#: cache, about a hundred packages.
SERVES_WITHIN = 600


def test_serve_from_a_fresh_venv_installs_runtime_requirements_only(
        tmp_path):
    venv = tmp_path / 'venv'
    port = processes.free_port()
    log_path = tmp_path / 'serve.log'
    env = dict(os.environ, SWCONFIG_VENV=str(venv),
               OS_DEFAULT__STATE_PATH=str(tmp_path / 'state'))
    env.pop('VIRTUAL_ENV', None)
    with open(log_path, 'wb') as log:
        serve = subprocess.Popen(
            [sys.executable, str(ROOT / 'tools' / 'dev.py'), 'serve',
             '--port', str(port)], stdout=log, stderr=subprocess.STDOUT,
            env=env, cwd=tmp_path, start_new_session=True)
    try:
        deadline = time.monotonic() + SERVES_WITHIN
        while True:
            try:
                reply = requests.get(f'http://{processes.HOST}:{port}/',
                                     timeout=5)
                break
            except requests.ConnectionError:
                assert serve.poll() is None, log_path.read_text()
                assert time.monotonic() < deadline, log_path.read_text()
                time.sleep(1)
        assert reply.status_code == 200
        assert reply.json()['versions'][0]['id'] == 'v1.0'
    finally:
        os.killpg(serve.pid, signal.SIGTERM)
        serve.wait(30)
    output = log_path.read_text().splitlines()
    # One line of progress, then only the service's own log: nothing of
    # pip's (it used to print some 350 lines of warnings).
    assert output[0].startswith(f'Setting up {venv} ')
    assert [line for line in output if 'Setting up' in line] == output[:1]
    pip_words = ('Collecting', 'Downloading', 'Installing', 'Requirement',
                 'DEPRECATION', 'pip ', 'wheel')
    assert not [line for line in output
                if any(word in line for word in pip_words)], output
    # What to paste into a second terminal, for this port.
    assert (f'    export OS_AUTH_TYPE=none OS_ENDPOINT=http://'
            f'{processes.HOST}:{port}/v1/demo') in output, output
    assert f'    export PATH="{venv}/bin:$PATH"  # the swconfig command' \
        in output, output
    assert not [line for line in output if 'alembic' in line], output
    # The first start prints no warning of a library (deprecations...),
    # and the service's own noauth warning once.
    assert not [line for line in output if 'Warning' in line], output
    assert len([line for line in output
                if 'auth_strategy is noauth' in line]) == 1, output
    # The test tool-chain is not part of a runtime install.
    for tool in ('pytest', 'schemathesis', 'ruff'):
        missing = subprocess.run([str(venv / 'bin' / 'python'), '-c',
                                  f'import {tool}'], capture_output=True)
        assert missing.returncode != 0, f'{tool} was installed'
    assert (tmp_path / 'state' / 'swconfig.sqlite').exists()
