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

"""The recipes of doc/source/admin/production.rst, run as written.

Each recipe is a code block of the page with a ``:name:``; the test takes
it from the page, replaces the example names (``swconfig``, ``SECRET``,
the hosts, the ``/etc`` and ``/usr/local/bin`` paths) with its own, and
runs it: the SQL on the machine's MariaDB and PostgreSQL, then
``swconfig-manage db sync`` as the user it made; the ``rabbitmqctl``
commands on a private RabbitMQ node; and the services as their systemd
units start them (``ExecStart``), the API under uWSGI with the page's
ini file, the engines as the plain and the template unit run them. The
units pass ``systemd-analyze verify``.
"""

from collections.abc import Iterator
import contextlib
import os
import pathlib
import re
import secrets
import shlex
import signal
import subprocess
import textwrap
import time
import uuid

import pytest
import requests
import sqlalchemy as sa

from swconfig.db import migration
from tests.fixtures import agent_stacks
from tests.fixtures import processes
from tests.fixtures import services

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = ROOT / 'doc' / 'source' / 'admin' / 'production.rst'


def recipe(name: str) -> str:
    """The code block of the page named ``name``, dedented."""
    match = re.search(
        rf'^\.\. code-block:: \S+\n   :name: {re.escape(name)}\n\n'
        rf'((?:   .*\n|\n)+)', PAGE.read_text(), re.MULTILINE)
    assert match, f'{PAGE} has no code block named {name}'
    return textwrap.dedent(match[1]).strip() + '\n'


def documented_url(scheme: str) -> str:
    """The ``connection =`` or ``transport_url =`` example of the page
    that starts with ``scheme``."""
    match = re.search(rf'^\s*(?:connection|transport_url) = '
                      rf'({re.escape(scheme)}\S+)$', PAGE.read_text(),
                      re.MULTILINE)
    assert match, f'{PAGE} has no {scheme} URL'
    return match[1]


class Names:
    """The test's own names for the page's examples."""

    def __init__(self) -> None:
        self.name = f'swconfig_doc_{uuid.uuid4().hex[:10]}'
        self.password = secrets.token_hex(12)

    def apply(self, text: str) -> str:
        text = re.sub(r'\bswconfig\b', self.name, text)
        return text.replace('SECRET', self.password)


def _statements(sql: str) -> list[str]:
    return [part.strip() for part in sql.split(';') if part.strip()]


def _sync(url: str, tmp_path: pathlib.Path) -> str:
    config_file = processes.write_config(
        str(tmp_path / 'sync.conf'), {'database': {'connection': url}})
    synced = subprocess.run(
        [processes.script('swconfig-manage'), '--config-file', config_file,
         'db', 'sync'], capture_output=True, text=True, timeout=120,
        check=False)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    return synced.stdout.strip()


@contextlib.contextmanager
def mariadb_recipe(names: Names) -> Iterator[str]:
    """Run the MariaDB recipe; yield the page's connection URL for it."""
    services.ensure_mariadb()
    admin = sa.create_engine(services.SERVER_URLS['mysql'] + '/',
                             isolation_level='AUTOCOMMIT')
    try:
        with admin.connect() as connection:
            for statement in _statements(names.apply(
                    recipe('recipe-mariadb'))):
                connection.execute(sa.text(statement))
        url = names.apply(documented_url('mysql+pymysql://')).replace(
            '@db.example.com/', f'@{processes.HOST}:'
                                f'{services.MARIADB_PORT}/')
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(
                f'DROP DATABASE IF EXISTS {names.name}'))
            connection.execute(sa.text(
                f"DROP USER IF EXISTS '{names.name}'@'%'"))
        admin.dispose()


def test_the_mariadb_recipe_gives_swconfig_its_database(tmp_path):
    names = Names()
    with mariadb_recipe(names) as url:
        assert url.endswith(f'/{names.name}?charset=utf8mb4'), url
        assert _sync(url, tmp_path) == (
            f'Database is at revision {migration.heads()[0]}')


