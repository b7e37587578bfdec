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

"""The alembic migrations: one head, the schema the models describe on every
backend, upgrades that can run again (doc/source/contributor/index.rst),
and rows written at each revision carried intact to head.

Each test gets a fresh database: a SQLite file, or a scratch database on
the real MariaDB and PostgreSQL (started if down, never skipped).
"""

import contextlib
import datetime
import functools
import json
import os

from alembic import script as alembic_script
from oslo_db.sqlalchemy import engines
from oslo_db.sqlalchemy import test_migrations
import pytest
import sqlalchemy as sa

from swconfig.db import migration
from swconfig.db import models
from tests.fixtures import services

BACKENDS = ('sqlite', 'mysql', 'postgresql')
TABLES = {'software_config', 'software_deployment', 'deployment_event'}


@pytest.fixture(params=BACKENDS)
def engine(request, tmp_path):
    """An engine on a new, empty database of each backend."""
    with contextlib.ExitStack() as stack:
        url = services.fresh_database(stack, request.param, tmp_path)
        # The SQL mode swconfig's own engines use ([database] default).
        db_engine = engines.create_engine(url, mysql_sql_mode='TRADITIONAL')
        stack.callback(db_engine.dispose)
        yield db_engine


class ModelsMigrationsSync(test_migrations.ModelsMigrationsSync):
    """oslo.db's models/migrations comparison, driven from pytest.

    ``test_models_sync`` migrates the database to head, compares it with
    ``metadata`` using alembic's autogenerate and fails with the list of
    differences; addCleanup and fail are the TestCase methods it uses.
    """

    def __init__(self, engine: sa.engine.Engine,
                 metadata: sa.MetaData = models.Base.metadata) -> None:
        self.engine = engine
        self.metadata = metadata
        self._cleanups: list = []

    def db_sync(self, engine: sa.engine.Engine) -> None:
        migration.upgrade('head', engine=engine)

    def get_engine(self) -> sa.engine.Engine:
        return self.engine

    def get_metadata(self) -> sa.MetaData:
        return self.metadata

    def addCleanup(self, function, *args, **kwargs) -> None:
        self._cleanups.append(functools.partial(function, *args, **kwargs))

    def fail(self, msg: str) -> None:
        pytest.fail(msg, pytrace=False)

    def check(self) -> None:
        try:
            self.test_models_sync()
        finally:
            for cleanup in reversed(self._cleanups):
                cleanup()


def _drifted_metadata() -> sa.MetaData:
    """The models with a column type changed and an index added."""
    metadata = sa.MetaData(naming_convention=models.NAMING_CONVENTION)
    for table in models.Base.metadata.sorted_tables:
        table.to_metadata(metadata)
    configs = metadata.tables['software_config']
    configs.c.tenant.type = sa.String(128)
    sa.Index(None, configs.c.name)
    return metadata


def test_single_head():
    assert len(migration.heads()) == 1, migration.heads()


def test_the_head_the_start_up_checks_is_alembics():
    # A new migration must move migration.HEAD too, or the embedded
    # default would skip it.
    assert migration.heads() == [migration.HEAD]


def test_revision_files_are_named_after_their_revision():
    scripts = alembic_script.ScriptDirectory(migration.MIGRATIONS_DIR)
    revisions = list(scripts.walk_revisions())
    assert revisions
    for revision in revisions:
        assert os.path.basename(revision.path).startswith(
            revision.revision + '_'), revision.path


def test_models_and_migrations_agree(engine):
    ModelsMigrationsSync(engine).check()


def test_comparison_reports_drift(engine):
    """The check above can fail: a model change the migrations lack is
    reported on this backend."""
    with pytest.raises(pytest.fail.Exception) as failure:
        ModelsMigrationsSync(engine, _drifted_metadata()).check()
    message = str(failure.value)
    assert 'modify_type' in message and "'tenant'" in message
    assert 'ix_software_config_name' in message


