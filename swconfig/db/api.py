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
from oslo_db.sqlalchemy import enginefacade
from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.db import models

_CONTEXT = enginefacade.transaction_context()
_CONTEXT.configure(sqlite_fk=True)

reader = _CONTEXT.reader
writer = _CONTEXT.writer


def get_engine() -> sa.engine.Engine:
    return _CONTEXT.writer.get_engine()


def dispose_engine() -> None:
    _CONTEXT.dispose_pool()


@sa.event.listens_for(sa.engine.Engine, 'connect')
def _sqlite_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    """WAL and a busy timeout let the embedded default's API and engine
    threads share one SQLite file without "database is locked" errors."""
    if type(dbapi_connection).__module__.startswith('sqlite3'):
        cursor = dbapi_connection.cursor()
        cursor.execute('PRAGMA journal_mode=WAL')
        cursor.execute('PRAGMA busy_timeout=30000')
        cursor.close()


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
    referenced = context.session.scalar(
        sa.select(models.SoftwareDeployment.id).where(
            models.SoftwareDeployment.config_id == config_id).limit(1))
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
def software_deployment_count(context: Any) -> int:
    model = models.SoftwareDeployment
    query = sa.select(sa.func.count()).select_from(model).where(sa.or_(
        model.tenant == context.project_id,
        model.stack_user_project_id == context.project_id))
    return context.session.scalar(query)


@oslo_db_api.retry_on_deadlock
@writer
def software_deployment_update(context: Any, deployment_id: str,
                               expected_version: int, values: dict) -> dict:
    """Apply ``values`` only if the row is still at ``expected_version``.

    Raises ConcurrentUpdate when another writer got there first, so the
    caller can re-read and decide again: no update is ever lost. A change
    of status is recorded as an event in the same transaction.
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
    if 'status' in values and values['status'] != old_status:
        _add_event(context, deployment_id, row.action, old_status,
                   row.status, row.status_reason, row.updated_at)
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
