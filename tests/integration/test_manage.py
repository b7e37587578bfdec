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

"""swconfig-manage db sync / db version / purge, run as the real console
script on SQLite (the embedded default, inside state_path), MariaDB and
PostgreSQL."""

import contextlib
import datetime
import subprocess

from oslo_utils import timeutils
import pytest
import sqlalchemy as sa

from swconfig.common import config
from swconfig.db import migration
from swconfig.db import models
from tests.fixtures import processes
from tests.fixtures import services

BACKENDS = ('sqlite', 'mysql', 'postgresql')


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture
def state_path(tmp_path):
    return tmp_path / 'state'  # not there yet: swconfig-manage creates it


@pytest.fixture
def database_url(backend, state_path):
    """The database swconfig-manage works on: for SQLite the default
    file inside state_path, else a scratch database."""
    if backend == 'sqlite':
        yield config.sqlite_url(str(state_path))
        return
    with services.scratch_database(backend) as url:
        yield url


@pytest.fixture
def config_file(backend, state_path, database_url, tmp_path):
    """A config file per backend; SQLite is left to the default."""
    sections = {'DEFAULT': {'state_path': state_path}}
    if backend != 'sqlite':
        sections['database'] = {'connection': database_url}
    return processes.write_config(str(tmp_path / 'swconfig.conf'), sections)


def run_manage(config_file: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [processes.script('swconfig-manage'), '--config-file', config_file,
         *args], capture_output=True, text=True, timeout=60)


def manage(config_file: str, *args: str) -> str:
    result = run_manage(config_file, *args)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip()


def test_db_sync_then_version_prints_head(backend, state_path, config_file):
    head = migration.heads()[0]
    assert manage(config_file, 'db', 'version') == 'None (empty database)'
    assert manage(config_file, 'db', 'sync') == (
        f'Database is at revision {head}')
    assert manage(config_file, 'db', 'version') == head
    sqlite_file = state_path / config.SQLITE_FILE
    assert sqlite_file.is_file() == (backend == 'sqlite')


_DEPLOYMENT = models.SoftwareDeployment.__table__
_EVENT = models.DeploymentEvent.__table__
_INBOX = models.SignalInbox.__table__


@contextlib.contextmanager
def connected(database_url: str):
    engine = sa.create_engine(database_url)
    try:
        with engine.begin() as connection:
            yield connection
    finally:
        engine.dispose()


def _store_history(database_url: str) -> tuple[set, set]:
    """Signals (processed 40 or 10 days ago, or not yet) and events (40
    and 10 days old) of a finished, an IN_PROGRESS and a deleted
    deployment; returns the ids of the signals and of the events a purge
    of what is older than 30 days keeps."""
    now = timeutils.utcnow()
    old = now - datetime.timedelta(days=40)
    recent = now - datetime.timedelta(days=10)
    signals, events = [], []
    kept_signals, kept_events = set(), set()
    for deployment_id, status in (('done', 'COMPLETE'),
                                  ('busy', 'IN_PROGRESS'),
                                  ('deleted', None)):
        finished = status != 'IN_PROGRESS'
        for processed_at, purged in ((old, finished), (recent, False),
                                     (None, False)):
            signal_id = len(signals) + 1
            signals.append({
                'id': signal_id, 'deployment_id': deployment_id,
                'action_revision': 0, 'payload': {}, 'received_at': old,
                'processed_at': processed_at,
                'result': processed_at and 'COMPLETE'})
            if not purged:
                kept_signals.add(signal_id)
        if status is None:
            continue  # a deleted deployment's events went with it
        for created_at, purged in ((old, finished), (recent, False)):
            event_id = len(events) + 1
            events.append({'id': event_id, 'deployment_id': deployment_id,
                           'created_at': created_at,
                           'new_status': status})
            if not purged:
                kept_events.add(event_id)
    with connected(database_url) as connection:
        connection.execute(models.SoftwareConfig.__table__.insert(), [{
            'id': 'config', 'inputs': [], 'outputs': [], 'tenant': 'p1',
            'created_at': old}])
        connection.execute(_DEPLOYMENT.insert(), [
            {'id': deployment_id, 'config_id': 'config', 'server_id': 's1',
             'tenant': 'p1', 'status': status, 'version': 1,
             'created_at': old}
            for deployment_id, status in (('done', 'COMPLETE'),
                                          ('busy', 'IN_PROGRESS'))])
        connection.execute(_INBOX.insert(), signals)
        connection.execute(_EVENT.insert(), events)
    return kept_signals, kept_events


def _ids(database_url: str, table: sa.Table) -> set:
    with connected(database_url) as connection:
        return set(connection.scalars(sa.select(table.c.id)))


