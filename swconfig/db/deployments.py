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

"""Software deployments: a config applied to a server, with the events
of their status changes.

Every write of a deployment is conditional on the ``version`` it was
read at, so concurrent writers never lose an update: the loser gets
ConcurrentUpdate, or False, and decides again on a fresh read. Beside
the API's CRUD this module holds what the engines write in batches when
they apply signals, what long polls and the Swift and Zaqar transport
workers watch, and the timeouts.
"""

import collections
from typing import Any

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.common import states
from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db import queries
from swconfig.db.agent_path import agent_engine
from swconfig.db.agent_path import hot_statement
from swconfig.db.session import reader
from swconfig.db.session import writer

_CONFIG = models.SoftwareConfig.__table__
_DEPLOYMENT = models.SoftwareDeployment.__table__
_EVENT = models.DeploymentEvent.__table__
# Built once: creating a deployment is a hot path (Core, not the ORM).
_INSERT_DEPLOYMENT = sa.insert(_DEPLOYMENT)
_INSERT_EVENT = sa.insert(_EVENT)
# What the API checks an agent's signal against (``agent_path``).
_SIGNAL_TARGET = hot_statement(sa.select(
    _DEPLOYMENT.c.action_revision, _DEPLOYMENT.c.status,
    _DEPLOYMENT.c.status_reason).where(
    _DEPLOYMENT.c.id == sa.bindparam('deployment_id')))


def _new_row(values: dict, now: Any) -> dict:
    """A new deployment's row: every column, at version 1."""
    row = queries.new_row(_DEPLOYMENT, values)
    row['created_at'] = row['created_at'] or now
    row['version'] = 1
    if row['action_revision'] is None:
        row['action_revision'] = 0
    return row


def _first_event(row: dict, event_reason: str | None) -> dict:
    """The event of a new deployment: its status, with ``event_reason``
    or else the status reason."""
    return {'deployment_id': row['id'], 'created_at': row['created_at'],
            'action': row['action'], 'old_status': None,
            'new_status': row['status'],
            'reason': event_reason or row['status_reason']}


@writer
def software_deployment_create(context: RequestContext, values: dict,
                               event_reason: str | None = None) -> dict:
    """Insert a deployment and its first event, in one transaction; the
    event's reason is ``event_reason``, else the status reason."""
    row = _new_row(values, timeutils.utcnow())
    connection = context.session.connection()
    try:
        connection.execute(_INSERT_DEPLOYMENT, row)
    except db_exc.DBReferenceError:
        raise exception.ConfigNotFound(config_id=values.get('config_id'))
    connection.execute(_INSERT_EVENT, _first_event(row, event_reason))
    return row


@writer
def software_deployments_create_many(context: RequestContext,
                                     values: list[dict],
                                     event_reason: str | None = None
                                     ) -> list[dict]:
    """Insert deployments and their first events (as
    ``software_deployment_create`` does one) in two statements, however
    many there are; the rows in the order given."""
    now = timeutils.utcnow()
    rows = [_new_row(item, now) for item in values]
    if not rows:
        return rows
    connection = context.session.connection()
    try:
        connection.execute(_INSERT_DEPLOYMENT, rows)
    except db_exc.DBReferenceError:
        # A config deleted since the batch was checked; which one the
        # database does not say.
        raise exception.ConfigNotFound(config_id=' or '.join(sorted(
            {row['source_config_id'] or row['config_id'] for row in rows})))
    connection.execute(_INSERT_EVENT,
                       [_first_event(row, event_reason) for row in rows])
    return rows


@reader
def software_deployment_get(context: RequestContext,
                            deployment_id: str) -> dict:
    """A deployment the caller may see; DeploymentNotFound otherwise."""
    query = queries.visible_deployments(context).where(
        models.SoftwareDeployment.id == deployment_id)
    row = context.session.scalars(query).first()
    if row is None:
        raise exception.DeploymentNotFound(deployment_id=deployment_id)
    return row.to_dict()


@writer
def software_deployment_get_for_update(context: RequestContext,
                                       deployment_id: str) -> dict:
    """As ``software_deployment_get``, the row locked until the caller's
    writer transaction ends (``FOR UPDATE``; on SQLite, whose writers
    take the database lock at BEGIN, already so): requests that decide
    on what the deployment has running are then decided one after the
    other."""
    query = queries.visible_deployments(context).where(
        models.SoftwareDeployment.id == deployment_id).with_for_update()
    row = context.session.scalars(query).first()
    if row is None:
        raise exception.DeploymentNotFound(deployment_id=deployment_id)
    return row.to_dict()


