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

"""Start-up failures of the real console scripts: each exits non-zero
within seconds with one line on stderr, instead of a traceback or of a
launcher restarting a worker for ever; and an unreachable message bus is
not one of them: the API binds, serves reads and agents, answers writes
503, and stops at once.
"""

import os
import signal
import socket
import subprocess
import time
import uuid

import pytest
import requests

from tests.fixtures import agent_stacks
from tests.fixtures import processes

#: Seconds a failing start may take before the test calls it a hang: it
#: takes one or two on an idle machine, but a run of the suite on a busy
#: 2-core machine (its vCPUs also stolen by the host) took over 20.
EXIT_WITHIN = 90
SIGNING_KEY = 'test:' + 'k' * 32


@pytest.fixture
def sections(tmp_path):
    """A working configuration (noauth, SQLite in tmp_path, a free port,
    logs in a file) for a test to spoil."""
    return {
        'DEFAULT': {'auth_strategy': 'noauth',
                    'state_path': str(tmp_path / 'state'),
                    'log_file': str(tmp_path / 'swconfig.log')},
        'api': {'bind_host': processes.HOST,
                'bind_port': processes.free_port()},
        'agent': {'signing_keys': SIGNING_KEY},
        'engine': {'topic': f'swconfig-test-{uuid.uuid4().hex}'},
    }


def run(script: str, config_file: str) -> subprocess.CompletedProcess:
    """Run ``script`` to its end, failing the test if it runs on."""
    return subprocess.run(
        [processes.script(script), '--config-file', config_file],
        capture_output=True, text=True, timeout=EXIT_WITHIN, check=False)


def the_error(result: subprocess.CompletedProcess, script: str) -> str:
    """The one line a failed start printed on stderr."""
    assert result.returncode != 0, result.stdout + result.stderr
    assert 'Traceback' not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f'{script}: error: '), lines[0]
    return lines[0]


def write(tmp_path, sections: dict) -> str:
    return processes.write_config(str(tmp_path / 'swconfig.conf'), sections)


@pytest.mark.parametrize('script, workers', [
    ('swconfig-api', 1), ('swconfig-api', 2), ('swconfig-all', 1)])
def test_port_in_use_fails_once_with_one_line(tmp_path, sections, script,
                                              workers):
    sections['api']['workers'] = workers
    port = sections['api']['bind_port']
    with socket.socket() as holder:
        holder.bind((processes.HOST, port))
        holder.listen()
        result = run(script, write(tmp_path, sections))
    line = the_error(result, script)
    assert f'{processes.HOST}:{port}' in line
    assert 'Address already in use' in line
    assert result.returncode == 1


def test_engine_without_signing_key_fails_once(tmp_path, sections):
    del sections['agent']
    result = run('swconfig-engine', write(tmp_path, sections))
    assert 'signing key' in the_error(result, 'swconfig-engine')
    assert result.returncode == 2


def test_keystone_without_authtoken_section_refuses_to_start(
        tmp_path, sections):
    sections['DEFAULT']['auth_strategy'] = 'keystone'
    result = run('swconfig-api', write(tmp_path, sections))
    line = the_error(result, 'swconfig-api')
    assert '[keystone_authtoken]' in line and 'auth_type' in line


def test_keystone_without_auth_url_names_it(tmp_path, sections):
    sections['DEFAULT']['auth_strategy'] = 'keystone'
    sections['keystone_authtoken'] = {'auth_type': 'password',
                                      'username': 'swconfig'}
    result = run('swconfig-api', write(tmp_path, sections))
    assert 'auth_url' in the_error(result, 'swconfig-api')


def test_bad_option_value_names_option_and_file(tmp_path, sections):
    sections['api']['bind_port'] = 'abc'
    config_file = write(tmp_path, sections)
    result = run('swconfig-api', config_file)
    line = the_error(result, 'swconfig-api')
    assert '[api] bind_port' in line and config_file in line
    assert "'abc'" in line
    assert result.returncode == 2


