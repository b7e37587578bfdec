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

"""Deadlines against stored signals, on every real backend: a signal
stored by a deployment's deadline is applied, whatever the timeout check
does meanwhile (a check blind to stored signals would throw away a signal
answered 2xx 0.6 s before the deadline during a broker outage)."""

import datetime
import threading

from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import states
from swconfig.db import api as db_api
from swconfig.db import models
from swconfig.engine import deadlines
from swconfig.engine import periodics
from swconfig.engine import signals
from tests.unit.db import backends
from tests.unit.db import rows
from tests.unit.db.signal_rows import DONE
from tests.unit.db.signal_rows import INBOX
from tests.unit.db.signal_rows import OUTPUTS
from tests.unit.db.signal_rows import deployment_row
from tests.unit.db.signal_rows import events_of
from tests.unit.db.signal_rows import inbox_rows
from tests.unit.partitions import Everything

_DEPLOYMENT = models.SoftwareDeployment.__table__


def _expired(ctx, seconds_ago: float) -> tuple[str, datetime.datetime]:
    """An IN_PROGRESS deployment whose deadline passed ``seconds_ago``."""
    deadline = timeutils.utcnow() - datetime.timedelta(seconds=seconds_ago)
    config = rows.make_config(ctx, outputs=OUTPUTS)
    deployment = rows.make_deployment(
        ctx, config['id'], action_revision=1,
        created_at=deadline - datetime.timedelta(seconds=60),
        timeout_at=deadline)
    return deployment['id'], deadline


def _failed(facade) -> int:
    with facade.writer.get_engine().connect() as connection:
        return connection.scalar(
            sa.select(sa.func.count()).select_from(_DEPLOYMENT)
            .where(_DEPLOYMENT.c.status == states.FAILED))


def _check_timeouts(facade) -> int:
    """One round of the engines' timeout task (``periodics.Timeouts``),
    as an engine alone runs it; returns how many deployments it failed."""
    before = _failed(facade)
    periodics.Timeouts().run(Everything())
    return _failed(facade) - before


def _store(facade, deployment_id, received_at, revision=1):
    """A signal as the API stores it, stamped ``received_at``."""
    with facade.writer.get_engine().begin() as connection:
        return connection.execute(INBOX.insert().values(
            deployment_id=deployment_id, action_revision=revision,
            payload=DONE, received_at=received_at)).inserted_primary_key[0]


@backends.on_every_backend
def test_a_signal_stored_by_the_deadline_beats_the_timeout(
        facade, admin, ctx):
    deployment_id, deadline = _expired(ctx, seconds_ago=30)
    inbox_id = _store(facade, deployment_id,
                      deadline - datetime.timedelta(seconds=0.6))
    assert _check_timeouts(facade) == 0
    assert deployment_row(facade, deployment_id)['status'] == (
        states.IN_PROGRESS)
    # The broker is back, or the sweep comes round: the signal applies.
    assert signals.apply_batch([inbox_id]) == {inbox_id: states.COMPLETE}
    row = deployment_row(facade, deployment_id)
    assert row['status'] == states.COMPLETE
    assert row['output_values']['result'] == 'ok'


@backends.on_every_backend
def test_a_signal_stored_while_the_check_decides_still_wins(
        facade, admin, ctx):
    deployment_id, deadline = _expired(ctx, seconds_ago=30)
    [read] = db_api.software_deployment_timed_out(
        admin, timeutils.utcnow(), 10)
    # Committed after the check read the deployment, stamped in time.
    inbox_id = _store(facade, deployment_id,
                      deadline - datetime.timedelta(seconds=0.1))
    assert not db_api.software_deployment_time_out(
        admin, deployment_id, read['version'], 'timed out')
    assert deployment_row(facade, deployment_id)['status'] == (
        states.IN_PROGRESS)
    assert signals.apply_batch([inbox_id]) == {inbox_id: states.COMPLETE}


@backends.on_every_backend
def test_a_signal_after_the_deadline_does_not_save_it(
        facade, admin, ctx):
    deployment_id, deadline = _expired(ctx, seconds_ago=30)
    late = _store(facade, deployment_id,
                  deadline + datetime.timedelta(seconds=1))
    stale = _store(facade, deployment_id,
                   deadline - datetime.timedelta(seconds=5), revision=0)
    assert _check_timeouts(facade) == 1
    row = deployment_row(facade, deployment_id)
    assert row['status'] == states.FAILED
    assert row['status_reason'] == (
        'Deployment timed out: no signal within 60 seconds')
    assert events_of(facade, deployment_id)[-1] == (
        states.IN_PROGRESS, states.FAILED, row['status_reason'])
    assert signals.apply_batch([late, stale]) == {
        late: states.DUPLICATE, stale: states.STALE}
    assert deployment_row(facade, deployment_id)['status'] == states.FAILED
    assert all(r['processed_at'] for r in inbox_rows(facade,
                                                     [late, stale]).values())


