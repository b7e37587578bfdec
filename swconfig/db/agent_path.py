"""The agents' hot path: metadata polls and signal stores on an autocommit
engine of their own. Part of the DB facade (``swconfig.db.api``)."""

from collections.abc import Sequence
import threading
from typing import Any

from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.conf import CONF
from swconfig.db import models
from swconfig.db import session

# -- the agents' hot path -----------------------------------------------------
#
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


def _agent() -> tuple[sa.engine.Engine, dict]:
    """The agent path's engine and its compiled statements, on the same
    database as the facade (also when a test patched the facade)."""
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
                name: _Prepared(engine, statement)
                for name, statement in _AGENT_STATEMENTS.items()})
            _AGENT_ENGINE = current
    return current[1], current[2]


def _autocommit(engine: sa.engine.Engine) -> bool:
    current = _AGENT_ENGINE
    return current is not None and current[1] is engine and (
        current[0] is not engine)


class _Prepared:
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


_SERVER = models.Server.__table__
_VALIDATORS = (_SERVER.c.etag, _SERVER.c.updated_at, _SERVER.c.token_revision)
_DEPLOYMENT = models.SoftwareDeployment.__table__
_INBOX = models.SignalInbox.__table__
_CHANGE = models.ServerChange.__table__
_AGENT_STATEMENTS = {
    'head': sa.select(*_VALIDATORS).where(
        _SERVER.c.id == sa.bindparam('server_id')),
    # With the owner, for the tenant view (swconfig.api.tenant_metadata).
    'get': sa.select(*_VALIDATORS, _SERVER.c.document,
                     _SERVER.c.tenant).where(
        _SERVER.c.id == sa.bindparam('server_id')),
    # The document only when the agent's copy is stale: a 304 reads no
    # blob.
    'get_unless': sa.select(
        *_VALIDATORS,
        sa.case((_SERVER.c.etag == sa.bindparam('etag'), sa.null()),
                else_=_SERVER.c.document).label('document')).where(
        _SERVER.c.id == sa.bindparam('server_id')),
    'signal_target': sa.select(
        _DEPLOYMENT.c.action_revision, _DEPLOYMENT.c.status,
        _DEPLOYMENT.c.status_reason).where(
        _DEPLOYMENT.c.id == sa.bindparam('deployment_id')),
    'signal_insert': _INBOX.insert().values(
        deployment_id=sa.bindparam('deployment_id'),
        action_revision=sa.bindparam('action_revision'),
        payload=sa.bindparam('payload', type_=_INBOX.c.payload.type),
        received_at=sa.bindparam('received_at',
                                 type_=_INBOX.c.received_at.type),
        request_id=sa.bindparam('request_id')),
    'changes_after': sa.select(_CHANGE.c.id, _CHANGE.c.server_id).where(
        _CHANGE.c.id > sa.bindparam('after')).order_by(_CHANGE.c.id),
}


def agent_server_document(server_id: str, with_document: bool = True,
                          unless_etag: str | None = None) -> dict | None:
    """The validators of a server's pre-rendered document, and the
    document itself if ``with_document`` (but None when its ETag is
    ``unless_etag``): one primary-key read in one round trip."""
    engine, statements = _agent()
    if not with_document:
        return statements['head'].first(engine, {'server_id': server_id})
    if unless_etag is not None:
        return statements['get_unless'].first(
            engine, {'server_id': server_id, 'etag': unless_etag})
    return statements['get'].first(engine, {'server_id': server_id})


def agent_signal_target(deployment_id: str) -> dict | None:
    """The deployment's current ``action_revision``, ``status`` and
    ``status_reason``, for the signal-acceptance rule (None when there is
    no such deployment); read once more on a fresh connection if the
    pooled one was dead."""
    engine, statements = _agent()
    return statements['signal_target'].first(
        engine, {'deployment_id': deployment_id})


def agent_signal_insert(deployment_id: str, action_revision: int,
                        payload: Any, request_id: str | None = None) -> int:
    """Store an agent's signal durably, with the id of the request that
    brought it (the engine logs it when it applies the signal); the inbox
    row's id. Never retried: an INSERT whose answer was lost might have
    happened."""
    engine, statements = _agent()
    return statements['signal_insert'].insert_one(engine, {
        'deployment_id': deployment_id, 'action_revision': action_revision,
        'payload': payload, 'received_at': timeutils.utcnow(),
        'request_id': request_id})


def agent_server_changes(after: int | None, missing: Sequence[int] = (),
                         latest: int = 1000) -> list[tuple[int, str]]:
    """``(id, server_id)`` of the logged server changes with an id above
    ``after`` or in ``missing``, in id order; with ``after`` None, the
    ``latest`` ones (where a metadata cache starts)."""
    engine, statements = _agent()
    if after is None:  # once per worker start: not compiled
        with engine.connect() as connection:
            return sorted(tuple(row) for row in connection.execute(
                sa.select(_CHANGE.c.id, _CHANGE.c.server_id)
                .order_by(_CHANGE.c.id.desc()).limit(latest)))
    rows = statements['changes_after'].rows(engine, {'after': after})
    if missing:
        # Rare (a transaction still open or rolled back): not compiled.
        with engine.connect() as connection:
            rows.extend(tuple(row) for row in connection.execute(
                sa.select(_CHANGE.c.id, _CHANGE.c.server_id).where(
                    _CHANGE.c.id.in_(list(missing)))))
        rows.sort()
    return rows


def agent_server_documents(after: str | None, limit: int) -> list[dict]:
    """Up to ``limit`` servers with their documents, validators and owner
    (as ``agent_server_document`` gives them), in server id order from
    the first id above ``after``: a metadata cache warming up."""
    engine, _statements = _agent()
    query = sa.select(_SERVER.c.id, *_VALIDATORS, _SERVER.c.document,
                      _SERVER.c.tenant).order_by(_SERVER.c.id).limit(limit)
    if after is not None:
        query = query.where(_SERVER.c.id > after)
    with engine.connect() as connection:  # once per worker start
        return [dict(row._mapping) for row in connection.execute(query)]


def agent_server_changes_purge(before: Any) -> int:
    """Delete the server changes logged before ``before``; how many."""
    engine, _statements = _agent()
    with engine.begin() as connection:
        return connection.execute(_CHANGE.delete().where(
            _CHANGE.c.changed_at < before)).rowcount