def test_upgrade_twice_and_version_is_head(engine):
    assert migration.version(engine) is None
    migration.upgrade('head', engine=engine)
    migration.upgrade('head', engine=engine)
    assert migration.version(engine) == migration.heads()[0]
    assert TABLES <= set(sa.inspect(engine).get_table_names())


def test_timestamps_keep_microseconds(engine):
    """types.timestamp() keeps fractions on every backend (MySQL's DATETIME
    would drop them; alembic's type comparison does not look at that)."""
    migration.upgrade('head', engine=engine)
    created = datetime.datetime(2026, 1, 2, 3, 4, 5, 123456)
    table = models.SoftwareConfig.__table__
    with engine.begin() as connection:
        connection.execute(table.insert().values(
            id='c1', inputs=[], outputs=[], tenant='p1', created_at=created))
        stored = connection.scalar(sa.select(table.c.created_at))
    assert stored == created


# -- data carried through every revision -------------------------------------

T0 = datetime.datetime(2026, 1, 2, 3, 4, 5, 123456)
SECOND = datetime.timedelta(seconds=1, microseconds=1)
# More than a MySQL TEXT column (64 KiB) holds, with multi-byte text: a
# migration that narrows a column or converts its charset loses some.
BIG_JSON = json.dumps({'script': '#!/bin/sh\n' + 'echo ☃\n' * 12000},
                      ensure_ascii=False)
assert len(BIG_JSON.encode()) > 65535

