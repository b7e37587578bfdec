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

"""Purging what finished deployments leave behind: processed signals and
events older than a cutoff (``swconfig-manage purge``). Part of the DB
facade (``swconfig.db.api``).

Nothing else ever removes inbox rows or events, so without a purge both
tables grow for as long as the service runs. A purge deletes in batches,
each in a transaction of its own, so a large table is never locked by
one huge transaction while the API stores signals and the engines apply
them. Batches walk the table by primary key (each starts after the last
id the previous one looked at), so rows that are kept are read once per
purge, not once per batch.
"""

from datetime import datetime

import sqlalchemy as sa

from swconfig.common import states
from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db.session import writer

BATCH_SIZE = 1000

_INBOX = models.SignalInbox.__table__
_EVENT = models.DeploymentEvent.__table__
_DEPLOYMENT = models.SoftwareDeployment.__table__


def _not_in_progress(deployment_id: sa.Column) -> sa.ColumnElement:
    """The deployment is finished (any status but IN_PROGRESS) or gone."""
    return ~sa.exists().where(_DEPLOYMENT.c.id == deployment_id,
                              _DEPLOYMENT.c.status == states.IN_PROGRESS)


def _purgeable_signals(before: datetime) -> tuple[sa.ColumnElement, ...]:
    # processed_at, not received_at: a signal applied late (e.g. after an
    # outage of the engines) stays for the whole period after it was
    # handled. processed_at < before implies processed_at is set.
    return (_INBOX.c.processed_at < before,
            _not_in_progress(_INBOX.c.deployment_id))


def _purgeable_events(before: datetime) -> tuple[sa.ColumnElement, ...]:
    return (_EVENT.c.created_at < before,
            _not_in_progress(_EVENT.c.deployment_id))


@writer
def _purge_batch(context: RequestContext, table: sa.Table,
                 conditions: tuple[sa.ColumnElement, ...],
                 after_id: int | None,
                 batch_size: int) -> tuple[int, int | None]:
    """Delete up to ``batch_size`` rows of ``table`` meeting
    ``conditions`` with an id above ``after_id``, in one transaction.

    Returns how many were deleted and the id the next batch starts
    after (None when this batch was not full: nothing is left). The
    DELETE repeats the conditions: a deployment that went back
    IN_PROGRESS (a new action) since the SELECT keeps its rows.
    """
    query = sa.select(table.c.id).where(*conditions)
    if after_id is not None:
        query = query.where(table.c.id > after_id)
    ids = context.session.scalars(
        query.order_by(table.c.id).limit(batch_size)).all()
    if not ids:
        return 0, None
    deleted = context.session.execute(
        sa.delete(table).where(table.c.id.in_(ids), *conditions)).rowcount
    return deleted, ids[-1] if len(ids) == batch_size else None


def _purge_table(context: RequestContext, table: sa.Table,
                 conditions: tuple[sa.ColumnElement, ...],
                 batch_size: int) -> int:
    removed, after_id = 0, None
    while True:
        deleted, after_id = _purge_batch(context, table, conditions,
                                         after_id, batch_size)
        removed += deleted
        if after_id is None:
            return removed


def purge_finished(context: RequestContext, before: datetime,
                   batch_size: int = BATCH_SIZE) -> dict[str, int]:
    """Delete the processed signals and the events older than ``before``
    (naive UTC) of deployments that are not IN_PROGRESS, or no longer
    exist; returns how many rows of each table went.

    What is kept:

    * everything of an IN_PROGRESS deployment: its events are what its
      user watches, and its signals may still be looked at by the
      engines deciding a duplicate or a timeout;
    * every unprocessed signal, also of a deleted deployment. Those rows
      are the engines' queue: an engine may hold one claimed at this
      moment, and the signal sweep finishes a deleted deployment's
      signal as ``GONE`` within ``[agent] signal_sweep_interval``, after
      which a later purge removes it. An unprocessed row that stays is
      a sign the engines are down, worth keeping for the operator.

    Events of deleted deployments are normally gone already (deleting a
    deployment deletes them, and the foreign key cascades); any left
    behind are removed like those of a finished deployment.

    Each batch of ``batch_size`` rows is a transaction of its own, so
    call this outside any transaction of the caller's (inside one, the
    batches would all join it).
    """
    return {
        'signal_inbox': _purge_table(context, _INBOX,
                                     _purgeable_signals(before), batch_size),
        'deployment_event': _purge_table(context, _EVENT,
                                         _purgeable_events(before),
                                         batch_size),
    }
