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

"""``tools/dev.py serve``'s banner: the lines a newcomer pastes into a
second terminal must name the address the service really listens on."""

import os

from tools import dev


def test_banner_names_the_default_address_and_the_cli():
    banner = dev.serve_banner([], {})
    lines = banner.splitlines()
    assert lines[0] == ('Starting swconfig-all on http://127.0.0.1:8004 '
                        '(Ctrl-C stops it).')
    assert ('    export OS_AUTH_TYPE=none '
            'OS_ENDPOINT=http://127.0.0.1:8004/v1/demo') in lines
    assert f'    export PATH="{dev.BIN}:$PATH"  # the swconfig command' \
        in lines
    assert os.path.isabs(str(dev.BIN))
    assert any('python3 tools/dev.py agent SERVER --once' in line
               for line in lines)
    assert ('Or in a browser: '
            'http://127.0.0.1:8004/dashboard/?project=demo') in lines


def test_banner_follows_port_option_and_environment():
    env: dict[str, str] = {}
    args = dev._serve_port(['--port', '9123', '--debug'], env)
    assert args == ['--debug']
    assert 'OS_ENDPOINT=http://127.0.0.1:9123/v1/demo' in dev.serve_banner(
        args, env)
    assert 'http://127.0.0.1:9 ' in dev.serve_banner(
        [], {'OS_API__BIND_PORT': '9'})


def test_banner_reads_the_config_files(tmp_path):
    conf = tmp_path / 'my.conf'
    conf.write_text('[api]\nbind_host = 0.0.0.0\nbind_port = 8777\n')
    for args in (['--config-file', str(conf)], [f'--config-file={conf}']):
        banner = dev.serve_banner(args, {})
        # A wildcard address is reached on the loopback.
        assert 'OS_ENDPOINT=http://127.0.0.1:8777/v1/demo' in banner
    # The environment wins, as it does for oslo.config.
    assert 'http://127.0.0.1:1234/' in dev.serve_banner(
        ['--config-file', str(conf)], {'OS_API__BIND_PORT': '1234'})
    # An unreadable file is swconfig-all's to report.
    assert ':8004/v1/demo' in dev.serve_banner(
        ['--config-file', str(tmp_path / 'missing.conf')], {})


def test_the_suite_runs_in_worker_processes_unless_told_otherwise():
    workers = ['-n', '3', '--dist', 'loadfile', '--no-loadscope-reorder']
    assert dev.pytest_args([]) == workers
    assert dev.pytest_args(['-k', 'metadata']) == [*workers, '-k',
                                                   'metadata']
    for chosen in (['-n', '0'], ['-n0'], ['--numprocesses=2'],
                   ['--dist', 'load'], ['-p', 'no:xdist'],
                   ['tests/unit', '-n', 'auto']):
        assert dev.pytest_args(chosen) == chosen


def test_uv_on_path_is_used_and_pip_can_be_chosen(tmp_path, monkeypatch):
    uv = tmp_path / 'uv'
    uv.write_text('#!/bin/sh\n')
    uv.chmod(0o755)
    monkeypatch.setenv('PATH', f'{tmp_path}{os.pathsep}{os.environ["PATH"]}')
    monkeypatch.delenv('SWCONFIG_INSTALLER', raising=False)
    assert dev.find_uv() == uv
    monkeypatch.setenv('SWCONFIG_INSTALLER', 'pip')
    assert dev.find_uv() is None


def test_uv_is_installed_once_into_its_own_venv(tmp_path, monkeypatch):
    """Without uv on PATH, it is installed into ``UV_HOME`` the first
    time and found there afterwards; a failed install means pip."""
    monkeypatch.setattr(dev.shutil, 'which', lambda name: None)
    monkeypatch.delenv('SWCONFIG_INSTALLER', raising=False)
    home = tmp_path / 'uv-home'
    monkeypatch.setattr(dev, 'UV_HOME', home)
    made = []

    class _Builder:
        def __init__(self, **options):
            pass

        def create(self, path):
            made.append(path)
            (path / 'bin').mkdir(parents=True, exist_ok=True)

    def installing(command, **kwargs):
        assert command[-1] == 'uv'
        (home / 'bin' / 'uv').write_text('')
        return dev.subprocess.CompletedProcess(command, 0, '', '')

    monkeypatch.setattr(dev.venv, 'EnvBuilder', _Builder)
    monkeypatch.setattr(dev.subprocess, 'run', installing)
    assert dev.find_uv() == home / 'bin' / 'uv'
    assert dev.find_uv() == home / 'bin' / 'uv'
    assert made == [home]
    # This python3's pip cannot install into the venv: the venv's own.
    (home / 'bin' / 'uv').unlink()
    monkeypatch.setattr(
        dev.subprocess, 'run', lambda command, **kwargs: (
            dev.subprocess.CompletedProcess(command, 1, '', '')
            if '--python' in command else installing(command)))
    assert dev.find_uv() == home / 'bin' / 'uv'
    assert made == [home] * 3
    (home / 'bin' / 'uv').unlink()
    monkeypatch.setattr(dev.subprocess, 'run',
                        lambda command, **kwargs:
                        dev.subprocess.CompletedProcess(command, 1, '', ''))
    assert dev.find_uv() is None
