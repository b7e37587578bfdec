"""The database facade: ``<entity>_<verb>(context, ...)`` functions.

Readers and writers use oslo.db's enginefacade with the request context as
the transaction holder. Every query that returns project data is scoped to
the caller's project inside the query itself (admins are not scoped), so an
object of another project is simply "not found". Functions return plain
dicts, never live ORM objects.
"""

from typing import Any

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.db import joins
from swconfig.db import models

# The signal inbox and the agents' hot path live in modules of their own;
# they are part of this facade, so callers keep using ``db_api.<name>``.
from swconfig.db.agent_path import agent_server_document  # noqa: F401
from swconfig.db.agent_path import agent_signal_store  # noqa: F401
from swconfig.db.session import _CONTEXT  # noqa: F401 - for test fixtures
from swconfig.db.session import dispose_engine  # noqa: F401
from swconfig.db.session import get_engine  # noqa: F401
from swconfig.db.session import reader
from swconfig.db.session import writer
from swconfig.db.signals import deployment_events_add  # noqa: F401
from swconfig.db.signals import signal_deployments_lock  # noqa: F401
from swconfig.db.signals import signal_inbox_add  # noqa: F401
from swconfig.db.signals import signal_inbox_claim  # noqa: F401
from swconfig.db.signals import signal_inbox_finish  # noqa: F401
from swconfig.db.signals import signal_inbox_first_pending  # noqa: F401
from swconfig.db.signals import signal_inbox_pending  # noqa: F401
from swconfig.db.signals import signal_inbox_pending_upto  # noqa: F401
from swconfig.db.signals import software_deployment_signal_target  # noqa: F401
from swconfig.db.signals import software_deployments_apply  # noqa: F401


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


_CONFIG = models.SoftwareConfig.__table__
_DEPLOYMENT = models.SoftwareDeployment.__table__
_EVENT = models.DeploymentEvent.__table__
_SERVER = models.Server.__table__
# Compiled once: creating a deployment is a hot path (Core, not the ORM).
_INSERT_CONFIG = sa.insert(_CONFIG)
_INSERT_DEPLOYMENT = sa.insert(_DEPLOYMENT)
_INSERT_EVENT = sa.insert(_EVENT)
_INSERT_SERVER = sa.insert(_SERVER)
_SERVER_CLAIM = sa.select(*(column for column in _SERVER.columns
                            if column.key != 'document')).where(
    _SERVER.c.id == sa.bindparam('server_id'))
_CONFIG_GET = sa.select(_CONFIG).where(
    _CONFIG.c.id == sa.bindparam('config_id'))
_CONFIG_GET_SCOPED = _CONFIG_GET.where(
    _CONFIG.c.tenant == sa.bindparam('project_id'))
# The renderer's input: every deployment of a server with its config.
_SERVER_DEPLOYMENT_CONFIGS = (
    sa.select(*joins.labelled_columns(models.SoftwareDeployment, 'd_'),
              *joins.labelled_columns(models.SoftwareConfig, 'c_'))
    .join(_CONFIG, _DEPLOYMENT.c.config_id == _CONFIG.c.id)
    .where(_DEPLOYMENT.c.server_id == sa.bindparam('server_id'))
    .order_by(_DEPLOYMENT.c.created_at.asc(), _DEPLOYMENT.c.id.asc()))
_SERVER_DOCUMENT_STORE = (
    sa.update(_SERVER)
    .where(_SERVER.c.id == sa.bindparam('server_id'),
           _SERVER.c.document_revision == sa.bindparam('expected_revision'))
    .values(document=sa.bindparam('document'), etag=sa.bindparam('etag'),
            document_revision=sa.bindparam('revision'),
            updated_at=sa.bindparam('now')))


def _new_row(table: sa.Table, values: dict) -> dict:
    """A row as the table will hold it: every column, None by default."""
    row = dict.fromkeys(table.columns.keys())
    row.update(values)
    return row


# -- software configs -------------------------------------------------------

@writer
def software_config_create(context: Any, values: dict) -> dict:
    row = _new_row(_CONFIG, values)
    row['created_at'] = row['created_at'] or timeutils.utcnow()
    context.session.connection().execute(_INSERT_CONFIG, row)
    return row


@reader
def software_config_get(context: Any, config_id: str) -> dict:
    if context.is_admin:
        found = context.session.connection().execute(
            _CONFIG_GET, {'config_id': config_id})
    else:
        found = context.session.connection().execute(
            _CONFIG_GET_SCOPED, {'config_id': config_id,
                                 'project_id': context.project_id})
    row = found.first()
    if row is None:
        raise exception.ConfigNotFound(config_id=config_id)
    return row._asdict()


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
    row = _new_row(_DEPLOYMENT, values)
    row['created_at'] = row['created_at'] or timeutils.utcnow()
    row['version'] = 1
    if row['action_revision'] is None:
        row['action_revision'] = 0
    connection = context.session.connection()
    try:
        connection.execute(_INSERT_DEPLOYMENT, row)
    except db_exc.DBReferenceError:
        raise exception.ConfigNotFound(config_id=values.get('config_id'))
    connection.execute(_INSERT_EVENT, {
        'deployment_id': row['id'], 'created_at': row['created_at'],
        'action': row['action'], 'old_status': None,
        'new_status': row['status'], 'reason': row['status_reason']})
    return row


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
    """The server row without its document, created for the caller's
    project if it is new (unless ``create`` is false: then an unknown
    server is not found).

    A server belongs to the project that first claimed it; anybody else
    (but an admin) is refused.
    """
    connection = context.session.connection()
    found = connection.execute(_SERVER_CLAIM, {'server_id': server_id})
    row = found.first()
    if row is None and not create:
        raise exception.ServerNotRegistered(server_id=server_id)
    if row is None:
        now = timeutils.utcnow()
        server = {'id': server_id, 'tenant': context.project_id,
                  'base_url': base_url, 'token_revision': 1,
                  'document_revision': 0, 'etag': None, 'created_at': now,
                  'updated_at': now}
        connection.execute(_INSERT_SERVER, server)
        return server
    if row.tenant != context.project_id and not context.is_admin:
        raise exception.ServerOwnedByOtherProject(server_id=server_id)
    return row._asdict()


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


@reader
def server_deployment_configs(context: Any, server_id: str) -> list[dict]:
    """Every deployment of a server with its config, oldest first: the
    input of the metadata renderer. Core rows, not ORM objects: renders
    run for every change of every server."""
    rows = context.session.connection().execute(
        _SERVER_DEPLOYMENT_CONFIGS, {'server_id': server_id})
    return [joins.split_row(row, deployment='d_', config='c_')
            for row in rows]


@writer
def server_document_store(context: Any, server_id: str,
                          expected_revision: int, document: str,
                          etag: str) -> bool:
    """Store a newly rendered document unless someone rendered since."""
    changed = context.session.connection().execute(_SERVER_DOCUMENT_STORE, {
        'server_id': server_id, 'expected_revision': expected_revision,
        'document': document, 'etag': etag,
        'revision': expected_revision + 1,
        'now': timeutils.utcnow()}).rowcount
    return changed == 1
