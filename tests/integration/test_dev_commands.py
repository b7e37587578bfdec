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

"""``python3 tools/dev.py`` as a newcomer first types it: ``--help``
succeeds, a mistyped command is named, ``serve --help`` is serve's own
help and starts nothing, and a port in use says how to pick another,
before anything is installed (each run names a virtualenv that must stay
absent)."""

import os
import pathlib
import socket
import subprocess
import sys

from tests.fixtures import processes

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _dev(tmp_path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SWCONFIG_VENV=str(tmp_path / 'venv'))
    env.pop('VIRTUAL_ENV', None)
    done = subprocess.run([sys.executable, str(ROOT / 'tools' / 'dev.py'),
                           *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60,
                          check=False)
    assert not (tmp_path / 'venv').exists(), 'it set up a virtualenv'
    return done


def test_help_succeeds_and_lists_the_commands(tmp_path):
    for flag in ('--help', '-h'):
        shown = _dev(tmp_path, flag)
        assert shown.returncode == 0, shown
        assert shown.stdout.startswith('Set up a private virtualenv')
        assert 'python3 tools/dev.py serve [--port N]' in shown.stdout
        assert shown.stderr == ''


def test_an_unknown_command_is_named(tmp_path):
    typo = _dev(tmp_path, 'serv')
    assert typo.returncode == 2, typo
    assert typo.stderr == (
        "tools/dev.py: unknown command 'serv'; the commands are serve, "
        'test, agent, docs, releasenotes, genconfig, genpolicy (python3 '
        'tools/dev.py --help says what each does).\n')
    assert typo.stdout == ''


def test_serve_help_is_serve_s_own_and_starts_nothing(tmp_path):
    shown = _dev(tmp_path, 'serve', '--help')
    assert shown.returncode == 0, shown
    assert shown.stdout.startswith(
        'usage: python3 tools/dev.py serve [--port N] [swconfig-all '
        'options...]\n')
    assert '  --port N ' in shown.stdout
    assert 'Starting swconfig-all' not in shown.stdout


def test_a_busy_port_says_use_another(tmp_path):
    port = processes.free_port()
    with socket.socket() as taken:
        taken.bind((processes.HOST, port))
        taken.listen()
        busy = _dev(tmp_path, 'serve', '--port', str(port))
    assert busy.returncode == 1, busy
    assert busy.stderr == (
        f'tools/dev.py serve: port {port} of {processes.HOST} is in use '
        f'(another swconfig-all?); stop that one, or use "python3 '
        f'tools/dev.py serve --port N" with a free port N.\n')
    assert 'Starting swconfig-all' not in busy.stdout
