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

"""Running the alembic migrations shipped inside the package.

alembic is loaded only to migrate: the embedded default checks its schema
at every start, and reading the revision takes one query where loading
alembic took an eighth of its start-up.
"""

import os
from typing import Any

import sqlalchemy as sa

from swconfig.db import session

MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), 'migrations')
#: The newest revision shipped (tests/unit/db/test_migrations.py keeps it
#: equal to alembic's head): a database at it needs no migration.
HEAD = 'a4d8e2c6f913'
#: Where alembic records a database's revision (its default name).
_VERSION_TABLE = 'alembic_version'


def _config(engine: sa.engine.Engine) -> Any:
    from alembic import config as alembic_config

    config = alembic_config.Config()
    config.set_main_option('script_location', MIGRATIONS_DIR)
    config.attributes['engine'] = engine
    return config


def upgrade(revision: str = 'head',
            engine: sa.engine.Engine | None = None) -> None:
    """Bring the schema up to ``revision`` (upgrades only, never down)."""
    engine = engine or session.get_engine()
    if revision in ('head', HEAD) and version(engine) == HEAD:
        return
    from alembic import command as alembic_command

    alembic_command.upgrade(_config(engine), revision)


def version(engine: sa.engine.Engine | None = None) -> str | None:
    """The revision the database is at, or None for an empty database."""
    engine = engine or session.get_engine()
    with engine.connect() as connection:
        if not sa.inspect(connection).has_table(_VERSION_TABLE):
            return None
        table = sa.table(_VERSION_TABLE, sa.column('version_num'))
        return connection.execute(sa.select(table.c.version_num)).scalar()


def heads() -> list[str]:
    from alembic import script as alembic_script

    script = alembic_script.ScriptDirectory(MIGRATIONS_DIR)
    return list(script.get_heads())
