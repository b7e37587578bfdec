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

"""The signal inbox: every signal is stored here before its sender is
answered, and claimed and applied exactly once by the engines.

Agents' signals arrive on the agents' hot path (``agent_signal_insert``)
and API users' through the API (``signal_inbox_add``); signals the
engines fetch from Swift or Zaqar enter the same inbox keyed by where
they came from (``signal_inbox_add_once``), so fetching one twice (two
engines around a takeover, a retry after a lost answer) stores it once.

An engine applies a batch of signals in one write transaction: it claims
the pending inbox rows with a locking read that skips rows another engine
holds (``FOR UPDATE SKIP LOCKED``), and marks them processed with one
statement per result. All locking reads are by primary key, so they take
no gap locks that would hold up the API storing new signals.
"""

import collections
from typing import Any

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db.agent_path import agent_engine
from swconfig.db.agent_path import hot_statement
from swconfig.db.session import reader
from swconfig.db.session import writer

_INBOX = models.SignalInbox.__table__
# The agents' hot path (``agent_path``): storing a signal.
_SIGNAL_INSERT = hot_statement(_INBOX.insert().values(
    deployment_id=sa.bindparam('deployment_id'),
    action_revision=sa.bindparam('action_revision'),
    payload=sa.bindparam('payload', type_=_INBOX.c.payload.type),
    received_at=sa.bindparam('received_at',
                             type_=_INBOX.c.received_at.type),
    request_id=sa.bindparam('request_id')))


@oslo_db_api.retry_on_deadlock
@writer
def signal_inbox_add(context: RequestContext, deployment_id: str,
                     action_revision: int, payload: Any) -> int:
    """Store a signal an API user sent (``POST .../signal``); the inbox
    row's id. Agents' signals take ``agent_signal_insert`` instead."""
    row = models.SignalInbox(deployment_id=deployment_id,
                             action_revision=action_revision,
                             payload=payload,
                             received_at=timeutils.utcnow(),
                             request_id=context.request_id)
    context.session.add(row)
    context.session.flush()
    return row.id


def agent_signal_insert(deployment_id: str, action_revision: int,
                        payload: Any, request_id: str | None = None) -> int:
    """Store an agent's signal durably, with the id of the request that
    brought it (the engine logs it when it applies the signal); the inbox
    row's id. Never retried: an INSERT whose answer was lost might have
    happened."""
    engine, statements = agent_engine()
    return statements[_SIGNAL_INSERT].insert_one(engine, {
        'deployment_id': deployment_id, 'action_revision': action_revision,
        'payload': payload, 'received_at': timeutils.utcnow(),
        'request_id': request_id})


@writer
def _inbox_insert(context: RequestContext, values: dict) -> int:
    return context.session.execute(
        sa.insert(_INBOX).values(**values)).inserted_primary_key[0]


def signal_inbox_add_once(context: RequestContext, deployment_id: str,
                          action_revision: int, payload: Any,
                          source_key: str) -> int | None:
    """Store a fetched signal in a transaction of its own; None if the
    signal with this ``source_key`` was stored before."""
    try:
        return _inbox_insert(context, {
            'deployment_id': deployment_id,
            'action_revision': action_revision, 'payload': payload,
            'received_at': timeutils.utcnow(),
            'request_id': context.request_id, 'source_key': source_key})
    except db_exc.DBDuplicateEntry:
        return None


@reader
def signal_inbox_pending(context: RequestContext, received_before: Any,
                         limit: int) -> list[int]:
    """Unprocessed signals stored before ``received_before``, oldest
    first: those no engine picked up (the engines' sweep)."""
    query = (sa.select(_INBOX.c.id)
             .where(_INBOX.c.processed_at.is_(None),
                    _INBOX.c.received_at < received_before)
             .order_by(_INBOX.c.id).limit(limit))
    return list(context.session.scalars(query))


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