def test_the_postgresql_recipe_gives_swconfig_its_database(tmp_path):
    services.ensure_postgresql()
    names = Names()
    admin = sa.create_engine(services.SERVER_URLS['postgresql'] +
                             '/postgres', isolation_level='AUTOCOMMIT')
    try:
        with admin.connect() as connection:
            for statement in _statements(names.apply(
                    recipe('recipe-postgresql'))):
                connection.execute(sa.text(statement))
        url = names.apply(documented_url('postgresql+psycopg2://')).replace(
            '@db.example.com/', f'@{processes.HOST}:'
                                f'{services.POSTGRESQL_PORT}/')
        assert _sync(url, tmp_path) == (
            f'Database is at revision {migration.heads()[0]}')
        # The tables are the recipe's user's, in its own database.
        engine = sa.create_engine(url)
        with engine.connect() as connection:
            owner = connection.scalar(sa.text(
                "SELECT tableowner FROM pg_tables WHERE tablename = "
                "'software_deployment'"))
        engine.dispose()
        assert owner == names.name
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(
                'SELECT pg_terminate_backend(pid) FROM pg_stat_activity '
                'WHERE datname = :name'), {'name': names.name})
            connection.execute(sa.text(
                f'DROP DATABASE IF EXISTS {names.name}'))
            connection.execute(sa.text(f'DROP USER IF EXISTS {names.name}'))
        admin.dispose()


# -- the message bus and the services, as systemd starts them ---------------

class Paths:
    """Where the page's paths are in this test."""

    def __init__(self, tmp_path: pathlib.Path) -> None:
        self.tmp_path = tmp_path
        self.conf = tmp_path / 'swconfig.conf'
        self.ini = tmp_path / 'swconfig-api-uwsgi.ini'

    def apply(self, text: str, instance: str | None = None) -> str:
        if instance is not None:
            text = text.replace('%i', instance)
        text = re.sub(r'/usr/local/bin/(\S+)',
                      lambda m: processes.script(m[1]), text)
        text = text.replace('/etc/swconfig/swconfig-api-uwsgi.ini',
                            str(self.ini))
        text = text.replace('/etc/swconfig/', f'{self.tmp_path}/')
        return text


def exec_start(unit: str, paths: Paths,
               instance: str | None = None) -> list[str]:
    lines = [line for line in unit.splitlines()
             if line.startswith('ExecStart=')]
    assert len(lines) == 1, unit
    return shlex.split(paths.apply(lines[0].partition('=')[2], instance))


def environment(unit: str, paths: Paths) -> dict[str, str]:
    """The unit's ``Environment=`` settings, added to this process's."""
    found = dict(os.environ)
    for line in unit.splitlines():
        if line.startswith('Environment='):
            name, _, value = line.partition('=')[2].partition('=')
            found[name] = paths.apply(value)
    return found


class Started:
    """Processes the test started, stopped at the end (whole groups: the
    uWSGI master and its workers)."""

    def __init__(self, tmp_path: pathlib.Path) -> None:
        self.tmp_path = tmp_path
        self.running: list[tuple[subprocess.Popen, pathlib.Path]] = []

    def start(self, command: list[str], name: str,
              env: dict[str, str] | None = None) -> pathlib.Path:
        log = self.tmp_path / f'{name}.log'
        with open(log, 'wb') as handle:
            process = subprocess.Popen(
                command, stdout=handle, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True, env=env)
        self.running.append((process, log))
        return log

    def stop(self) -> None:
        for process, _log in reversed(self.running):
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                pass
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)

    def logs(self) -> str:
        return ''.join(f'--- {log.name} ---\n{log.read_text()[-3000:]}'
                       for _process, log in self.running)


