"""The database facade: ``<entity>_<verb>(context, ...)`` functions.

Readers and writers use oslo.db's enginefacade with the request context as
the transaction holder. Every query that returns project data is scoped to
the caller's project inside the query itself (admins are not scoped), so an
object of another project is simply "not found". Functions return plain
dicts, never live ORM objects.
"""

import threading
from typing import Any

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.db import models

_CONTEXT = enginefacade.transaction_context()
_CONTEXT.configure(sqlite_fk=True)

reader = _CONTEXT.reader
writer = _CONTEXT.writer


def get_engine() -> sa.engine.Engine:
    return _CONTEXT.writer.get_engine()


def dispose_engine() -> None:
    _CONTEXT.dispose_pool()


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


def _on_engine_create(engine: sa.engine.Engine) -> None:
    if engine.dialect.name == 'sqlite':
        sa.event.listen(engine, 'connect', _sqlite_pragmas)
        sa.event.listen(engine, 'before_cursor_execute', _sqlite_begin,
                        retval=True)


_CONTEXT.append_on_engine_create(_on_engine_create)


def _visible_configs(context: Any, all_projects: bool = False) -> sa.Select:
    query = sa.select(models.SoftwareConfig)
    if not (context.is_admin or all_projects):
        query = query.where(
            models.SoftwareConfig.tenant == context.project_id)
    return query


def _visible_deployments(context: Any) -> sa.Select:
    query = sa.select(models.SoftwareDeployment)
    if not context.is_admin:
        model = models.SoftwareDeployment
        query = query.where(sa.or_(
            model.tenant == context.project_id,
            model.stack_user_project_id == context.project_id))
    return query


# -- software configs -------------------------------------------------------

@writer
def software_config_create(context: Any, values: dict) -> dict:
    row = models.SoftwareConfig(**values)
    row.created_at = row.created_at or timeutils.utcnow()
    context.session.add(row)
    context.session.flush()
    return row.to_dict()


@reader
def software_config_get(context: Any, config_id: str) -> dict:
    query = _visible_configs(context).where(
        models.SoftwareConfig.id == config_id)
    row = context.session.scalars(query).first()
    if row is None:
        raise exception.ConfigNotFound(config_id=config_id)
    return row.to_dict()


@reader
def software_config_get_all(context: Any, limit: int | None = None,
                            marker: str | None = None,
                            all_projects: bool = False) -> list[dict]:
    """Newest first (created_at, id descending), Heat's paging rules: the
    marker is looked up in any project and ignored when unknown.
    ``all_projects`` is for callers the global_index policy allowed."""
    model = models.SoftwareConfig
    query = _visible_configs(context, all_projects).order_by(
        model.created_at.desc(), model.id.desc())
    if marker:
        mark = context.session.get(model, marker)
        if mark is not None:
            query = query.where(sa.or_(
                model.created_at < mark.created_at,
                sa.and_(model.created_at == mark.created_at,
                        model.id < mark.id)))
    if limit is not None:
        query = query.limit(limit)
    return [row.to_dict() for row in context.session.scalars(query)]


@reader
def software_config_count(context: Any) -> int:
    query = sa.select(sa.func.count()).select_from(
        models.SoftwareConfig).where(
            models.SoftwareConfig.tenant == context.project_id)
    return context.session.scalar(query)


@oslo_db_api.retry_on_deadlock
@writer
def software_config_delete(context: Any, config_id: str) -> None:
    query = _visible_configs(context).where(
        models.SoftwareConfig.id == config_id)
    row = context.session.scalars(query).first()
    if row is None:
        raise exception.ConfigNotFound(config_id=config_id)
    deployment = models.SoftwareDeployment
    referenced = context.session.scalar(
        sa.select(deployment.id).where(sa.or_(
            deployment.config_id == config_id,
            deployment.source_config_id == config_id)).limit(1))
    if referenced is not None:
        raise exception.ConfigInUse(config_id=config_id)
    try:
        context.session.delete(row)
        context.session.flush()
    except db_exc.DBReferenceError:
        # A deployment referencing it was committed in between.
        raise exception.ConfigInUse(config_id=config_id)


