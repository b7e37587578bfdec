"""The signal inbox: signals stored before the agent is answered, and
claimed and applied exactly once by the engines. Part of the DB facade
(``swconfig.db.api``).

An engine applies a batch of signals in one write transaction: it claims
the pending inbox rows with a locking read that skips rows another engine
holds (``FOR UPDATE SKIP LOCKED``), locks their deployments, and writes
every result with a handful of statements, whatever the batch size. All
locking reads are by primary key, so they take no gap locks that would
hold up the API storing new signals.
"""

import collections
from typing import Any

from oslo_db import api as oslo_db_api
from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db.session import reader
from swconfig.db.session import writer

_INBOX = models.SignalInbox.__table__
_DEPLOYMENT = models.SoftwareDeployment.__table__
_CONFIG = models.SoftwareConfig.__table__
_EVENT = models.DeploymentEvent.__table__


@oslo_db_api.retry_on_deadlock
@writer
def signal_inbox_add(context: RequestContext, deployment_id: str,
                     action_revision: int, payload: Any) -> int:
    row = models.SignalInbox(deployment_id=deployment_id,
                             action_revision=action_revision,
                             payload=payload,
                             received_at=timeutils.utcnow(),
                             request_id=context.request_id)
    context.session.add(row)
    context.session.flush()
    return row.id


@writer
def signal_inbox_claim(context: RequestContext,
                       inbox_ids: list[int]) -> list[dict]:
    """Lock the still pending signals among ``inbox_ids`` for this
    transaction, oldest first; those another engine holds are skipped.
    Committing with ``signal_inbox_finish`` makes the claim final; a
    signal left unfinished is pending again at commit."""
    rows = context.session.execute(
        sa.select(_INBOX)
        .where(_INBOX.c.id.in_(inbox_ids), _INBOX.c.processed_at.is_(None))
        .order_by(_INBOX.c.id)
        .with_for_update(skip_locked=True))
    return [row._asdict() for row in rows]


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


@reader
def signal_inbox_first_pending(context: RequestContext,
                               deployment_ids: list[str]) -> dict[str, int]:
    """The oldest unprocessed signal of each deployment: one held by
    another engine must be applied before a later one of ours."""
    return dict(context.session.execute(
        sa.select(_INBOX.c.deployment_id, sa.func.min(_INBOX.c.id))
        .where(_INBOX.c.deployment_id.in_(deployment_ids),
               _INBOX.c.processed_at.is_(None))
        .group_by(_INBOX.c.deployment_id)).all())


@writer
def signal_inbox_finish(context: RequestContext,
                        results: dict[int, str]) -> None:
    """Mark claimed signals processed, each with its result: one
    statement per distinct result."""
    now = timeutils.utcnow()
    by_result = collections.defaultdict(list)
    for inbox_id, result in results.items():
        by_result[result].append(inbox_id)
    for result, inbox_ids in sorted(by_result.items()):
        context.session.execute(
            sa.update(_INBOX).where(_INBOX.c.id.in_(sorted(inbox_ids)))
            .values(processed_at=now, result=result))


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


@reader
def signal_inbox_pending_upto(context: RequestContext, last_id: int,
                              limit: int,
                              after: int = 0) -> list[int]:
    """Unprocessed signals stored after ``after`` and up to ``last_id``,
    oldest first (one cast covers the signals an API worker stored
    before it)."""
    query = (sa.select(_INBOX.c.id)
             .where(_INBOX.c.processed_at.is_(None), _INBOX.c.id > after,
                    _INBOX.c.id <= last_id)
             .order_by(_INBOX.c.id).limit(limit))
    return list(context.session.scalars(query))


@reader
def signal_inbox_pending(context: RequestContext, received_before: Any,
                         limit: int) -> list[int]:
    query = (sa.select(_INBOX.c.id)
             .where(_INBOX.c.processed_at.is_(None),
                    _INBOX.c.received_at < received_before)
             .order_by(_INBOX.c.id).limit(limit))
    return list(context.session.scalars(query))