# Rows inserted right after each revision, with Core against the tables as
# that revision made them (JSON columns are plain text to them): every
# table then existing, NULLs and values, text beyond 64 KiB, timestamps
# with microseconds. A new revision adds its entry, even an empty one, and
# rows that fill the columns it adds.
ROWS_AT = {
    '3b1f0c2d9a10': {
        'software_config': [
            {'id': 'config-1', 'name': 'deploy ☃', 'group': 'script',
             'config': BIG_JSON,
             'inputs': '[{"name":"a","type":"String"}]', 'outputs': '[]',
             'options': '{"k":"v"}', 'tenant': 'p1', 'created_at': T0},
            {'id': 'config-2', 'name': None, 'group': None, 'config': None,
             'inputs': '[]', 'outputs': '[{"name":"result"}]',
             'options': None, 'tenant': 'p2', 'created_at': T0 + SECOND},
        ],
        'software_deployment': [
            {'id': 'deployment-1', 'config_id': 'config-1',
             'server_id': 'server-1', 'input_values': '{"a":"ü"}',
             'output_values': '{"result":"ok"}', 'tenant': 'p1',
             'stack_user_project_id': 'stack-user-1', 'action': 'CREATE',
             'status': 'COMPLETE', 'status_reason': 'Outputs received',
             'version': 3, 'created_at': T0,
             'updated_at': T0 + 2 * SECOND},
            {'id': 'deployment-2', 'config_id': 'config-2',
             'server_id': 'server-2', 'input_values': None,
             'output_values': None, 'tenant': 'p2',
             'stack_user_project_id': None, 'action': None,
             'status': 'IN_PROGRESS', 'status_reason': None, 'version': 1,
             'created_at': T0 + SECOND, 'updated_at': None},
        ],
        'deployment_event': [
            {'id': 1, 'deployment_id': 'deployment-1', 'created_at': T0,
             'action': 'CREATE', 'old_status': None,
             'new_status': 'IN_PROGRESS',
             'reason': 'Deploy data available'},
            {'id': 2, 'deployment_id': 'deployment-1',
             'created_at': T0 + 2 * SECOND, 'action': 'CREATE',
             'old_status': 'IN_PROGRESS', 'new_status': 'COMPLETE',
             'reason': 'Ünïcode ' * 5000},
        ],
    },
    '7d4e2a91c5b3': {
        'software_config': [
            {'id': 'config-3', 'name': 'derived', 'group': 'script',
             'config': '"echo"', 'inputs': '[]', 'outputs': '[]',
             'options': '{}', 'tenant': 'p1', 'created_at': T0 + 3 * SECOND},
        ],
        'software_deployment': [
            {'id': 'deployment-3', 'config_id': 'config-3',
             'server_id': 'server-1', 'input_values': '{}',
             'output_values': None, 'tenant': 'p1',
             'stack_user_project_id': None, 'action': 'UPDATE',
             'status': 'IN_PROGRESS', 'status_reason': 'Deploy data',
             'version': 2, 'created_at': T0 + 3 * SECOND,
             'updated_at': T0 + 4 * SECOND, 'source_config_id': 'config-1',
             'signal_transport': 'HEAT_SIGNAL', 'action_revision': 7,
             'timeout_at': T0 + 3600 * SECOND},
        ],
        'deployment_event': [
            {'id': 3, 'deployment_id': 'deployment-3',
             'created_at': T0 + 3 * SECOND, 'action': 'UPDATE',
             'old_status': None, 'new_status': 'IN_PROGRESS',
             'reason': None},
        ],
        'server': [
            {'id': 'server-1', 'tenant': 'p1',
             'base_url': 'http://swconfig.example:8004',
             'token_revision': 2, 'document': BIG_JSON, 'etag': '"e-1"',
             'document_revision': 5, 'created_at': T0,
             'updated_at': T0 + 4 * SECOND},
            {'id': 'server-2', 'tenant': 'p2', 'base_url': None,
             'token_revision': 1, 'document': None, 'etag': None,
             'document_revision': 0, 'created_at': T0 + SECOND,
             'updated_at': T0 + SECOND},
        ],
        'signal_inbox': [
            {'id': 1, 'deployment_id': 'deployment-3', 'action_revision': 7,
             'payload': '{"deploy_stdout":"ü"}',
             'received_at': T0 + 5 * SECOND, 'processed_at': None,
             'result': None},
            {'id': 2, 'deployment_id': 'deployment-1', 'action_revision': 0,
             'payload': None, 'received_at': T0 + 2 * SECOND,
             'processed_at': T0 + 3 * SECOND, 'result': 'DUPLICATE'},
            {'id': 3, 'deployment_id': 'deleted-deployment',
             'action_revision': 1, 'payload': '{}',
             'received_at': T0 + 4 * SECOND,
             'processed_at': T0 + 4 * SECOND, 'result': 'GONE'},
        ],
    },
    '5c8f3e17a2d4': {
        'server_change': [
            {'id': 1, 'server_id': 'server-1', 'changed_at': T0},
            {'id': 7, 'server_id': 'deleted-server-ü',
             'changed_at': T0 + 6 * SECOND},
        ],
    },
    '9e2b6d41f0a7': {
        'trigger_request': [
            {'id': 1, 'tenant': 'p1', 'idempotency_key': 'backup-ü-1',
             'deployment_id': 'deployment-1',
             'request_digest': 'a' * 64,
             'trigger_deployment_id': 'deployment-2',
             'created_at': T0 + 7 * SECOND,
             'expires_at': T0 + 86400 * SECOND},
        ],
    },
    'b7d3e58c14a2': {
        'signal_inbox': [
            {'id': 4, 'deployment_id': 'deployment-2', 'action_revision': 1,
             'payload': '{"deploy_status_code":0}',
             'received_at': T0 + 8 * SECOND, 'processed_at': None,
             'result': None, 'request_id': f'req-{"0" * 36}'},
        ],
    },
    'd2a9c4e71b05': {
        'signal_inbox': [
            {'id': 5, 'deployment_id': 'deployment-2', 'action_revision': 1,
             'payload': '{"deploy_status_code":0}',
             'received_at': T0 + 9 * SECOND, 'processed_at': None,
             'result': None, 'request_id': None,
             'source_key': 'swift:1:' + 'e' * 32},
        ],
        'server': [
            {'id': 'server-3', 'tenant': 'p1', 'base_url': None,
             'token_revision': 1, 'document': '{}', 'etag': '"e-3"',
             'document_revision': 1, 'created_at': T0 + 9 * SECOND,
             'updated_at': T0 + 9 * SECOND,
             'config_transport': 'POLL_TEMP_URL', 'push_pending': True},
        ],
    },
    '665b9c058ef9': {
        'software_deployment': [
            {'id': 'deployment-4', 'config_id': 'config-3',
             'server_id': 'server-1', 'input_values': '{}',
             'output_values': None, 'tenant': 'p1',
             'stack_user_project_id': None, 'action': 'BACKUP',
             'status': 'COMPLETE', 'status_reason': 'Outputs received',
             'version': 2, 'created_at': T0 + 10 * SECOND,
             'updated_at': T0 + 11 * SECOND, 'source_config_id': 'config-1',
             'signal_transport': 'HEAT_SIGNAL', 'action_revision': 1,
             'timeout_at': None, 'triggered_from': 'deployment-3'},
        ],
    },
    '4f6a2c8e1d37': {
        'engine_service': [
            {'id': '6f1c2d3e-0000-4000-8000-000000000001',
             'host': 'engine-ü-1', 'topic': 'swconfig-engine', 'pid': 4242,
             'created_at': T0 + 10 * SECOND,
             'heartbeat_at': T0 + 11 * SECOND},
        ],
    },
    '70447544bab0': {
        'software_deployment': [
            {'id': 'deployment-5', 'config_id': 'config-3',
             'server_id': 'server-1', 'input_values': '{"port": 80}',
             'output_values': None, 'tenant': 'p1',
             'stack_user_project_id': None, 'action': 'CREATE',
             'status': 'IN_PROGRESS', 'status_reason': 'Deploy data '
                                                       'available',
             'version': 1, 'created_at': T0 + 12 * SECOND,
             'updated_at': None, 'source_config_id': 'config-1',
             'signal_transport': 'HEAT_SIGNAL', 'action_revision': 1,
             'timeout_at': T0 + 20 * SECOND, 'triggered_from': None,
             'input_key': 'get_input', 'input_values_validate': 'STRICT'},
        ],
    },
    '2b066bcaffad': {
        # Keys and values that differ only in case are distinct labels on
        # every backend (MariaDB's default collation would merge them).
        'server_label': [
            {'server_id': 'server-1', 'key': 'role', 'value': 'db',
             'tenant': 'p1'},
            {'server_id': 'server-1', 'key': 'Role', 'value': 'DB ☃',
             'tenant': 'p1'},
            {'server_id': 'server-3', 'key': 'role', 'value': '',
             'tenant': 'p1'},
        ],
        'server_group': [
            {'id': 'group-1', 'tenant': 'p1', 'name': 'databases ü',
             'selector': '{"role":"db"}', 'created_at': T0 + 13 * SECOND,
             'updated_at': T0 + 14 * SECOND},
            {'id': 'group-2', 'tenant': 'p1', 'name': 'Databases ü',
             'selector': None, 'created_at': T0 + 13 * SECOND,
             'updated_at': None},
        ],
        'server_group_member': [
            {'group_id': 'group-2', 'server_id': 'server-3'},
            {'group_id': 'group-2', 'server_id': 'server-1'},
        ],
    },
    'c41e7a2b9d58': {
        'rollout': [
            {'id': 'rollout-1', 'tenant': 'p1', 'status': 'IN_PROGRESS',
             'status_reason': 'Wave 1 ü',
             'target': '{"server_group":"group-1"}',
             'work': '{"config_id":"config-1"}', 'max_concurrency': '10%',
             'max_errors': '2', 'created_at': T0 + 15 * SECOND,
             'started_at': T0 + 15 * SECOND, 'finished_at': None,
             'version': 2},
        ],
        'rollout_target': [
            {'rollout_id': 'rollout-1', 'position': 0,
             'server_id': 'server-3', 'deployment_id': 'deployment-5',
             'state': 'IN_PROGRESS', 'started_at': T0 + 15 * SECOND,
             'finished_at': None},
            {'rollout_id': 'rollout-1', 'position': 1,
             'server_id': 'server-1', 'deployment_id': None,
             'state': 'NOT_STARTED', 'started_at': None,
             'finished_at': None},
        ],
        'rollout_event': [
            {'id': 1, 'rollout_id': 'rollout-1', 'event': 'started',
             'reason': '2 targets', 'created_at': T0 + 15 * SECOND},
        ],
    },
    'e8f1a6c3b274': {
        'server': [
            {'id': 'server-5', 'tenant': 'p1', 'base_url': None,
             'token_revision': 1, 'document': '{}', 'etag': '"e-5"',
             'document_revision': 1, 'created_at': T0 + 16 * SECOND,
             'updated_at': T0 + 16 * SECOND, 'config_transport': None,
             'push_pending': False, 'last_poll_at': T0 + 17 * SECOND},
        ],
    },
    'f3b7d2a91c64': {
        'server': [
            {'id': 'server-6', 'tenant': 'p1', 'base_url': None,
             'token_revision': 1, 'document': '{}', 'etag': '"e-6"',
             'document_revision': 1, 'created_at': T0 + 18 * SECOND,
             'updated_at': T0 + 18 * SECOND, 'config_transport': None,
             'push_pending': False, 'last_poll_at': None,
             'collect_config_override': 'v1:k:sealed ü'},
        ],
    },
    'a4d8e2c6f913': {
        'server': [
            {'id': 'server-7', 'tenant': 'p1', 'base_url': None,
             'token_revision': 1, 'document': '{}', 'etag': '"e-7"',
             'document_revision': 1, 'created_at': T0 + 19 * SECOND,
             'updated_at': T0 + 19 * SECOND,
             'config_transport': 'POLL_TEMP_URL', 'push_pending': True,
             'last_poll_at': None, 'collect_config_override': 'v1:k:block',
             'heat_channel': 'v1:k:channel ü'},
        ],
    },
}