# -- software deployments ---------------------------------------------------

def _add_event(context: Any, deployment_id: str, action: str | None,
               old_status: str | None, new_status: str | None,
               reason: str | None, when: Any) -> None:
    context.session.add(models.DeploymentEvent(
        deployment_id=deployment_id, created_at=when, action=action,
        old_status=old_status, new_status=new_status, reason=reason))


@writer
def software_deployment_create(context: Any, values: dict) -> dict:
    """Insert a deployment and its first event, in one transaction."""
    row = models.SoftwareDeployment(**values)
    row.created_at = row.created_at or timeutils.utcnow()
    row.version = 1
    context.session.add(row)
    try:
        context.session.flush()
    except db_exc.DBReferenceError:
        raise exception.ConfigNotFound(config_id=values.get('config_id'))
    _add_event(context, row.id, row.action, None, row.status,
               row.status_reason, row.created_at)
    return row.to_dict()


@reader
def software_deployment_get(context: Any, deployment_id: str) -> dict:
    query = _visible_deployments(context).where(
        models.SoftwareDeployment.id == deployment_id)
    row = context.session.scalars(query).first()
    if row is None:
        raise exception.DeploymentNotFound(deployment_id=deployment_id)
    return row.to_dict()


@reader
def software_deployment_get_all(context: Any,
                                server_id: str | None = None) -> list[dict]:
    model = models.SoftwareDeployment
    query = _visible_deployments(context).order_by(
        model.created_at.asc(), model.id.asc())
    if server_id:
        query = query.where(model.server_id == server_id)
    return [row.to_dict() for row in context.session.scalars(query)]


@reader
def software_deployment_count(context: Any,
                              at_most: int | None = None) -> int:
    """The project's deployments; counting stops at ``at_most`` (a quota
    check needs no more), so the cost does not grow with the table."""
    model = models.SoftwareDeployment
    rows = sa.select(sa.literal(1)).select_from(model).where(sa.or_(
        model.tenant == context.project_id,
        model.stack_user_project_id == context.project_id))
    if at_most is not None:
        rows = rows.limit(at_most)
    query = sa.select(sa.func.count()).select_from(rows.subquery())
    return context.session.scalar(query)


@oslo_db_api.retry_on_deadlock
@writer
def software_deployment_update(context: Any, deployment_id: str,
                               expected_version: int, values: dict,
                               event_reason: str | None = None) -> dict:
    """Apply ``values`` only if the row is still at ``expected_version``.

    Raises ConcurrentUpdate when another writer got there first, so the
    caller can re-read and decide again: no update is ever lost. A change
    of status is recorded as an event in the same transaction, and so is
    any update given an ``event_reason`` (e.g. a progress message).
    """
    model = models.SoftwareDeployment
    query = _visible_deployments(context).where(model.id == deployment_id)
    row = context.session.scalars(query).first()
    if row is None:
        raise exception.DeploymentNotFound(deployment_id=deployment_id)
    if row.version != expected_version:
        raise exception.ConcurrentUpdate(deployment_id=deployment_id)
    old_status = row.status
    values = dict(values, version=expected_version + 1)
    values.setdefault('updated_at', timeutils.utcnow())
    try:
        changed = context.session.execute(
            sa.update(model)
            .where(model.id == deployment_id,
                   model.version == expected_version)
            .values(**values)
            .execution_options(synchronize_session=False)).rowcount
    except db_exc.DBReferenceError:
        raise exception.ConfigNotFound(config_id=values.get('config_id'))
    if changed != 1:
        raise exception.ConcurrentUpdate(deployment_id=deployment_id)
    context.session.expire(row)
    row = context.session.get(model, deployment_id)
    if event_reason is not None or (
            'status' in values and values['status'] != old_status):
        _add_event(context, deployment_id, row.action, old_status,
                   row.status, event_reason or row.status_reason,
                   row.updated_at)
    return row.to_dict()


