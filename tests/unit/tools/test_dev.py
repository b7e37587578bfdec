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
    assert dev.pytest_args([]) == ['-n', '3', '--dist', 'loadfile']
    assert dev.pytest_args(['-k', 'metadata']) == [
        '-n', '3', '--dist', 'loadfile', '-k', 'metadata']
    for chosen in (['-n', '0'], ['-n0'], ['--numprocesses=2'],
                   ['--dist', 'load'], ['-p', 'no:xdist'],
                   ['tests/unit', '-n', 'auto']):
        assert dev.pytest_args(chosen) == chosen
