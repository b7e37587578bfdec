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
