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

"""The agents' hot path: the autocommit engine of its own that metadata
polls and agents' signals run on, and the statements compiled once for
it. The functions that run them live with their entities
(``swconfig.db.servers``, ``deployments``, ``signal_inbox``); each
declares its statements here with ``hot_statement``.
"""

import threading
from typing import Any

import sqlalchemy as sa

from swconfig.conf import CONF
from swconfig.db import session

# Agents poll every 30 s and signal in bursts, so these statements run far
# more often than anything else. They go through a small engine of their
# own, in autocommit mode: each statement is its own transaction, so a read
# costs one round trip instead of four (pre-ping, BEGIN, SELECT, ROLLBACK)
# and a signal is durable when its INSERT returns. A connection found dead
# is retried once on a fresh one instead of being pinged before every use.
# The polls' SELECTs are compiled once per engine and run on the pooled
# DBAPI connection directly: SQLAlchemy's per-execution machinery cost more
# CPU than the database did.

_AGENT_ENGINE: tuple[Any, sa.engine.Engine, dict] | None = None
_AGENT_ENGINE_LOCK = threading.Lock()
_HOT_STATEMENTS: list['HotStatement'] = []


class HotStatement:
    """A statement of the agents' hot path, declared by the module that
    runs it (see ``hot_statement``); the key of its compiled form in
    what ``agent_engine`` returns."""

    __slots__ = ('statement',)

    def __init__(self, statement: Any) -> None:
        self.statement = statement


def hot_statement(statement: Any) -> HotStatement:
    """Declare a hot-path statement (at import time): compiled once for
    every agent engine, the current one included."""
    hot = HotStatement(statement)
    with _AGENT_ENGINE_LOCK:
        _HOT_STATEMENTS.append(hot)
        if _AGENT_ENGINE is not None:
            _AGENT_ENGINE[2][hot] = Prepared(_AGENT_ENGINE[1], statement)
    return hot


def _in_memory(url: sa.engine.URL) -> bool:
    return url.get_backend_name() == 'sqlite' and url.database in (
        None, '', ':memory:')


def _create_agent_engine(source: sa.engine.Engine) -> sa.engine.Engine:
    if _in_memory(source.url):
        return source  # a second engine would see another database
    size = CONF.api.agent_db_pool_size or CONF.database.max_pool_size or 5
    options: dict[str, Any] = {
        'isolation_level': 'AUTOCOMMIT',
        'pool_pre_ping': False,
        'pool_recycle': CONF.database.connection_recycle_time,
        'pool_size': size,
        'max_overflow': max(0, CONF.database.max_overflow or 0),
        'pool_timeout': CONF.database.pool_timeout or 30,
    }
    if source.url.get_backend_name() == 'sqlite':
        options['connect_args'] = {'timeout': 30}  # wait for the writer
    try:
        # SQLAlchemy >= 2.0.43: no ROLLBACK round trip on an autocommit
        # connection's release.
        return sa.create_engine(source.url, skip_autocommit_rollback=True,
                                **options)
    except TypeError:
        return sa.create_engine(source.url, **options)


def agent_engine() -> tuple[sa.engine.Engine,
                             dict[HotStatement, 'Prepared']]:
    """The agent path's engine and its compiled hot statements, on the
    same database as the facade (also when a test patched the facade)."""
    global _AGENT_ENGINE
    source = session.get_engine()
    current = _AGENT_ENGINE
    if current is not None and current[0] is source:
        return current[1], current[2]
    with _AGENT_ENGINE_LOCK:
        current = _AGENT_ENGINE
        if current is None or current[0] is not source:
            if current is not None and current[1] is not current[0]:
                current[1].dispose()
            engine = _create_agent_engine(source)
            with engine.connect():
                pass  # the dialect learns the server before compiling
            current = (source, engine, {
                hot: Prepared(engine, hot.statement)
                for hot in _HOT_STATEMENTS})
            _AGENT_ENGINE = current
    return current[1], current[2]


def _autocommit(engine: sa.engine.Engine) -> bool:
    current = _AGENT_ENGINE
    return current is not None and current[1] is engine and (
        current[0] is not engine)


class Prepared:
    """A Core statement compiled once for one engine's dialect and run on
    a raw pooled DBAPI cursor, with the column types' bind and result
    processing (e.g. JSON columns, SQLite's timestamps stored as text).
    """

    def __init__(self, engine: sa.engine.Engine, statement: Any) -> None:
        dialect = engine.dialect
        self.insert = isinstance(statement, sa.Insert)
        self.returning = self.insert and dialect.insert_returning
        if self.returning:
            statement = statement.returning(*statement.table.primary_key)
        compiled = statement.compile(dialect=dialect)
        self.sql = compiled.string
        self.order = (list(compiled.positiontup) if compiled.positional
                      else None)
        self.binds = {
            name: bind.type.dialect_impl(dialect).bind_processor(dialect)
            for name, bind in compiled.binds.items()}
        columns = [] if self.insert else list(statement.selected_columns)
        self.names = [column.key for column in columns]
        self.processors = [
            column.type.dialect_impl(dialect).result_processor(dialect,
                                                               None)
            for column in columns]

    def _args(self, params: dict) -> Any:
        params = {name: (value if self.binds.get(name) is None
                         else self.binds[name](value))
                  for name, value in params.items()}
        if self.order is not None:
            return tuple(params[name] for name in self.order)
        return params

    def _execute(self, engine: sa.engine.Engine, params: dict,
                 retry: bool, every_row: bool = False) -> Any:
        args = self._args(params)
        for attempt in range(2):
            connection = engine.raw_connection()
            cursor = None
            try:
                cursor = connection.cursor()
                try:
                    cursor.execute(self.sql, args)
                    if not self.insert:
                        return (cursor.fetchall() if every_row
                                else cursor.fetchone())
                    if self.returning:
                        result = cursor.fetchone()[0]
                    else:
                        result = cursor.lastrowid
                    if not _autocommit(engine):
                        connection.commit()  # the facade's own engine
                    return result
                finally:
                    cursor.close()
            except engine.dialect.loaded_dbapi.Error as exc:
                if not engine.dialect.is_disconnect(
                        exc, connection.dbapi_connection, cursor):
                    raise
                connection.invalidate(exc)
                if attempt or not retry:
                    raise
            finally:
                connection.close()
        return None

    def first(self, engine: sa.engine.Engine, params: dict) -> dict | None:
        """The first row, as a dict; read once more on a fresh connection
        if the pooled one turned out dead."""
        row = self._execute(engine, params, retry=True)
        if row is None:
            return None
        return {name: (value if process is None else process(value))
                for name, value, process in zip(
                    self.names, row, self.processors, strict=True)}

    def rows(self, engine: sa.engine.Engine, params: dict) -> list[tuple]:
        """Every row, as tuples without result processing (for integer
        and string columns only); retried like ``first``."""
        return [tuple(row) for row in self._execute(
            engine, params, retry=True, every_row=True)]

    def insert_one(self, engine: sa.engine.Engine, params: dict) -> int:
        """The new row's primary key. Never retried: an INSERT whose
        answer was lost may have happened."""
        return self._execute(engine, params, retry=False)