class _NotNull:
    """Equal to any value but None: a server default given as SQL."""

    def __eq__(self, other: object) -> bool:
        return other is not None

    def __repr__(self) -> str:
        return '<any value but NULL>'


def _server_default(column: sa.Column) -> object:
    """What the model's server default puts into a row written before
    its column existed (None without a default)."""
    if column.server_default is None:
        return None
    text = getattr(column.server_default, 'arg', None)
    if not isinstance(text, str):
        return _NotNull()
    python_type = column.type.python_type
    if python_type is bool:
        return text.lower() in ('1', 'true')
    try:
        return python_type(text)
    except (TypeError, ValueError):
        return _NotNull()


def _revisions() -> list[str]:
    """Every revision, base first (one line of history: one head)."""
    scripts = alembic_script.ScriptDirectory(migration.MIGRATIONS_DIR)
    return [script.revision for script in reversed(
        list(scripts.walk_revisions()))]


def _tables(connection: sa.Connection) -> sa.MetaData:
    """The tables as the current revision made them."""
    metadata = sa.MetaData()
    metadata.reflect(bind=connection)
    return metadata


def _insert_rows(connection: sa.Connection, rows: dict) -> None:
    tables = _tables(connection)
    for table in tables.sorted_tables:  # referenced tables first
        if table.name in rows:
            connection.execute(table.insert(), rows[table.name])
    unknown = set(rows) - set(tables.tables)
    assert not unknown, f'no such tables at this revision: {unknown}'


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else f'{text[:60]}... ({len(text)})'


