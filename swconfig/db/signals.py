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

from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db.session import writer

_DEPLOYMENT = models.SoftwareDeployment.__table__
_CONFIG = models.SoftwareConfig.__table__
_EVENT = models.DeploymentEvent.__table__


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


