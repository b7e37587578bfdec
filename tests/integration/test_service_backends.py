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

"""Smoke tests of the real console scripts on both concurrency backends.

swconfig-all on eventlet and on threading serves configs and stops cleanly
on SIGTERM; its embedded default needs nothing but a state_path; and
swconfig-api with two workers serves alongside a separate swconfig-engine
over RabbitMQ.
"""

import os
import secrets
import signal
import subprocess
import time
import uuid

import psutil
import pytest
import requests
import sqlalchemy as sa

from swconfig.common import config
from swconfig.db import migration
from tests.fixtures import processes
from tests.fixtures import services

TIMEOUT = 30


@pytest.fixture
def launch(tmp_path):
    """``launch(script, sections)``: start a console script with a config
    file of its own; every process started is stopped at teardown."""
    started = []

    def _launch(name: str, sections: dict) -> processes.SwconfigProcess:
        config_file = processes.write_config(
            str(tmp_path / f'{name}-{len(started)}.conf'), sections)
        process = processes.SwconfigProcess(name, config_file,
                                            str(tmp_path))
        started.append(process)
        return process.start()

    yield _launch
    for process in reversed(started):
        process.stop()


def api_sections(port: int, **default: object) -> dict:
    return {'DEFAULT': default,
            'api': {'bind_host': processes.HOST, 'bind_port': port}}


def configs_url(base_url: str, project: str) -> str:
    return f'{base_url}/v1/{project}/software_configs'


def create_config(session: requests.Session, url: str, name: str) -> str:
    reply = session.post(url, json={'name': name, 'group': 'script',
                                    'config': 'echo hello'},
                         timeout=TIMEOUT)
    assert reply.status_code == 200, reply.text
    return reply.json()['software_config']['id']


def create_list_delete(base_url: str) -> None:
    url = configs_url(base_url, f'p-{uuid.uuid4().hex[:12]}')
    with requests.Session() as session:
        config_id = create_config(session, url, 'smoke')
        listed = session.get(url, timeout=TIMEOUT)
        assert listed.status_code == 200, listed.text
        assert [c['id'] for c in listed.json()['software_configs']] == [
            config_id]
        deleted = session.delete(f'{url}/{config_id}', timeout=TIMEOUT)
        assert deleted.status_code == 204, deleted.text
        gone = session.get(f'{url}/{config_id}', timeout=TIMEOUT)
        assert gone.status_code == 404, gone.text
        assert session.get(url, timeout=TIMEOUT).json() == {
            'software_configs': []}


def process_tree(process: processes.SwconfigProcess) -> list[psutil.Process]:
    main = psutil.Process(process.process.pid)
    return [main, *main.children(recursive=True)]


def read_log(process: processes.SwconfigProcess) -> str:
    with open(process.log_path, errors='replace') as handle:
        return handle.read()


def assert_stops_cleanly(process: processes.SwconfigProcess,
                         port: int) -> None:
    """SIGTERM to the main process alone ends it, and every worker it
    started, with status 0 and nothing logged as an error."""
    tree = process_tree(process)
    os.kill(process.process.pid, signal.SIGTERM)
    try:
        status = process.process.wait(TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f'{process.name} ignored SIGTERM:\n{process.log_tail()}')
    assert status == 0, process.log_tail()
    _gone, alive = psutil.wait_procs(tree, timeout=10)
    assert not alive, f'left running after SIGTERM: {alive}'
    assert not services.port_open(port)
    log = read_log(process)
    assert 'Traceback' not in log and ' ERROR ' not in log, log


@pytest.mark.parametrize('backend', ['eventlet', None],
                         ids=['eventlet', 'threading-default'])
def test_swconfig_all_serves_and_stops_on_sigterm(launch, tmp_path, backend):
    port = processes.free_port()
    default = {'state_path': tmp_path / 'state'}
    if backend:
        default['service_backend'] = backend
    process = launch('swconfig-all', api_sections(port, **default))
    base_url = f'http://{processes.HOST}:{port}'
    processes.wait_for_http(base_url + '/', process, timeout=TIMEOUT)

    create_list_delete(base_url)

    assert_stops_cleanly(process, port)


def test_swconfig_all_embedded_default(launch, tmp_path):
    """Only state_path and the port configured: SQLite in state_path at
    the head revision, in-process RPC (no connection to RabbitMQ)."""
    state_path = tmp_path / 'state'
    port = processes.free_port()
    process = launch('swconfig-all', {
        'DEFAULT': {'state_path': state_path},
        'api': {'bind_port': port}})
    base_url = f'http://{processes.HOST}:{port}'
    processes.wait_for_http(base_url + '/', process, timeout=TIMEOUT)

    create_list_delete(base_url)

    database = state_path / config.SQLITE_FILE
    assert database.is_file()
    engine = sa.create_engine(config.sqlite_url(str(state_path)))
    try:
        assert migration.version(engine) == migration.heads()[0]
    finally:
        engine.dispose()
    remote_ports = {connection.raddr.port
                    for member in process_tree(process)
                    for connection in member.net_connections('tcp')
                    if connection.raddr}
    assert services.RABBITMQ_PORT not in remote_ports


def wait_for_log(process: processes.SwconfigProcess, text: str, count: int,
                 timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while read_log(process).count(text) < count:
        process.assert_alive()
        if time.monotonic() > deadline:
            pytest.fail(f'{count} x {text!r} not logged in {timeout}s:\n'
                        f'{process.log_tail()}')
        time.sleep(0.2)


def test_api_workers_with_separate_engine_over_rabbitmq(launch, tmp_path):
    services.ensure_rabbitmq()
    port = processes.free_port()
    sections = {
        'DEFAULT': {'auth_strategy': 'noauth',
                    'transport_url': services.RABBIT_URL,
                    'state_path': tmp_path / 'state'},
        'api': {'bind_host': processes.HOST, 'bind_port': port,
                'workers': 2},
        'engine': {'topic': f'swconfig-test-{uuid.uuid4().hex}'},
        'agent': {'signing_keys': f'test:{secrets.token_urlsafe(24)}'},
    }
    sync = subprocess.run(
        [processes.script('swconfig-manage'), '--config-file',
         processes.write_config(str(tmp_path / 'manage.conf'), sections),
         'db', 'sync'], capture_output=True, text=True, timeout=60)
    assert sync.returncode == 0, sync.stdout + sync.stderr
    engine = launch('swconfig-engine', sections)
    api = launch('swconfig-api', sections)
    wait_for_log(engine, 'listening on topic', 1)
    wait_for_log(api, 'API listening on', 2)

    # One connection per request, each kept open: the kernel spreads
    # connections over the workers' SO_REUSEPORT sockets by their ports.
    url = configs_url(f'http://{processes.HOST}:{port}',
                      f'p-{uuid.uuid4().hex[:12]}')
    sessions = [requests.Session() for _ in range(20)]
    try:
        created = {create_config(session, url, f'config-{number}')
                   for number, session in enumerate(sessions)}
        serving = {member.pid for member in process_tree(api)
                   for connection in member.net_connections('tcp')
                   if connection.laddr.port == port
                   and connection.status == psutil.CONN_ESTABLISHED}
    finally:
        for session in sessions:
            session.close()

    assert len(created) == 20
    assert len(serving) == 2, f'connections served by {serving}'
    listed = requests.get(url, timeout=TIMEOUT)
    assert listed.status_code == 200, listed.text
    assert {c['id'] for c in listed.json()['software_configs']} == created
    api.assert_alive()
    engine.assert_alive()