def test_purge_removes_old_rows_of_finished_deployments(config_file,
                                                        database_url):
    manage(config_file, 'db', 'sync')
    kept_signals, kept_events = _store_history(database_url)
    assert len(_ids(database_url, _INBOX)) == 9
    assert len(_ids(database_url, _EVENT)) == 4

    assert manage(config_file, 'purge', '--older-than', '30') == (
        'Removed 2 signal inbox row(s) and 1 deployment event(s) older '
        'than 30 day(s)')

    assert _ids(database_url, _INBOX) == kept_signals
    assert _ids(database_url, _EVENT) == kept_events
    assert _ids(database_url, _DEPLOYMENT) == {'done', 'busy'}
    # A shorter period takes the 10 days old rows too: all that is left
    # is the IN_PROGRESS deployment's and the unprocessed signals.
    assert manage(config_file, 'purge', '--older-than', '5') == (
        'Removed 2 signal inbox row(s) and 1 deployment event(s) older '
        'than 5 day(s)')
    with connected(database_url) as connection:
        signals = connection.execute(sa.select(
            _INBOX.c.deployment_id, _INBOX.c.processed_at)).all()
        events = connection.scalars(sa.select(_EVENT.c.deployment_id))
        assert sorted(events) == ['busy', 'busy']
    assert sorted((deployment_id, processed_at is None)
                  for deployment_id, processed_at in signals) == [
        ('busy', False), ('busy', False), ('busy', True), ('deleted', True),
        ('done', True)]


@pytest.mark.parametrize('days', ['0', '-3', 'soon', None])
def test_purge_wants_a_positive_number_of_days(tmp_path, days):
    """Refused by the argument parser, whatever the database."""
    config_file = processes.write_config(
        str(tmp_path / 'swconfig.conf'),
        {'DEFAULT': {'state_path': tmp_path / 'state'}})
    args = ['purge'] if days is None else ['purge', '--older-than', days]
    result = run_manage(config_file, *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert '--older-than' in result.stderr


def test_purge_refuses_a_database_not_at_head(config_file):
    result = run_manage(config_file, 'purge', '--older-than', '30')
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'swconfig-manage db sync' in result.stderr


def _one_line_error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode != 0, result.stdout + result.stderr
    assert 'Traceback' not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith('swconfig-manage: error: '), lines[0]
    return lines[0]


def test_db_sync_creates_the_directory_of_a_sqlite_file(tmp_path):
    database = tmp_path / 'not' / 'there' / 'yet' / 'swconfig.sqlite'
    config_file = processes.write_config(
        str(tmp_path / 'swconfig.conf'),
        {'database': {'connection': f'sqlite:///{database}'}})
    assert manage(config_file, 'db', 'sync') == (
        f'Database is at revision {migration.heads()[0]}')
    assert database.is_file()
    assert oct(database.parent.stat().st_mode & 0o777) == oct(0o700)
    assert manage(config_file, 'db', 'version') == migration.heads()[0]


def test_db_sync_says_when_the_sqlite_directory_cannot_be_made(tmp_path):
    blocker = tmp_path / 'a-file'
    blocker.write_text('')
    config_file = processes.write_config(
        str(tmp_path / 'swconfig.conf'),
        {'database': {'connection': f'sqlite:///{blocker}/db/x.sqlite'}})
    line = _one_line_error(run_manage(config_file, 'db', 'sync'))
    assert f'Cannot create {blocker}/db' in line
    assert f'[database] connection in {config_file}' in line
    assert 'Not a directory' in line


@pytest.mark.parametrize('command', [['db', 'sync'], ['db', 'version'],
                                     ['purge', '--older-than', '3']])
def test_unknown_dialect_is_one_line_naming_the_option(tmp_path, command):
    config_file = processes.write_config(
        str(tmp_path / 'swconfig.conf'), {'database': {
            'connection': 'mysq+pymysql://root:secret@127.0.0.1/x'}})
    result = run_manage(config_file, *command)
    line = _one_line_error(result)
    assert f'[database] connection in {config_file}' in line
    assert "unknown database dialect 'mysq+pymysql'" in line
    assert 'secret' not in line
    assert result.returncode == 2


def test_unreachable_database_is_one_line(tmp_path):
    config_file = processes.write_config(
        str(tmp_path / 'swconfig.conf'), {'database': {
            'connection': f'mysql+pymysql://root@{processes.HOST}:'
                          f'{processes.free_port()}/swconfig'}})
    line = _one_line_error(run_manage(config_file, 'db', 'sync'))
    assert 'The database of [database] connection' in line
    assert 'cannot be used' in line and "Can't connect" in line
