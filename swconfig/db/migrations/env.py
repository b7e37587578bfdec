"""alembic environment: runs against the engine handed in by migration.py."""

from alembic import context

from swconfig.db import models

config = context.config
target_metadata = models.Base.metadata


def run_migrations_online() -> None:
    engine = config.attributes['engine']
    with engine.connect() as connection:
        context.configure(connection=connection,
                          target_metadata=target_metadata,
                          render_as_batch=connection.dialect.name == 'sqlite')
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()