@reader
def software_deployments_get_many(context: RequestContext,
                                  deployment_ids: list[str]
                                  ) -> dict[str, dict]:
    """{id: row} of the deployments among ``deployment_ids`` the caller
    may see: one query; an id missing from the answer is "not found"."""
    if not deployment_ids:
        return {}
    query = queries.visible_deployments(context).where(
        models.SoftwareDeployment.id.in_(deployment_ids))
    return {row.id: row.to_dict()
            for row in context.session.scalars(query)}


@reader
def software_deployment_running(context: RequestContext, deployment_id: str,
                                action: str) -> dict | None:
    """The oldest deployment running ``action`` for ``deployment_id``:
    that deployment itself or one triggered from it, IN_PROGRESS; None
    when none is. Not scoped to the caller's project: a running action
    conflicts whoever started it."""
    model = models.SoftwareDeployment
    query = (sa.select(model)
             .where(sa.or_(model.id == deployment_id,
                           model.triggered_from == deployment_id),
                    model.action == action,
                    model.status == states.IN_PROGRESS)
             .order_by(model.created_at, model.id).limit(1))
    row = context.session.scalars(query).first()
    return None if row is None else row.to_dict()


@reader
def software_deployment_get_all(context: RequestContext,
                                server_id: str | None = None) -> list[dict]:
    """The deployments the caller may see (of ``server_id`` only, if
    given), oldest first."""
    model = models.SoftwareDeployment
    query = queries.visible_deployments(context).order_by(
        model.created_at.asc(), model.id.asc())
    if server_id:
        query = query.where(model.server_id == server_id)
    return [row.to_dict() for row in context.session.scalars(query)]


@reader
def servers_with_deployment_named(context: RequestContext,
                                  server_ids: list[str], name: str
                                  ) -> set[str]:
    """Those of ``server_ids`` that have a deployment the caller may see
    (not a trigger) of a config named ``name``: what a rollout that
    triggers an action of that deployment can run on."""
    model = models.SoftwareDeployment
    found: set[str] = set()
    for chunk in queries.in_chunks(sorted(set(server_ids))):
        query = (queries.visible_deployments(context)
                 .with_only_columns(model.server_id).distinct()
                 .join(_CONFIG, _CONFIG.c.id == model.config_id)
                 .where(model.server_id.in_(chunk),
                        model.triggered_from.is_(None),
                        _CONFIG.c.name == name))
        found.update(context.session.scalars(query))
    return found