@oslo_db_api.retry_on_deadlock
@writer
def software_deployment_delete(context: Any, deployment_id: str) -> dict:
    model = models.SoftwareDeployment
    query = _visible_deployments(context).where(model.id == deployment_id)
    row = context.session.scalars(query).first()
    if row is None:
        raise exception.DeploymentNotFound(deployment_id=deployment_id)
    context.session.execute(
        sa.delete(models.DeploymentEvent).where(
            models.DeploymentEvent.deployment_id == deployment_id))
    context.session.delete(row)
    return row.to_dict()


@reader
def software_deployment_event_get_all(context: Any,
                                      deployment_id: str) -> list[dict]:
    software_deployment_get(context, deployment_id)  # visibility check
    query = sa.select(models.DeploymentEvent).where(
        models.DeploymentEvent.deployment_id == deployment_id).order_by(
            models.DeploymentEvent.id.asc())
    return [row.to_dict() for row in context.session.scalars(query)]


@reader
def server_metadata_get(context: Any, server_id: str) -> list[dict]:
    """The configs of a server's visible deployments, in one joined query,
    ordered by deployment creation (the caller sorts by config name)."""
    deployment = models.SoftwareDeployment
    config = models.SoftwareConfig
    query = (sa.select(config)
             .join(deployment, deployment.config_id == config.id)
             .where(deployment.server_id == server_id)
             .order_by(deployment.created_at.asc(), deployment.id.asc()))
    if not context.is_admin:
        query = query.where(sa.or_(
            deployment.tenant == context.project_id,
            deployment.stack_user_project_id == context.project_id))
    return [row.to_dict() for row in context.session.scalars(query)]


@writer
def deployment_event_add(context: Any, deployment_id: str,
                         action: str | None, status: str | None,
                         reason: str) -> None:
    """An event that changes nothing else (a refused or stale signal)."""
    _add_event(context, deployment_id, action, status, status, reason,
               timeutils.utcnow())


@reader
def software_deployment_timed_out(context: Any, now: Any,
                                  limit: int) -> list[dict]:
    model = models.SoftwareDeployment
    query = (sa.select(model)
             .where(model.status == 'IN_PROGRESS', model.timeout_at < now)
             .order_by(model.timeout_at).limit(limit))
    return [row.to_dict() for row in context.session.scalars(query)]


# -- servers ----------------------------------------------------------------

@oslo_db_api.wrap_db_retry(max_retries=3, exception_checker=lambda exc:
                           isinstance(exc, db_exc.DBDuplicateEntry))
@writer
def server_claim(context: Any, server_id: str, base_url: str | None,
                 create: bool = True) -> dict:
    """The server row, created for the caller's project if it is new
    (unless ``create`` is false: then an unknown server is not found).

    A server belongs to the project that first claimed it; anybody else
    (but an admin) is refused.
    """
    row = context.session.get(models.Server, server_id)
    if row is None and not create:
        raise exception.ServerNotRegistered(server_id=server_id)
    if row is None:
        now = timeutils.utcnow()
        row = models.Server(id=server_id, tenant=context.project_id,
                            base_url=base_url, token_revision=1,
                            document_revision=0, created_at=now,
                            updated_at=now)
        context.session.add(row)
        context.session.flush()
    elif row.tenant != context.project_id and not context.is_admin:
        raise exception.ServerOwnedByOtherProject(server_id=server_id)
    return row.to_dict()


@reader
def server_get(context: Any, server_id: str) -> dict:
    row = context.session.get(models.Server, server_id)
    if row is None or (row.tenant != context.project_id
                       and not context.is_admin):
        raise exception.ServerNotFound(server_id=server_id)
    return row.to_dict()