@backends.on_every_backend
def test_the_deadline_is_acted_on_after_the_store_grace(
        facade, admin, ctx):
    just_passed, _ = _expired(ctx, seconds_ago=0.2)
    long_passed, _ = _expired(ctx, seconds_ago=(
        deadlines.SIGNAL_STORE_GRACE_SECONDS + 5))
    assert _check_timeouts(facade) == 1
    assert deployment_row(facade, just_passed)['status'] == (
        states.IN_PROGRESS)
    assert deployment_row(facade, long_passed)['status'] == states.FAILED


@backends.on_every_backend
def test_a_deployment_changed_since_the_read_is_not_failed(
        facade, admin, ctx):
    deployment_id, _ = _expired(ctx, seconds_ago=30)
    [read] = db_api.software_deployment_timed_out(
        admin, timeutils.utcnow(), 10)
    with facade.writer.get_engine().begin() as connection:
        table = models.SoftwareDeployment.__table__
        connection.execute(sa.update(table).where(
            table.c.id == deployment_id).values(version=read['version'] + 1))
    assert not db_api.software_deployment_time_out(
        admin, deployment_id, read['version'], 'timed out')
    assert deployment_row(facade, deployment_id)['status'] == (
        states.IN_PROGRESS)


# -- when the next timeout is due -------------------------------------------

def _deadline_in(ctx, seconds: float, **values) -> datetime.datetime:
    deadline = timeutils.utcnow() + datetime.timedelta(seconds=seconds)
    config = rows.make_config(ctx, outputs=OUTPUTS)
    rows.make_deployment(ctx, config['id'], action_revision=1,
                         timeout_at=deadline, **values)
    return deadline


@backends.on_every_backend
def test_the_next_deadline_is_the_earliest_not_acted_on_yet(
        facade, admin, ctx):
    assert db_api.software_deployment_next_deadline(
        admin, timeutils.utcnow()) is None
    _deadline_in(ctx, -30)                      # acted on already
    _deadline_in(ctx, 2, status=states.FAILED)  # not waiting any more
    rows.make_deployment(ctx, rows.make_config(ctx)['id'])  # no deadline
    later = _deadline_in(ctx, 60)
    sooner = _deadline_in(ctx, 7)
    assert db_api.software_deployment_next_deadline(
        admin, deadlines.cutoff()) == sooner
    assert db_api.software_deployment_next_deadline(
        admin, sooner + datetime.timedelta(microseconds=1)) == later


@backends.on_every_backend
def test_the_task_sleeps_until_the_next_deadline_is_due(
        facade, admin, ctx):
    grace = deadlines.SIGNAL_STORE_GRACE_SECONDS

    def due_in(deadline: datetime.datetime) -> float:
        """Seconds from now until ``deadline`` plus the grace: read just
        before and just after a ``next_wait``, they bound its answer
        however long the database took."""
        return (deadline - timeutils.utcnow()).total_seconds() + grace

    assert deadlines.next_wait(deadlines.cutoff(), 10) == 10
    deadline = _deadline_in(ctx, 4)
    latest = due_in(deadline)
    wait = deadlines.next_wait(deadlines.cutoff(), 10)
    assert due_in(deadline) <= wait <= latest + 0.02
    assert deadlines.next_wait(deadlines.cutoff(), 3) == 3
    # Due while the round ran (not before its cutoff): soon, not a busy
    # loop; one a round acted on is not waited for again.
    _deadline_in(ctx, -1.5)
    earlier_round = deadlines.cutoff() - datetime.timedelta(seconds=2)
    assert deadlines.next_wait(earlier_round,
                               10) == deadlines.MIN_WAIT_SECONDS
    latest = due_in(deadline)
    wait = deadlines.next_wait(deadlines.cutoff(), 10)
    assert due_in(deadline) <= wait <= latest + 0.02


def test_a_nearer_deadline_in_this_engine_wakes_the_task(monkeypatch):
    """Once its deployment is committed; or any deadline while a round
    runs, which may have looked for the next one before that commit."""
    monkeypatch.setattr(db_api, 'software_deployment_next_deadline',
                        lambda context, after: None)
    monkeypatch.setattr(deadlines, 'WAKE', threading.Event())
    assert deadlines.next_wait(deadlines.cutoff(), 10) == 10
    soon = timeutils.utcnow() + datetime.timedelta(seconds=3)
    deadlines.expect(None)
    deadlines.expect(soon + datetime.timedelta(seconds=60))
    assert not deadlines.WAKE.is_set()  # due after the task wakes anyway
    deadlines.expect(soon)
    assert deadlines.WAKE.is_set()

    deadlines.WAKE.clear()
    deadlines.round_started()
    deadlines.expect(soon + datetime.timedelta(seconds=60))
    assert deadlines.WAKE.is_set()
