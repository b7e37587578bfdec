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

"""Running the alembic migrations shipped inside the package."""

import os

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script
import sqlalchemy as sa

from swconfig.db import session

MIGRATIONS_DIR = os.path.join(os.path.dirname(__file__), 'migrations')


def _config(engine: sa.engine.Engine) -> alembic_config.Config:
    config = alembic_config.Config()
    config.set_main_option('script_location', MIGRATIONS_DIR)
    config.attributes['engine'] = engine
    return config


def upgrade(revision: str = 'head',
            engine: sa.engine.Engine | None = None) -> None:
    """Bring the schema up to ``revision`` (upgrades only, never down)."""
    engine = engine or session.get_engine()
    alembic_command.upgrade(_config(engine), revision)


def version(engine: sa.engine.Engine | None = None) -> str | None:
    """The revision the database is at, or None for an empty database."""
    engine = engine or session.get_engine()
    with engine.connect() as connection:
        return alembic_migration.MigrationContext.configure(
            connection).get_current_revision()


def heads() -> list[str]:
    script = alembic_script.ScriptDirectory(MIGRATIONS_DIR)
    return list(script.get_heads())