@reader
def server_get_all(context: Any) -> list[dict]:
    model = models.Server
    query = sa.select(model).order_by(model.created_at, model.id)
    if not context.is_admin:
        query = query.where(model.tenant == context.project_id)
    return [row.to_dict() for row in context.session.scalars(query)]


@reader
def server_owner(context: Any, server_id: str) -> str | None:
    """The project owning ``server_id``, or None if nobody registered it."""
    return context.session.scalar(
        sa.select(models.Server.tenant).where(models.Server.id == server_id))


@writer
def server_delete(context: Any, server_id: str) -> None:
    """Forget a server; refused while any deployment targets it."""
    row = context.session.get(models.Server, server_id)
    if row is None or (row.tenant != context.project_id
                       and not context.is_admin):
        raise exception.ServerNotFound(server_id=server_id)
    in_use = context.session.scalar(
        sa.select(models.SoftwareDeployment.id).where(
            models.SoftwareDeployment.server_id == server_id).limit(1))
    if in_use is not None:
        raise exception.ServerInUse(server_id=server_id)
    context.session.delete(row)


@reader
def server_document_get(context: Any, server_id: str,
                        with_document: bool = True) -> dict | None:
    """The agent's hot path: one primary-key read of the pre-rendered
    document (or, for HEAD, only its validators)."""
    model = models.Server
    columns = [model.etag, model.updated_at, model.token_revision]
    if with_document:
        columns.append(model.document)
    row = context.session.execute(
        sa.select(*columns).where(model.id == server_id)).first()
    return None if row is None else row._asdict()


def _columns(model: Any, prefix: str) -> list:
    return [column.label(f'{prefix}{column.key}')
            for column in model.__table__.columns]


def _split(row: Any, **prefixes: str) -> dict[str, dict | None]:
    """A joined Core row back into one dict per table (None for the
    missing side of an outer join)."""
    values = row._asdict()
    parts = {}
    for name, prefix in prefixes.items():
        part = {key[len(prefix):]: value for key, value in values.items()
                if key.startswith(prefix)}
        parts[name] = part if part.get('id') is not None else None
    return parts


@reader
def server_deployment_configs(context: Any, server_id: str) -> list[dict]:
    """Every deployment of a server with its config, oldest first: the
    input of the metadata renderer. Core rows, not ORM objects: renders
    run for every change of every server."""
    deployment = models.SoftwareDeployment
    config = models.SoftwareConfig
    query = (sa.select(*_columns(deployment, 'd_'), *_columns(config, 'c_'))
             .join(config, deployment.config_id == config.id)
             .where(deployment.server_id == server_id)
             .order_by(deployment.created_at.asc(), deployment.id.asc()))
    return [_split(row, deployment='d_', config='c_')
            for row in context.session.execute(query)]


@writer
def server_document_store(context: Any, server_id: str,
                          expected_revision: int, document: str,
                          etag: str) -> bool:
    """Store a newly rendered document unless someone rendered since."""
    model = models.Server
    changed = context.session.execute(
        sa.update(model)
        .where(model.id == server_id,
               model.document_revision == expected_revision)
        .values(document=document, etag=etag,
                document_revision=expected_revision + 1,
                updated_at=timeutils.utcnow())
        .execution_options(synchronize_session=False)).rowcount
    return changed == 1


# -- signals ----------------------------------------------------------------

@writer
def signal_inbox_add(context: Any, deployment_id: str,
                     action_revision: int, payload: Any) -> int:
    row = models.SignalInbox(deployment_id=deployment_id,
                             action_revision=action_revision,
                             payload=payload,
                             received_at=timeutils.utcnow())
    context.session.add(row)
    context.session.flush()
    return row.id


@reader
def signal_inbox_get(context: Any, inbox_id: int) -> dict | None:
    row = context.session.get(models.SignalInbox, inbox_id)
    return None if row is None else row.to_dict()