def _primary_key(table: sa.Table, row: dict) -> tuple:
    """The row's primary key (``id``, or the columns of a composite
    key such as a server label's ``server_id, key``)."""
    return tuple(row[column.name] for column in table.primary_key.columns)


def _check_rows(connection: sa.Connection,
                inserted: list[tuple[str, dict]], at_head: bool) -> None:
    """Fail unless every inserted row is there with its values; at head,
    with the columns added since it was written holding their server
    default (or NULL)."""
    tables = _tables(connection)
    stored = {}
    for name in {name for name, _ in inserted}:
        table = tables.tables[name]
        stored[name] = {_primary_key(table, row._asdict()): row._asdict()
                        for row in connection.execute(sa.select(table))}
    problems = []
    for name, values in inserted:
        key = _primary_key(tables.tables[name], values)
        shown = key[0] if len(key) == 1 else key
        row = stored[name].get(key)
        if row is None:
            problems.append(f'{name} {shown!r}: row gone')
            continue
        expected = dict(values)
        if at_head:
            for column in models.Base.metadata.tables[name].columns:
                expected.setdefault(column.name, _server_default(column))
        missing = object()
        for column, value in sorted(expected.items()):
            found = row.get(column, missing)
            if found is missing or not value == found:
                problems.append(
                    f'{name} {shown!r}.{column}: expected '
                    f'{_short(value)}, found '
                    f'{"no column" if found is missing else _short(found)}')
    if problems:
        pytest.fail('\n'.join(problems), pytrace=False)