def wait_for(log: pathlib.Path, text: str, started: Started,
             timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while text not in log.read_text(errors='replace'):
        assert time.monotonic() < deadline, (
            f'{log.name} did not log {text!r}\n{started.logs()}')
        time.sleep(0.2)


@pytest.fixture
def started(tmp_path):
    running = Started(tmp_path)
    yield running
    running.stop()


def test_the_services_run_as_the_recipes_say(tmp_path, started):
    names = Names()
    paths = Paths(tmp_path)
    broker = agent_stacks.PrivateRabbitMQ(tmp_path / 'rabbitmq').start()
    try:
        for line in names.apply(recipe('recipe-rabbitmq')).splitlines():
            command = shlex.split(line)
            assert command[0] == 'rabbitmqctl', line
            done = broker.ctl(*command[1:])
            assert done.returncode == 0, done.stdout + done.stderr
        transport_url = names.apply(documented_url('rabbit://')).replace(
            '@rabbit.example.com:5672/', f'@{processes.HOST}:{broker.port}/')
        assert transport_url.endswith(f'/{names.name}'), transport_url
        with mariadb_recipe(Names()) as db_url:
            _run_services(tmp_path, paths, started, transport_url, db_url)
    finally:
        started.stop()
        broker.stop()


def _run_services(tmp_path: pathlib.Path, paths: Paths, started: Started,
                  transport_url: str, db_url: str) -> None:
    port = processes.free_port()
    processes.write_config(str(paths.conf), {
        'DEFAULT': {'auth_strategy': 'noauth',
                    'transport_url': transport_url,
                    'state_path': str(tmp_path / 'state')},
        'database': {'connection': db_url},
        # As the page says: [api] threads is uWSGI's threads.
        'api': {'threads': 16, 'public_url': f'http://{processes.HOST}:'
                                             f'{port}'},
        'agent': {'signing_keys': 'k1:' + secrets.token_hex(32)},
        'engine': {'topic': f'swconfig-doc-{uuid.uuid4().hex}'},
    })
    _sync(db_url, tmp_path)

    engine_unit = recipe('recipe-engine-unit')
    template_unit = recipe('recipe-engine-template-unit')
    api_unit = recipe('recipe-api-unit')
    ini = recipe('recipe-uwsgi-ini').replace(
        'http-socket = 0.0.0.0:8004',
        f'http-socket = {processes.HOST}:{port}')
    assert str(port) in ini, 'the ini no longer listens on 0.0.0.0:8004'
    # Two processes, not the page's four: the test machine is small.
    paths.ini.write_text(paths.apply(ini).replace('processes = 4',
                                                  'processes = 2'))

    engine_log = started.start(exec_start(engine_unit, paths), 'engine')
    (tmp_path / 'engine-1.conf').write_text(
        '[engine]\nhost = engine-host-1\n')
    instance_log = started.start(exec_start(template_unit, paths, '1'),
                                 'engine-1')
    wait_for(engine_log, processes.ENGINE_READY, started)
    wait_for(instance_log, 'Engine engine-host-1 listening on topic',
             started)
    api_log = started.start(exec_start(api_unit, paths), 'uwsgi',
                            env=environment(api_unit, paths))
    base_url = f'http://{processes.HOST}:{port}'
    deadline = time.monotonic() + 90
    while True:
        try:
            # uWSGI accepts on its socket before its workers have loaded
            # the app: on a busy machine the first answer takes seconds.
            health = requests.get(base_url + '/healthcheck',
                                  timeout=(5, 60))
            break
        except requests.ConnectionError:
            assert time.monotonic() < deadline, started.logs()
            time.sleep(0.5)
    assert health.status_code == 200, health.text + started.logs()
    configs = f'{base_url}/v1/p-{uuid.uuid4().hex[:8]}/software_configs'
    created = requests.post(configs, json={
        'name': 'recipe', 'group': 'script', 'config': 'true'}, timeout=60)
    assert created.status_code == 200, created.text + started.logs()
    listed = requests.get(configs, timeout=30).json()['software_configs']
    assert [c['id'] for c in listed] == [
        created.json()['software_config']['id']]
    # Two engines (the plain unit and an instance of the template) keep
    # their heartbeats; uWSGI ran the application in its processes.
    engine = sa.create_engine(db_url)
    with engine.connect() as connection:
        hosts = sorted(connection.scalars(sa.text(
            'SELECT host FROM engine_service')))
    engine.dispose()
    assert len(hosts) == 2 and 'engine-host-1' in hosts, hosts
    assert 'spawned uWSGI worker 2' in api_log.read_text(), started.logs()


@pytest.mark.parametrize('name, unit', [
    ('recipe-api-unit', 'swconfig-api.service'),
    ('recipe-engine-unit', 'swconfig-engine.service'),
    ('recipe-engine-template-unit', 'swconfig-engine@.service')])
def test_the_units_pass_systemd_analyze_verify(tmp_path, name, unit):
    """Unknown keys, bad values and commands that are not there are
    reported (the commands are this machine's)."""
    paths = Paths(tmp_path)
    path = tmp_path / unit
    path.write_text(paths.apply(recipe(name)))
    target = path if '@.' not in unit else tmp_path / unit.replace(
        '@.', '@1.')
    verified = subprocess.run(
        ['systemd-analyze', 'verify', '--man=no', str(target)],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
        check=False)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stderr.strip() == '', verified.stderr