@reader
def signal_inbox_contexts(context: Any, inbox_ids: list[int]) -> dict:
    """What applying stored signals needs, in one query: for each signal
    id found, the signal, its deployment (None once deleted) and the
    outputs declared by the deployment's config."""
    inbox = models.SignalInbox
    deployment = models.SoftwareDeployment
    config = models.SoftwareConfig
    rows = context.session.execute(
        sa.select(*_columns(inbox, 's_'), *_columns(deployment, 'd_'),
                  config.outputs.label('outputs'))
        .outerjoin(deployment, deployment.id == inbox.deployment_id)
        .outerjoin(config, config.id == deployment.config_id)
        .where(inbox.id.in_(inbox_ids)))
    found = {}
    for row in rows:
        parts = _split(row, signal='s_', deployment='d_')
        parts['outputs'] = row.outputs
        found[parts['signal']['id']] = parts
    return found


@oslo_db_api.retry_on_deadlock
@writer
def signal_inbox_apply(context: Any, changes: list[dict]) -> dict[int, str]:
    """Apply several signals in one transaction (one commit for all).

    Each change names ``inbox_id``, ``result``, ``deployment_id``,
    ``expected_version``, the deployment ``values`` to write, and for its
    event ``action``, ``old_status`` and ``reason``. Per signal, as
    ``signal_inbox_finish`` + ``software_deployment_update`` would: the
    claim (``processed_at``) and the conditional update commit together.
    Returns, per inbox id, ``applied``, ``taken`` (another engine claimed
    it) or ``conflict`` (the deployment changed: read it again).
    """
    inbox = models.SignalInbox.__table__
    deployment = models.SoftwareDeployment.__table__
    now = timeutils.utcnow()
    outcome = {}
    events = []
    for change in changes:
        inbox_id = change['inbox_id']
        claimed = context.session.execute(
            sa.update(inbox)
            .where(inbox.c.id == inbox_id, inbox.c.processed_at.is_(None))
            .values(processed_at=now, result=change['result'])).rowcount
        if claimed != 1:
            outcome[inbox_id] = 'taken'
            continue
        values = dict(change['values'],
                      version=change['expected_version'] + 1)
        values.setdefault('updated_at', now)
        updated = context.session.execute(
            sa.update(deployment)
            .where(deployment.c.id == change['deployment_id'],
                   deployment.c.version == change['expected_version'])
            .values(**values)).rowcount
        if updated != 1:
            # Take our uncommitted claim back; the signal is read again.
            context.session.execute(
                sa.update(inbox).where(inbox.c.id == inbox_id)
                .values(processed_at=None, result=None))
            outcome[inbox_id] = 'conflict'
            continue
        events.append({
            'deployment_id': change['deployment_id'],
            'created_at': values['updated_at'], 'action': change['action'],
            'old_status': change['old_status'],
            'new_status': values.get('status', change['old_status']),
            'reason': change['reason']})
        outcome[inbox_id] = 'applied'
    if events:
        context.session.execute(
            sa.insert(models.DeploymentEvent.__table__), events)
    return outcome


@reader
def signal_inbox_pending_upto(context: Any, last_id: int,
                              limit: int) -> list[int]:
    """Unprocessed signals stored up to ``last_id``, oldest first (one
    cast covers the signals an API worker stored before it)."""
    model = models.SignalInbox
    query = (sa.select(model.id)
             .where(model.processed_at.is_(None), model.id <= last_id)
             .order_by(model.id).limit(limit))
    return list(context.session.scalars(query))


@reader
def signal_inbox_pending(context: Any, received_before: Any,
                         limit: int) -> list[int]:
    model = models.SignalInbox
    query = (sa.select(model.id)
             .where(model.processed_at.is_(None),
                    model.received_at < received_before)
             .order_by(model.id).limit(limit))
    return list(context.session.scalars(query))


