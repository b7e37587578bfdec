"""The alembic migrations: one head, the schema the models describe on
every backend, and upgrades that can run again (conventions.md §5).

Each test gets a fresh database: a SQLite file, or a scratch database on
the real MariaDB and PostgreSQL (started if down, never skipped).
"""

import contextlib
import datetime
import functools
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
