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

"""Rollouts, their targets and their events.

A rollout and its targets are written in one transaction when it is
created; the engine that owns it then changes its targets' states as
their deployments finish (``rollout_targets_set``) and starts new ones:
``rollout_targets_start`` marks a target started only if it has not
been, in the transaction that creates its deployment, so a target never
starts twice even when two engines race around a takeover.
"""

from collections.abc import Sequence

from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db import queries
from swconfig.db.session import reader
from swconfig.db.session import writer

_ROLLOUT = models.Rollout.__table__
_TARGET = models.RolloutTarget.__table__
_EVENT = models.RolloutEvent.__table__
_CHUNK = 500

#: Target states.
NOT_STARTED = 'NOT_STARTED'
IN_PROGRESS = 'IN_PROGRESS'
COMPLETE = 'COMPLETE'
FAILED = 'FAILED'
CANCELLED = 'CANCELLED'
TARGET_STATES = (NOT_STARTED, IN_PROGRESS, COMPLETE, FAILED, CANCELLED)


def _row(context: RequestContext, rollout_id: str,
         for_update: bool = False) -> dict:
    """The rollout, if the caller may see it; RolloutNotFound else."""
    return queries.project_row(
        context, _ROLLOUT, rollout_id,
        exception.RolloutNotFound(rollout_id=rollout_id), for_update)


def _counts(context: RequestContext, rollout_id: str) -> dict[str, int]:
    counts = dict.fromkeys(TARGET_STATES, 0)
    counts.update(context.session.execute(
        sa.select(_TARGET.c.state, sa.func.count())
        .where(_TARGET.c.rollout_id == rollout_id)
        .group_by(_TARGET.c.state)).all())
    return counts


@writer
def rollout_create(context: RequestContext, values: dict,
                   server_ids: Sequence[str]) -> dict:
    """Insert a rollout and one NOT_STARTED target per server, at its
    position in ``server_ids``; the rollout with its ``counts``."""
    connection = context.session.connection()
    connection.execute(sa.insert(_ROLLOUT), values)
    for first in range(0, len(server_ids), _CHUNK):
        connection.execute(sa.insert(_TARGET), [
            {'rollout_id': values['id'], 'position': position,
             'server_id': server_id, 'deployment_id': None,
             'state': NOT_STARTED, 'started_at': None, 'finished_at': None}
            for position, server_id in enumerate(
                server_ids[first:first + _CHUNK], first)])
    return {**values, 'counts': _counts(context, values['id'])}


@reader
def rollout_get(context: RequestContext, rollout_id: str) -> dict:
    """The rollout with ``counts``, its targets per state."""
    row = _row(context, rollout_id)
    return {**row, 'counts': _counts(context, rollout_id)}


@writer
def rollout_get_for_update(context: RequestContext, rollout_id: str) -> dict:
    """The rollout, locked until the caller's transaction ends."""
    row = _row(context, rollout_id, for_update=True)
    return {**row, 'counts': _counts(context, rollout_id)}


@reader
def rollout_get_all(context: RequestContext, limit: int | None = None,
                    marker: str | None = None) -> list[dict]:
    """The caller's project's rollouts, newest first, paged."""
    query = sa.select(_ROLLOUT).order_by(_ROLLOUT.c.created_at.desc(),
                                         _ROLLOUT.c.id.desc())
    if not context.is_admin:
        query = query.where(_ROLLOUT.c.tenant == context.project_id)
    if marker:
        try:
            mark = _row(context, marker)
        except exception.RolloutNotFound:
            mark = None
        if mark is not None:
            query = query.where(sa.or_(
                _ROLLOUT.c.created_at < mark['created_at'],
                sa.and_(_ROLLOUT.c.created_at == mark['created_at'],
                        _ROLLOUT.c.id < mark['id'])))
    if limit is not None:
        query = query.limit(limit)
    return [row._asdict() for row in context.session.execute(query)]


@reader
def rollouts_running(context: RequestContext) -> list[dict]:
    """Every rollout not finished (running, or stopped with targets
    still in progress): its ``id``, ``status`` and ``created_at``."""
    return [row._asdict() for row in context.session.execute(
        sa.select(_ROLLOUT.c.id, _ROLLOUT.c.status, _ROLLOUT.c.created_at)
        .where(_ROLLOUT.c.finished_at.is_(None)).order_by(_ROLLOUT.c.id))]


@writer
def rollout_update(context: RequestContext, rollout_id: str,
                   values: dict, expected_status: str | None = None) -> dict:
    """Change the rollout (its version bumped); the rollout. With
    ``expected_status``, only if it still has that status (else the
    rollout unchanged)."""
    row = _row(context, rollout_id, for_update=True)
    if expected_status is not None and row['status'] != expected_status:
        return row
    values = {**values, 'version': row['version'] + 1}
    context.session.connection().execute(
        sa.update(_ROLLOUT).where(_ROLLOUT.c.id == rollout_id)
        .values(**values))
    return {**row, **values}


