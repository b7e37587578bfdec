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

"""The enginefacade transaction context every DB function runs in, the
per-backend connection settings (SQLite's WAL, busy timeout and
BEGIN IMMEDIATE for the embedded default; READ COMMITTED on MySQL), and
the database's health as the API reports it (``ping``, ``is_outage``)."""

from typing import Any

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import sqlalchemy as sa

context_manager = enginefacade.transaction_context()
context_manager.configure(sqlite_fk=True)

reader = context_manager.reader
writer = context_manager.writer


def get_engine() -> sa.engine.Engine:
    """The facade's engine, for what runs outside its transactions:
    migrations, ``ping``, and the agent path (which makes its own engine
    on the same URL)."""
    return context_manager.writer.get_engine()


def dispose_engine() -> None:
    """Close the pooled connections (e.g. when a tool is done)."""
    context_manager.dispose_pool()


def _sqlite_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    """WAL and a busy timeout let the embedded default's API and engine
    threads share one SQLite file without "database is locked" errors."""
    cursor = dbapi_connection.cursor()
    cursor.execute('PRAGMA journal_mode=WAL')
    cursor.execute('PRAGMA busy_timeout=30000')
    cursor.close()


def _sqlite_begin(connection: Any, cursor: Any, statement: str,
                  parameters: Any, context: Any,
                  executemany: bool) -> tuple[str, Any]:
    """BEGIN IMMEDIATE: take SQLite's write lock up front (waiting up to
    the busy timeout) instead of failing at once with "database is locked"
    when a read-then-write transaction meets a concurrent writer.

    oslo.db emits the plain BEGIN itself (and its listener may run before
    any of ours), so the statement is rewritten on its way to the driver.
    """
    if statement == 'BEGIN':
        statement = 'BEGIN IMMEDIATE'
    return statement, parameters


def _mysql_read_committed(dbapi_connection: Any,
                          connection_record: Any) -> None:
    """READ COMMITTED, as PostgreSQL's default: every writer is written
    for it (conditional updates, no reliance on a snapshot), and it takes
    no gap locks, which under REPEATABLE READ made the engines' batched
    signal claims deadlock with the API storing new signals."""
    cursor = dbapi_connection.cursor()
    cursor.execute('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED')
    cursor.close()


def _on_engine_create(engine: sa.engine.Engine) -> None:
    if engine.dialect.name == 'mysql':
        sa.event.listen(engine, 'connect', _mysql_read_committed)
    if engine.dialect.name == 'sqlite':
        sa.event.listen(engine, 'connect', _sqlite_pragmas)
        sa.event.listen(engine, 'before_cursor_execute', _sqlite_begin,
                        retval=True)


context_manager.append_on_engine_create(_on_engine_create)


#: What a database that is down, restarting or overloaded raises through
#: oslo.db and SQLAlchemy (connection lost or refused, lock timeouts, a
#: database shutting down or missing): all of them pass, so callers are
#: asked to retry.
_OUTAGES = (db_exc.DBConnectionError, db_exc.DBDeadlock,
            db_exc.DBNonExistentDatabase, sa.exc.OperationalError,
            sa.exc.InterfaceError)
#: Every DB-API module defines these two; the agent path runs statements
#: on driver connections directly, so what the driver raises arrives
#: unwrapped.
_DBAPI_OUTAGES = frozenset({'OperationalError', 'InterfaceError'})


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` means the database is unavailable (503, retry),
    as opposed to a bug or a refused statement."""
    return isinstance(exc, _OUTAGES) or any(
        cls.__name__ in _DBAPI_OUTAGES for cls in type(exc).__mro__)


def ping() -> None:
    """One round trip to the database (for the health check); raises
    what the driver raises when it is unreachable."""
    with get_engine().connect() as connection:
        connection.execute(sa.text('SELECT 1'))