@pytest.mark.parametrize('script', ['swconfig-api', 'swconfig-engine',
                                    'swconfig-all'])
def test_unknown_database_dialect_is_one_line_naming_the_option(
        tmp_path, sections, script):
    """A typo in the dialect used to pass start-up and fail at the first
    query: a traceback, or a 500 on every request."""
    sections['database'] = {
        'connection': 'mysq+pymysql://swconfig:secret@127.0.0.1/swconfig'}
    config_file = write(tmp_path, sections)
    result = run(script, config_file)
    line = the_error(result, script)
    assert f'[database] connection in {config_file}' in line
    assert "'mysq+pymysql'" in line and 'mysql+pymysql' in line
    assert 'secret' not in line
    assert result.returncode == 2


def test_missing_config_file_is_one_line(tmp_path):
    missing = str(tmp_path / 'nowhere.conf')
    result = run('swconfig-engine', missing)
    assert missing in the_error(result, 'swconfig-engine')
    assert result.returncode == 2


@pytest.fixture
def launched(tmp_path):
    started = []

    def _launch(script: str, sections: dict) -> processes.SwconfigProcess:
        process = processes.SwconfigProcess(script, write(tmp_path, sections),
                                            str(tmp_path))
        started.append(process)
        return process.start()

    yield _launch
    for process in started:
        process.stop()


def _read_log(sections: dict) -> str:
    with open(sections['DEFAULT']['log_file']) as handle:
        return handle.read()


def test_unknown_option_is_a_warning_and_the_service_runs(sections,
                                                          launched):
    sections['api']['bind_prot'] = 1234
    api = launched('swconfig-all', sections)
    base_url = f'http://{processes.HOST}:{sections["api"]["bind_port"]}'
    processes.wait_for_http(base_url + '/', api)
    reply = requests.get(f'{base_url}/v1/p-{uuid.uuid4().hex[:8]}/'
                         f'software_configs', timeout=10)
    assert reply.status_code == 200, reply.text
    warnings = [line for line in _read_log(sections).splitlines()
                if 'Unknown option' in line]
    assert len(warnings) == 1, warnings
    assert 'WARNING' in warnings[0]
    assert 'bind_prot in section [api]' in warnings[0]
    assert 'did you mean bind_port?' in warnings[0]


def _sync_database(config_file: str) -> None:
    synced = subprocess.run(
        [processes.script('swconfig-manage'), '--config-file', config_file,
         'db', 'sync'], capture_output=True, text=True, timeout=120,
        check=False)
    assert synced.returncode == 0, synced.stdout + synced.stderr


@pytest.mark.parametrize('script', ['swconfig-api', 'swconfig-all'])
def test_unreachable_message_bus(tmp_path, sections, launched, script):
    """Nothing listens on the broker's port: the API binds anyway, reads
    and agent polls answer, a write answers 503 with Retry-After within
    the RPC timeout, and SIGTERM ends the service within 10 s."""
    timeout = 3
    sections['DEFAULT']['transport_url'] = (
        f'rabbit://guest:guest@{processes.HOST}:{processes.free_port()}/')
    sections['engine']['rpc_response_timeout'] = timeout
    if script == 'swconfig-api':
        _sync_database(write(tmp_path, sections))
    service = launched(script, sections)
    base_url = f'http://{processes.HOST}:{sections["api"]["bind_port"]}'
    processes.wait_for_http(base_url + '/', service, timeout=30)
    configs = f'{base_url}/v1/p-{uuid.uuid4().hex[:8]}/software_configs'

    listed = requests.get(configs, timeout=10)
    assert listed.status_code == 200, listed.text
    assert listed.json() == {'software_configs': []}
    poll = requests.get(f'{base_url}/agent/servers/{uuid.uuid4()}/metadata',
                        params={'token': 'x'}, timeout=10)
    assert poll.status_code in (403, 404), poll.text
    assert 'error' in poll.json()

    started = time.monotonic()
    created = requests.post(configs, json={'name': 'a', 'group': 'script',
                                           'config': 'true'}, timeout=30)
    assert created.status_code == 503, created.text
    assert created.headers['Retry-After'].isdigit()
    assert created.json()['error']['type'] == 'ServiceUnavailable'
    assert time.monotonic() - started < timeout + 5

    stop_by = time.monotonic() + 10
    service.signal(signal.SIGTERM)
    service.process.wait(10)
    assert _group_gone(service.process.pid, stop_by), 'a worker lingers'


