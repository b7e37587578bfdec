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

"""tools/local_agent.py's own decisions: which service it talks to, the
os-collect-config.conf it writes, and its arguments. The agent itself
runs in tests/integration/test_local_agent.py."""

import configparser

import pytest

from tools import local_agent


def test_the_local_serve_is_the_default_service():
    service = local_agent.Service.from_environ({})
    assert service.endpoint == 'http://127.0.0.1:8004/v1/demo'
    assert service.token is None


def test_endpoint_and_token_come_from_the_cli_variables():
    service = local_agent.Service.from_environ({
        'OS_ENDPOINT': 'https://cloud.example:8004/v1/p1/',
        'OS_AUTH_TYPE': 'token', 'OS_TOKEN': 'gAAAA'})
    assert service.endpoint == 'https://cloud.example:8004/v1/p1'
    assert service.token == 'gAAAA'
    # noauth sends no token, as the CLI does.
    assert local_agent.Service.from_environ({
        'OS_AUTH_TYPE': 'none', 'OS_TOKEN': 'gAAAA'}).token is None


@pytest.mark.parametrize(('environ', 'words'), [
    ({'OS_ENDPOINT': '127.0.0.1:8004/v1/demo'}, 'is not an http(s) URL'),
    ({'OS_ENDPOINT': 'file:///etc/passwd'}, 'is not an http(s) URL'),
    ({'OS_AUTH_TYPE': 'password'}, 'OS_AUTH_TYPE=password needs a '
                                   'Keystone token'),
])
def test_a_service_it_cannot_use_is_refused_with_a_sentence(environ,
                                                            words):
    with pytest.raises(local_agent.AgentError) as raised:
        local_agent.Service.from_environ(environ)
    assert words in str(raised.value)


def test_os_collect_config_conf_is_the_services_with_this_agents_dirs(
        tmp_path):
    server = local_agent.ServerDir(tmp_path / 'server-1')
    server.root.mkdir()
    url = 'http://127.0.0.1:8004/agent/servers/server-1/metadata?token=k.%s'
    server.write_occ_config({'collectors': ['request'],
                             'request': {'metadata_url': url},
                             'polling_interval': 30}, 2.5)

    parser = configparser.ConfigParser(interpolation=None)
    parser.read(server.occ_config)
    assert parser['DEFAULT']['collectors'] == 'request'
    assert parser['DEFAULT']['polling_interval'] == '2.5'
    assert parser['DEFAULT']['cachedir'] == str(server.cachedir)
    assert parser['DEFAULT']['command'] == (
        f'os-refresh-config --lockfile {server.root}/os-refresh-config.lock')
    assert parser['request']['metadata_url'] == url


def test_only_items_with_a_signal_input_are_waited_for():
    assert local_agent._signals({'inputs': [
        {'name': 'deploy_signal_id', 'value': 'http://x/signal'}]})
    assert not local_agent._signals({'inputs': [
        {'name': 'deploy_server_id', 'value': 'server-1'}]})
    assert not local_agent._signals({})


def test_arguments(capsys):
    options = local_agent.parse_args(['server-1', '--once'])
    assert (options.server, options.once, options.interval) == (
        'server-1', True, local_agent.DEFAULT_INTERVAL)
    with pytest.raises(SystemExit) as raised:
        local_agent.parse_args(['server-1', '--interval', '0'])
    assert raised.value.code == 2
    assert '--interval takes a number of seconds above 0' in (
        capsys.readouterr().err)


@pytest.mark.parametrize('uv', [True, False], ids=['uv', 'pip'])
def test_the_agents_venv_is_installed_with_uv_if_it_can_be_had(
        uv, tmp_path, monkeypatch):
    ran = []

    def run(command, failure=None):
        ran.append([str(part) for part in command])
        (tmp_path / 'agent').mkdir(exist_ok=True)  # as an installer would

    class Builder:
        def __init__(self, **kwargs):
            pass

        def create(self, path):
            run(['venv', path])

    monkeypatch.setattr(local_agent, '_uv',
                        lambda: tmp_path / 'uv' if uv else None)
    monkeypatch.setattr(local_agent, '_run_installer', run)
    monkeypatch.setattr(local_agent.venv, 'EnvBuilder', Builder)
    bin_dir = local_agent.ensure_venv(tmp_path / 'agent')
    assert bin_dir == tmp_path / 'agent' / 'bin'
    installed = ran[-1]
    assert installed[-len(local_agent.REQUIREMENTS):] == list(
        local_agent.REQUIREMENTS)
    if uv:
        assert [command[:2] for command in ran] == [
            [str(tmp_path / 'uv'), 'venv'], [str(tmp_path / 'uv'), 'pip']]
    else:
        assert ran[0] == ['venv', str(tmp_path / 'agent')]
        assert installed[1:4] == ['-m', 'pip', 'install']
    # Installed once: the next call finds the stamp.
    count = len(ran)
    local_agent.ensure_venv(tmp_path / 'agent')
    assert len(ran) == count
