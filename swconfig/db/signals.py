"""The signal inbox: signals stored before the agent is answered, and
claimed and applied exactly once by the engines. Part of the DB facade
(re-exported by ``swconfig.db.api``)."""

from typing import Any

from oslo_db import api as oslo_db_api
from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.db import joins
from swconfig.db import models
from swconfig.db.session import reader
from swconfig.db.session import writer

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
def signal_inbox_contexts(context: Any, inbox_ids: list[int]) -> dict:
    """What applying stored signals needs, in one query: for each signal
    id found, the signal, its deployment (None once deleted) and the
    outputs declared by the deployment's config."""
    inbox = models.SignalInbox
    deployment = models.SoftwareDeployment
    config = models.SoftwareConfig
    rows = context.session.execute(
        sa.select(*joins.labelled_columns(inbox, 's_'),
                  *joins.labelled_columns(deployment, 'd_'),
                  config.outputs.label('outputs'))
        .outerjoin(deployment, deployment.id == inbox.deployment_id)
        .outerjoin(config, config.id == deployment.config_id)
        .where(inbox.id.in_(inbox_ids)))
    found = {}
    for row in rows:
        parts = joins.split_row(row, signal='s_', deployment='d_')
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