@reader
def software_deployment_count(context: RequestContext,
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
def software_deployment_update(context: RequestContext, deployment_id: str,
                               expected_version: int, values: dict,
                               event_reason: str | None = None) -> dict:
    """Apply ``values`` only if the row is still at ``expected_version``.

    Raises ConcurrentUpdate when another writer got there first, so the
    caller can re-read and decide again: no update is ever lost. A change
    of status is recorded as an event in the same transaction, and so is
    any update given an ``event_reason`` (e.g. a progress message).
    """
    model = models.SoftwareDeployment
    query = queries.visible_deployments(context).where(
        model.id == deployment_id)
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
def software_deployment_delete(context: RequestContext,
                               deployment_id: str) -> dict:
    """Delete a deployment and its events; the row as it was, for the
    caller to remove its derived config, render its server's document
    again and clean up its signal transport."""
    model = models.SoftwareDeployment
    query = queries.visible_deployments(context).where(
        model.id == deployment_id)
    row = context.session.scalars(query).first()
    if row is None:
        raise exception.DeploymentNotFound(deployment_id=deployment_id)
    context.session.execute(
        sa.delete(models.DeploymentEvent).where(
            models.DeploymentEvent.deployment_id == deployment_id))
    context.session.delete(row)
    return row.to_dict()


@oslo_db_api.retry_on_deadlock
@writer
def software_deployments_delete_many(context: RequestContext,
                                     deployment_ids: list[str]
                                     ) -> list[dict]:
    """Delete the deployments among ``deployment_ids`` the caller may
    see, their events and the configs the engine derived for them (but
    one another deployment uses meanwhile), in a few statements; the rows
    as they were. What undoes a batch that failed half-way."""
    model = models.SoftwareDeployment
    rows = [row.to_dict() for row in context.session.scalars(
        queries.visible_deployments(context).where(
            model.id.in_(deployment_ids)))]
    if not rows:
        return rows
    ids = [row['id'] for row in rows]
    connection = context.session.connection()
    connection.execute(sa.delete(_EVENT).where(
        _EVENT.c.deployment_id.in_(ids)))
    connection.execute(sa.delete(_DEPLOYMENT).where(
        _DEPLOYMENT.c.id.in_(ids)))
    derived = [row['config_id'] for row in rows
               if row['source_config_id'] is not None]
    if derived:
        in_use = sa.exists().where(sa.or_(
            _DEPLOYMENT.c.config_id == _CONFIG.c.id,
            _DEPLOYMENT.c.source_config_id == _CONFIG.c.id))
        connection.execute(sa.delete(_CONFIG).where(
            _CONFIG.c.id.in_(derived), ~in_use))
    return rows


def _add_event(context: RequestContext, deployment_id: str, action: str | None,
               old_status: str | None, new_status: str | None,
               reason: str | None, when: Any) -> None:
    context.session.add(models.DeploymentEvent(
        deployment_id=deployment_id, created_at=when, action=action,
        old_status=old_status, new_status=new_status, reason=reason))


def agent_signal_target(deployment_id: str) -> dict | None:
    """The deployment's current ``action_revision``, ``status`` and
    ``status_reason``, for the signal-acceptance rule (None when there is
    no such deployment); read once more on a fresh connection if the
    pooled one was dead."""
    engine, statements = agent_engine()
    return statements[_SIGNAL_TARGET].first(
        engine, {'deployment_id': deployment_id})


# -- events ------------------------------------------------------------------

@reader
def software_deployment_event_get_all(context: RequestContext,
                                      deployment_id: str) -> list[dict]:
    """A deployment's events, oldest first; DeploymentNotFound for a
    deployment the caller may not see."""
    software_deployment_get(context, deployment_id)  # visibility check
    query = sa.select(models.DeploymentEvent).where(
        models.DeploymentEvent.deployment_id == deployment_id).order_by(
            models.DeploymentEvent.id.asc())
    return [row.to_dict() for row in context.session.scalars(query)]


@writer
def deployment_events_add(context: RequestContext, events: list[dict]) -> None:
    """Insert events (``deployment_id``, ``action``, ``old_status``,
    ``new_status``, ``reason``, optional ``created_at``) in one
    statement."""
    if not events:
        return
    now = timeutils.utcnow()
    context.session.execute(sa.insert(_EVENT), [
        dict(event, created_at=event.get('created_at') or now)
        for event in events])


# -- the engines applying a batch of signals ---------------------------------

@writer
def signal_deployments_lock(context: RequestContext,
                            deployment_ids: list[str]) -> dict[str, dict]:
    """Lock the deployments the claimed signals target (in id order, so
    two engines cannot deadlock); each comes with ``outputs``, those
    declared by its config (None if the config is gone). Deleted
    deployments are absent."""
    found = {row.id: row._asdict() for row in context.session.execute(
        sa.select(_DEPLOYMENT)
        .where(_DEPLOYMENT.c.id.in_(deployment_ids))
        .order_by(_DEPLOYMENT.c.id)
        .with_for_update())}
    config_ids = {row['config_id'] for row in found.values()}
    outputs = dict(context.session.execute(
        sa.select(_CONFIG.c.id, _CONFIG.c.outputs)
        .where(_CONFIG.c.id.in_(config_ids))).all()) if config_ids else {}
    for row in found.values():
        row['outputs'] = outputs.get(row['config_id'])
    return found


@writer
def software_deployments_apply(context: RequestContext,
                               updates: list[dict]) -> None:
    """Write several deployments locked by ``signal_deployments_lock``:
    each update names ``id``, ``expected_version``, ``version`` and the
    ``values`` to set. Updates that set the same columns share one
    executemany statement. The version condition stays as a safeguard;
    a row that does not match raises ConcurrentUpdate (rolling back)."""
    now = timeutils.utcnow()
    groups = collections.defaultdict(list)
    for update in updates:
        values = dict(update['values'], version=update['version'])
        values.setdefault('updated_at', now)
        groups[tuple(sorted(values))].append(dict(
            values, b_id=update['id'],
            b_version=update['expected_version']))
    for columns, params in groups.items():
        statement = (
            sa.update(_DEPLOYMENT)
            .where(_DEPLOYMENT.c.id == sa.bindparam('b_id'),
                   _DEPLOYMENT.c.version == sa.bindparam('b_version'))
            .values({column: sa.bindparam(column) for column in columns}))
        result = context.session.connection().execute(statement, params)
        dialect = context.session.get_bind().dialect
        if (dialect.supports_sane_multi_rowcount
                and result.rowcount != len(params)):
            raise exception.ConcurrentUpdate(
                deployment_id=', '.join(p['b_id'] for p in params))


# -- what long polls and the Swift and Zaqar workers watch -------------------

@reader
def software_deployment_versions(context: RequestContext,
                                 deployment_ids: list[str]
                                 ) -> dict[str, int]:
    """The ``version`` of each deployment that still exists: one
    primary-key query for every long poll of an API worker."""
    return dict(context.session.connection().execute(
        sa.select(_DEPLOYMENT.c.id, _DEPLOYMENT.c.version)
        .where(_DEPLOYMENT.c.id.in_(deployment_ids))).all())


@reader
def software_deployments_waiting(context: RequestContext, transport: str,
                                 deployment_ids: list[str] | None = None
                                 ) -> list[dict]:
    """The IN_PROGRESS deployments of ``transport`` (among
    ``deployment_ids`` if given): what its workers watch."""
    query = sa.select(_DEPLOYMENT.c.id, _DEPLOYMENT.c.server_id,
                      _DEPLOYMENT.c.action_revision).where(
        _DEPLOYMENT.c.status == states.IN_PROGRESS,
        _DEPLOYMENT.c.signal_transport == transport)
    if deployment_ids is not None:
        if not deployment_ids:
            return []
        query = query.where(_DEPLOYMENT.c.id.in_(deployment_ids))
    return [row._asdict() for row in context.session.execute(query)]


# -- timeouts ----------------------------------------------------------------

def _signal_waiting(model: Any) -> sa.Exists:
    """A signal of the deployment's current action, stored by its
    deadline and not applied yet: it decides the action, not the
    timeout."""
    inbox = models.SignalInbox
    return sa.exists().where(
        inbox.deployment_id == model.id,
        inbox.action_revision == model.action_revision,
        inbox.processed_at.is_(None),
        inbox.received_at <= model.timeout_at)


@reader
def software_deployment_timed_out(context: RequestContext, now: Any,
                                  limit: int) -> list[dict]:
    """IN_PROGRESS deployments whose deadline passed before ``now``, but
    those a stored signal is waiting for."""
    model = models.SoftwareDeployment
    query = (sa.select(model)
             .where(model.status == states.IN_PROGRESS,
                    model.timeout_at < now, ~_signal_waiting(model))
             .order_by(model.timeout_at).limit(limit))
    return [row.to_dict() for row in context.session.scalars(query)]


@reader
def software_deployment_next_deadline(context: RequestContext,
                                      after: Any) -> Any:
    """The earliest deadline, not before ``after``, of an IN_PROGRESS
    deployment (None when there is none): when the next timeout is due.
    One look-up at the start of a range of the (status, timeout_at)
    index, however many deployments wait."""
    model = models.SoftwareDeployment
    return context.session.scalar(
        sa.select(sa.func.min(model.timeout_at))
        .where(model.status == states.IN_PROGRESS,
               model.timeout_at >= after))


@oslo_db_api.retry_on_deadlock
@writer
def software_deployment_time_out(context: RequestContext, deployment_id: str,
                                 expected_version: int,
                                 reason: str) -> bool:
    """FAIL a deployment past its deadline with ``reason``, and record the
    event; False (nothing written) if it changed since it was read or a
    signal stored by its deadline is waiting. One conditional statement,
    so a signal committed after ``software_deployment_timed_out`` read
    the deployment still wins."""
    model = models.SoftwareDeployment
    now = timeutils.utcnow()
    changed = context.session.execute(
        sa.update(model)
        .where(model.id == deployment_id,
               model.version == expected_version,
               model.status == states.IN_PROGRESS,
               ~_signal_waiting(model))
        .values(status=states.FAILED, status_reason=reason,
                version=expected_version + 1, updated_at=now)
        .execution_options(synchronize_session=False)).rowcount
    if changed != 1:
        return False
    action = context.session.scalar(
        sa.select(model.action).where(model.id == deployment_id))
    _add_event(context, deployment_id, action, states.IN_PROGRESS,
               states.FAILED, reason, now)
    return True
