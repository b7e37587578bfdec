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

"""The real database backends a DB or engine test runs on (none is ever
skipped: MariaDB and PostgreSQL are started if down), with the ``facade``
fixture of tests/unit/conftest.py: a fresh, migrated database per test."""

import contextlib
from typing import Any

from oslo_db.sqlalchemy import enginefacade
import pytest

from swconfig.db import migration
from swconfig.db import models
from swconfig.db import session
from tests.fixtures import services

BACKENDS = ('sqlite', 'mysql', 'postgresql')

on_every_backend = pytest.mark.parametrize('facade', BACKENDS,
                                           indirect=True)


def migrated_facade(stack: contextlib.ExitStack, backend: str,
                    directory: Any) -> Any:
    """An enginefacade on a fresh database of ``backend``, with swconfig's
    own per-backend connection settings, migrated to head; gone when
    ``stack`` closes."""
    url = services.fresh_database(stack, backend, directory)
    context = enginefacade.transaction_context()
    context.configure(connection=url, sqlite_fk=True,
                      mysql_sql_mode='TRADITIONAL')
    context.append_on_engine_create(session._on_engine_create)
    stack.callback(context.dispose_pool)
    migration.upgrade('head', engine=context.writer.get_engine())
    return context


def migrated_sqlite_facade(path: Any) -> Any:
    """An enginefacade on the SQLite file ``path``, migrated to head (the
    caller disposes of its pool)."""
    context = enginefacade.transaction_context()
    context.configure(connection=f'sqlite:///{path}', sqlite_fk=True)
    migration.upgrade('head', engine=context.writer.get_engine())
    return context


def empty_tables(facade: Any) -> None:
    """Delete every row, children before parents."""
    with facade.writer.get_engine().begin() as connection:
        for table in reversed(models.Base.metadata.sorted_tables):
            connection.execute(table.delete())