def _carry_through(engine: sa.engine.Engine) -> list[tuple[str, dict]]:
    """Upgrade one revision at a time from base to head, inserting each
    revision's rows once it is applied and checking every row inserted
    so far; returns the rows inserted, as (table name, values)."""
    inserted: list[tuple[str, dict]] = []
    for revision in _revisions():
        migration.upgrade(revision, engine=engine)
        assert migration.version(engine) == revision
        with engine.begin() as connection:
            _check_rows(connection, inserted, at_head=False)
            _insert_rows(connection, ROWS_AT[revision])
        inserted.extend((name, values)
                        for name, rows in ROWS_AT[revision].items()
                        for values in rows)
    return inserted


def test_every_revision_has_rows_to_carry():
    assert list(ROWS_AT) == _revisions(), (
        'give ROWS_AT rows for each revision, in order')


def test_upgrade_carries_data_through_every_revision(engine):
    inserted = _carry_through(engine)

    assert migration.version(engine) == migration.heads()[0]
    with engine.connect() as connection:
        _check_rows(connection, inserted, at_head=True)
        counts = {name: connection.scalar(
            sa.select(sa.func.count()).select_from(sa.table(name)))
            for name in models.Base.metadata.tables}
    assert counts == {name: sum(1 for table, _ in inserted if table == name)
                      for name in models.Base.metadata.tables}


def _damages(connection: sa.Connection) -> dict:
    """What a faulty migration could do to the carried rows."""
    tables = _tables(connection).tables
    config = tables['software_config']
    deployment = tables['software_deployment']
    return {
        'row deleted': sa.delete(tables['deployment_event']).where(
            tables['deployment_event'].c.id == 2),
        'text cut to 64 KiB': sa.update(config).where(
            config.c.id == 'config-1').values(
                config=sa.func.substr(config.c.config, 1, 65535)),
        'microseconds dropped': sa.update(deployment).where(
            deployment.c.id == 'deployment-1').values(
                created_at=T0.replace(microsecond=0)),
        'no server default': sa.update(deployment).where(
            deployment.c.id == 'deployment-2').values(action_revision=1),
        'NULL lost': sa.update(tables['signal_inbox']).where(
            tables['signal_inbox'].c.id == 2).values(payload='null'),
        'label lost': sa.delete(tables['server_label']).where(
            tables['server_label'].c.key == 'Role'),
    }


def test_carried_data_check_reports_damage(engine):
    """The check above can fail: each kind of damage is reported on this
    backend."""
    inserted = _carry_through(engine)
    with engine.connect() as connection:
        damages = _damages(connection)
        connection.rollback()  # reflecting began a transaction
        for damage, statement in damages.items():
            transaction = connection.begin()
            try:
                assert connection.execute(statement).rowcount == 1
                with pytest.raises(pytest.fail.Exception, match='expected|'
                                   'row gone') as failure:
                    _check_rows(connection, inserted, at_head=True)
                assert len(str(failure.value).splitlines()) == 1, damage
            finally:
                transaction.rollback()