def _group_gone(pgid: int, deadline: float) -> bool:
    """Whether every process of the group (the workers too) has ended by
    ``deadline``."""
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_writes_work_once_the_message_bus_is_up(tmp_path, sections,
                                               launched):
    """swconfig-all started before its broker: writes answer 503 until
    the broker runs, then the engine connects and they succeed."""
    broker = agent_stacks.PrivateRabbitMQ(tmp_path / 'rabbitmq')
    del sections['DEFAULT']['log_file']  # wait_for_log reads the output
    sections['DEFAULT']['transport_url'] = broker.url
    sections['engine']['rpc_response_timeout'] = 3
    service = launched('swconfig-all', sections)
    base_url = f'http://{processes.HOST}:{sections["api"]["bind_port"]}'
    processes.wait_for_http(base_url + '/', service, timeout=30)
    configs = f'{base_url}/v1/p-{uuid.uuid4().hex[:8]}/software_configs'
    body = {'name': 'a', 'group': 'script', 'config': 'true'}
    refused = requests.post(configs, json=body, timeout=30)
    assert refused.status_code == 503, refused.text
    try:
        broker.start()
        service.wait_for_log(processes.ENGINE_READY, timeout=90)
        # The API's own connection comes back at its next reconnection
        # attempt: 503 with Retry-After until then, as a client sees it.
        deadline = time.monotonic() + 60
        while True:
            created = requests.post(configs, json=body, timeout=30)
            if created.status_code != 503 or time.monotonic() > deadline:
                break
            assert created.headers['Retry-After'].isdigit()
            time.sleep(1)
        assert created.status_code == 200, created.text
        listed = requests.get(configs, timeout=10).json()
        # Not "== [it]": the engine refuses a call that reaches it after
        # the API gave up, but one it applies just before while the
        # reply is lost (the API's reply queue is not back yet) was
        # answered 503 too. Only an idempotency key closes that window.
        assert created.json()['software_config']['id'] in [
            c['id'] for c in listed['software_configs']]
    finally:
        service.stop()
        broker.stop()


@pytest.mark.parametrize('script', ['swconfig-api', 'swconfig-engine',
                                    'swconfig-all'])
def test_help_lists_the_configuration_file_options(script):
    result = subprocess.run([processes.script(script), '--help'],
                            capture_output=True, text=True,
                            timeout=EXIT_WITHIN, check=False)
    assert result.returncode == 0, result.stderr
    help_text = ' '.join(result.stdout.split())
    for name in ('[api] ', 'bind_port', '[agent] ', 'signing_keys',
                 '[DEFAULT] ', 'auth_strategy', '[keystone_authtoken]',
                 'swconfig.conf.sample', 'generator --namespace swconfig'):
        assert name in help_text, name


@pytest.mark.parametrize('script, says', [
    ('swconfig-all', ['http://127.0.0.1:8004', 'SQLite', 'state_path',
                      'in-process message bus']),
    ('swconfig-api', ['http://127.0.0.1:8004', '[database] connection',
                      'transport_url']),
    ('swconfig-engine', ['transport_url', '[database] connection',
                         'no port']),
])
def test_help_says_what_runs_where_data_goes_and_the_port(script, says):
    result = subprocess.run([processes.script(script), '--help'],
                            capture_output=True, text=True,
                            timeout=EXIT_WITHIN, check=False)
    assert result.returncode == 0, result.stderr
    help_text = ' '.join(result.stdout.split())
    for words in says:
        assert words in help_text, words