@writer
def signal_inbox_finish(context: Any, inbox_id: int, result: str) -> bool:
    """Claim the signal as handled; False if another engine already did.
    Called inside the transaction that applies (or discards) it, so the
    claim and its effect commit together."""
    model = models.SignalInbox
    changed = context.session.execute(
        sa.update(model)
        .where(model.id == inbox_id, model.processed_at.is_(None))
        .values(processed_at=timeutils.utcnow(), result=result)
        .execution_options(synchronize_session=False)).rowcount
    return changed == 1


@reader
def software_deployment_signal_target(context: Any,
                                      deployment_id: str) -> dict | None:
    """What the signal URL handler needs, unscoped (the URL's signature is
    the credential): revision, status and the server."""
    model = models.SoftwareDeployment
    row = context.session.execute(
        sa.select(model.id, model.action_revision, model.status,
                  model.signal_transport, model.server_id)
        .where(model.id == deployment_id)).first()
    return None if row is None else row._asdict()


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
    source = _CONTEXT.reader.get_engine()
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


def agent_engine() -> sa.engine.Engine:
    return _agent()[0]


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
                 retry: bool) -> Any:
        args = self._args(params)
        for attempt in range(2):
            connection = engine.raw_connection()
            cursor = None
            try:
                cursor = connection.cursor()
                try:
                    cursor.execute(self.sql, args)
                    if not self.insert:
                        return cursor.fetchone()
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

    def insert_one(self, engine: sa.engine.Engine, params: dict) -> int:
        """The new row's primary key. Never retried: an INSERT whose
        answer was lost may have happened."""
        return self._execute(engine, params, retry=False)


_SERVER = models.Server.__table__
_VALIDATORS = (_SERVER.c.etag, _SERVER.c.updated_at, _SERVER.c.token_revision)
_DEPLOYMENT = models.SoftwareDeployment.__table__
_INBOX = models.SignalInbox.__table__
_AGENT_STATEMENTS = {
    'head': sa.select(*_VALIDATORS).where(
        _SERVER.c.id == sa.bindparam('server_id')),
    'get': sa.select(*_VALIDATORS, _SERVER.c.document).where(
        _SERVER.c.id == sa.bindparam('server_id')),
    # The document only when the agent's copy is stale: a 304 reads no
    # blob.
    'get_unless': sa.select(
        *_VALIDATORS,
        sa.case((_SERVER.c.etag == sa.bindparam('etag'), sa.null()),
                else_=_SERVER.c.document).label('document')).where(
        _SERVER.c.id == sa.bindparam('server_id')),
    'signal_target': sa.select(
        _DEPLOYMENT.c.action_revision, _DEPLOYMENT.c.status).where(
        _DEPLOYMENT.c.id == sa.bindparam('deployment_id')),
    'signal_insert': _INBOX.insert().values(
        deployment_id=sa.bindparam('deployment_id'),
        action_revision=sa.bindparam('action_revision'),
        payload=sa.bindparam('payload', type_=_INBOX.c.payload.type),
        received_at=sa.bindparam('received_at',
                                 type_=_INBOX.c.received_at.type)),
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


def agent_signal_store(deployment_id: str, action_revision: int,
                       payload: Any) -> tuple[dict | None, int | None]:
    """Store an agent's signal durably if its deployment exists.

    Returns the deployment's current ``action_revision`` and ``status``
    (None when there is no such deployment, and then nothing is stored)
    and the inbox row's id. Only the read is retried on a dead
    connection: an INSERT whose answer was lost might have happened.
    """
    engine, statements = _agent()
    target = statements['signal_target'].first(
        engine, {'deployment_id': deployment_id})
    if target is None:
        return None, None
    inbox_id = statements['signal_insert'].insert_one(engine, {
        'deployment_id': deployment_id, 'action_revision': action_revision,
        'payload': payload, 'received_at': timeutils.utcnow()})
    return target, inbox_id