@reader
def rollout_targets_get(context: RequestContext, rollout_id: str,
                        state: str | None = None, limit: int | None = None,
                        marker: int | None = None) -> list[dict]:
    """The rollout's targets in position order, of ``state`` if given,
    after the position ``marker``, at most ``limit``."""
    _row(context, rollout_id)
    query = (sa.select(_TARGET).where(_TARGET.c.rollout_id == rollout_id)
             .order_by(_TARGET.c.position))
    if state is not None:
        query = query.where(_TARGET.c.state == state)
    if marker is not None:
        query = query.where(_TARGET.c.position > marker)
    if limit is not None:
        query = query.limit(limit)
    return [row._asdict() for row in context.session.execute(query)]


@writer
def rollout_targets_start(context: RequestContext, rollout_id: str,
                          started: dict[int, str]) -> bool:
    """Mark the targets at the positions of ``started`` IN_PROGRESS with
    their deployments (None: reserved, attached later), each only if
    still NOT_STARTED; False (nothing to keep: the caller rolls back) if
    any was started meanwhile."""
    now = timeutils.utcnow()
    connection = context.session.connection()
    positions = sorted(started)
    # One statement per chunk, each target's deployment by its position.
    for first in range(0, len(positions), _CHUNK):
        chunk = positions[first:first + _CHUNK]
        deployment_ids = [started[position] for position in chunk]
        if any(deployment_ids):
            deployment_id = sa.case(
                {position: started[position] for position in chunk},
                value=_TARGET.c.position)
        else:
            deployment_id = None
        result = connection.execute(
            sa.update(_TARGET).where(
                _TARGET.c.rollout_id == rollout_id,
                _TARGET.c.position.in_(chunk),
                _TARGET.c.state == NOT_STARTED)
            .values(state=IN_PROGRESS, deployment_id=deployment_id,
                    started_at=now))
        if result.rowcount != len(chunk):
            return False
    return True


@writer
def rollout_target_attach(context: RequestContext, rollout_id: str,
                          position: int, deployment_id: str) -> bool:
    """Record the deployment of a target started without one yet (an
    action target, reserved before its trigger); False if it has one."""
    return context.session.connection().execute(
        sa.update(_TARGET).where(
            _TARGET.c.rollout_id == rollout_id,
            _TARGET.c.position == position,
            _TARGET.c.deployment_id.is_(None))
        .values(deployment_id=deployment_id)).rowcount == 1


@writer
def rollout_targets_set(context: RequestContext, rollout_id: str,
                        states: dict[int, str],
                        expected: str = IN_PROGRESS) -> int:
    """Give the targets at the positions of ``states`` their new state
    (a final one: their finish time too), each only if it is in the
    state ``expected``; how many changed."""
    now = timeutils.utcnow()
    connection = context.session.connection()
    by_state: dict[str, list[int]] = {}
    for position, state in states.items():
        by_state.setdefault(state, []).append(position)
    changed = 0
    for state, positions in sorted(by_state.items()):
        positions.sort()
        for first in range(0, len(positions), _CHUNK):
            changed += connection.execute(
                sa.update(_TARGET).where(
                    _TARGET.c.rollout_id == rollout_id,
                    _TARGET.c.position.in_(positions[first:first + _CHUNK]),
                    _TARGET.c.state == expected)
                .values(state=state, finished_at=now)).rowcount
    return changed


@writer
def rollout_targets_cancel(context: RequestContext, rollout_id: str) -> int:
    """CANCELLED for every target not started yet; how many."""
    return context.session.connection().execute(
        sa.update(_TARGET).where(_TARGET.c.rollout_id == rollout_id,
                                 _TARGET.c.state == NOT_STARTED)
        .values(state=CANCELLED, finished_at=timeutils.utcnow())).rowcount


@writer
def rollout_event_add(context: RequestContext, rollout_id: str, event: str,
                      reason: str | None = None) -> None:
    context.session.connection().execute(sa.insert(_EVENT), {
        'rollout_id': rollout_id, 'event': event, 'reason': reason,
        'created_at': timeutils.utcnow()})


@reader
def rollout_events_get(context: RequestContext,
                       rollout_id: str) -> list[dict]:
    """The rollout's events, oldest first."""
    _row(context, rollout_id)
    return [row._asdict() for row in context.session.execute(
        sa.select(_EVENT).where(_EVENT.c.rollout_id == rollout_id)
        .order_by(_EVENT.c.id))]
