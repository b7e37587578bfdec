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

"""``purge_finished`` on every real backend: processed signals and events
older than the cutoff go for finished or deleted deployments only; an
IN_PROGRESS deployment keeps everything, and an unprocessed signal is
never removed.

Each backend gets one fresh database for the module (a SQLite file, or a
scratch database on the real MariaDB and PostgreSQL, started if down,
never skipped), migrated to head, patched into swconfig.db.api for each
test and emptied after it. Rows are written with Core, so every
timestamp is exactly the one the test means.
"""

import contextlib
import datetime
import itertools

import pytest
import sqlalchemy as sa
from sqlalchemy import orm

from swconfig.common import context as swconfig_context
from swconfig.db import api as db_api
from swconfig.db import models
from swconfig.db import purge
from swconfig.db import session
from tests.unit.db import backends

_CONFIG = models.SoftwareConfig.__table__
_DEPLOYMENT = models.SoftwareDeployment.__table__
_EVENT = models.DeploymentEvent.__table__
_INBOX = models.SignalInbox.__table__

CUTOFF = datetime.datetime(2030, 6, 1, 12, 0, 0, 500000)
OLD = CUTOFF - datetime.timedelta(days=3)
RECENT = CUTOFF + datetime.timedelta(hours=1)
JUST_BEFORE = CUTOFF - datetime.timedelta(microseconds=1)


@pytest.fixture(scope='module', params=backends.BACKENDS)
def facade(request, tmp_path_factory):
    """An enginefacade on a fresh database of each backend, with
    swconfig's own per-backend connection settings."""
    with contextlib.ExitStack() as stack:
        yield backends.migrated_facade(stack, request.param,
                                       tmp_path_factory.mktemp('purge'))


@pytest.fixture
def engine(facade):
    """The database patched into swconfig.db.api; emptied afterwards."""
    reset = session.context_manager.patch_factory(facade)
    db_engine = facade.writer.get_engine()
    try:
        yield db_engine
    finally:
        reset()
        with db_engine.begin() as connection:
            for table in reversed(models.Base.metadata.sorted_tables):
                connection.execute(table.delete())


class Rows:
    """Writes configs, deployments, signals and events with Core."""

    def __init__(self, engine: sa.engine.Engine) -> None:
        self.engine = engine
        self.ids = itertools.count(1)
        self.config_id = None

    def _insert(self, table, **values):
        with self.engine.begin() as connection:
            connection.execute(table.insert().values(**values))

    def deployment(self, status: str) -> str:
        if self.config_id is None:
            self.config_id = 'config-1'
            self._insert(_CONFIG, id=self.config_id, inputs=[], outputs=[],
                         tenant='p1', created_at=OLD)
        deployment_id = f'deployment-{next(self.ids)}'
        self._insert(_DEPLOYMENT, id=deployment_id,
                     config_id=self.config_id, server_id='server-1',
                     tenant='p1', action='CREATE', status=status, version=1,
                     created_at=OLD)
        return deployment_id

    def signal(self, deployment_id: str, processed_at, received_at=OLD):
        signal_id = next(self.ids)
        self._insert(_INBOX, id=signal_id, deployment_id=deployment_id,
                     action_revision=0, payload={'result': 'x'},
                     received_at=received_at, processed_at=processed_at,
                     result=None if processed_at is None else 'COMPLETE')
        return signal_id

    def event(self, deployment_id: str, created_at) -> int:
        event_id = next(self.ids)
        self._insert(_EVENT, id=event_id, deployment_id=deployment_id,
                     created_at=created_at, action='CREATE',
                     old_status=None, new_status='COMPLETE', reason='r')
        return event_id


@pytest.fixture
def rows(engine):
    return Rows(engine)


def _ids(engine, table):
    with engine.connect() as connection:
        return set(connection.scalars(sa.select(table.c.id)))


def _purge(batch_size=purge.BATCH_SIZE):
    return db_api.purge_finished(swconfig_context.get_admin_context(),
                                 CUTOFF, batch_size=batch_size)


def _finished_history(rows, deployment_id):
    """What purges (old) and what stays (recent, unprocessed)."""
    gone = {'signals': {rows.signal(deployment_id, OLD)},
            'events': {rows.event(deployment_id, OLD),
                       rows.event(deployment_id, JUST_BEFORE)}}
    kept = {'signals': {rows.signal(deployment_id, RECENT),
                        rows.signal(deployment_id, None)},
            'events': {rows.event(deployment_id, RECENT)}}
    return gone, kept


@pytest.mark.parametrize('status', ['COMPLETE', 'FAILED', None])
def test_finished_deployments_lose_old_signals_and_events(engine, rows,
                                                          status):
    deployment_id = rows.deployment(status)
    gone, kept = _finished_history(rows, deployment_id)

    assert _purge() == {'signal_inbox': len(gone['signals']),
                        'deployment_event': len(gone['events'])}

    assert _ids(engine, _INBOX) == kept['signals']
    assert _ids(engine, _EVENT) == kept['events']
    assert _ids(engine, _DEPLOYMENT) == {deployment_id}


def test_in_progress_deployment_keeps_everything(engine, rows):
    """Also its old processed signals and old events; meanwhile those of
    a finished deployment beside it go."""
    busy = rows.deployment('IN_PROGRESS')
    busy_signals = {rows.signal(busy, OLD), rows.signal(busy, RECENT),
                    rows.signal(busy, None)}
    busy_events = {rows.event(busy, OLD), rows.event(busy, RECENT)}
    gone, kept = _finished_history(rows, rows.deployment('COMPLETE'))

    assert _purge() == {'signal_inbox': len(gone['signals']),
                        'deployment_event': len(gone['events'])}

    assert _ids(engine, _INBOX) == busy_signals | kept['signals']
    assert _ids(engine, _EVENT) == busy_events | kept['events']


def test_deleted_deployments_lose_processed_signals_only(engine, rows):
    """The inbox has no foreign key: rows of a deleted deployment stay
    until purged. An unprocessed one is the engines' (they finish it as
    GONE) and stays."""
    old = rows.signal('deleted-deployment', OLD)
    recent = rows.signal('deleted-deployment', RECENT)
    pending = rows.signal('deleted-deployment', None)

    assert _purge() == {'signal_inbox': 1, 'deployment_event': 0}

    assert old not in _ids(engine, _INBOX)
    assert _ids(engine, _INBOX) == {recent, pending}


def test_the_cutoff_counts_from_processing(engine, rows):
    """A signal received long ago but processed after the cutoff stays;
    one processed or an event recorded exactly at the cutoff stays."""
    deployment_id = rows.deployment('COMPLETE')
    late = rows.signal(deployment_id, RECENT, received_at=OLD)
    at_cutoff = rows.signal(deployment_id, CUTOFF, received_at=OLD)
    event = rows.event(deployment_id, CUTOFF)

    assert _purge() == {'signal_inbox': 0, 'deployment_event': 0}

    assert _ids(engine, _INBOX) == {late, at_cutoff}
    assert _ids(engine, _EVENT) == {event}


def _with_foreign_keys_off(url, statements):
    """Run ``statements`` (callables of a connection) on a plain
    connection that does not enforce foreign keys."""
    plain = sa.create_engine(url)
    try:
        with plain.begin() as connection:
            if plain.dialect.name == 'mysql':
                connection.exec_driver_sql('SET FOREIGN_KEY_CHECKS=0')
            elif plain.dialect.name == 'postgresql':
                connection.exec_driver_sql(
                    'SET LOCAL session_replication_role = replica')
            # SQLite enforces foreign keys only when asked to.
            for statement in statements:
                statement(connection)
    finally:
        plain.dispose()


def test_events_left_by_a_deleted_deployment_go(engine, rows):
    old_id, recent_id = next(rows.ids), next(rows.ids)

    def event(event_id, created_at):
        return lambda connection: connection.execute(_EVENT.insert().values(
            id=event_id, deployment_id='deleted-deployment',
            created_at=created_at))

    _with_foreign_keys_off(engine.url, [event(old_id, OLD),
                                        event(recent_id, RECENT)])

    assert _purge() == {'signal_inbox': 0, 'deployment_event': 1}

    assert _ids(engine, _EVENT) == {recent_id}


def test_batches_walk_past_kept_rows(engine, rows, monkeypatch):
    """Small batches, with rows to keep between those to remove: every
    removable row goes, one transaction per batch, nothing else."""
    busy = rows.deployment('IN_PROGRESS')
    done = rows.deployment('COMPLETE')
    kept_signals, kept_events = set(), set()
    for _ in range(7):
        kept_signals.add(rows.signal(busy, OLD))
        rows.signal(done, OLD)
        kept_signals.add(rows.signal(done, None))
        kept_events.add(rows.event(busy, OLD))
        rows.event(done, OLD)
    batches = []
    real_batch = purge._purge_batch

    def counting_batch(context, table, *args):
        batches.append(table.name)
        return real_batch(context, table, *args)

    monkeypatch.setattr(purge, '_purge_batch', counting_batch)

    assert _purge(batch_size=2) == {'signal_inbox': 7,
                                    'deployment_event': 7}

    assert _ids(engine, _INBOX) == kept_signals
    assert _ids(engine, _EVENT) == kept_events
    # 7 rows in batches of 2: 4 batches each (the last one not full).
    assert batches == ['signal_inbox'] * 4 + ['deployment_event'] * 4


def test_a_deployment_restarted_during_a_batch_keeps_its_rows(engine,
                                                              rows):
    """The DELETE checks the deployment again: one that went IN_PROGRESS
    (a new action) after the batch's SELECT keeps its signals."""
    deployment_id = rows.deployment('COMPLETE')
    signal_id = rows.signal(deployment_id, OLD)
    restarted = []

    def restart_after_select(state):
        if not (state.is_select and not restarted):
            return None
        restarted.append(True)
        result = state.invoke_statement()
        state.session.execute(
            sa.update(_DEPLOYMENT).where(_DEPLOYMENT.c.id == deployment_id)
            .values(status='IN_PROGRESS'))
        return result

    sa.event.listen(orm.Session, 'do_orm_execute', restart_after_select)
    try:
        removed = _purge()
    finally:
        sa.event.remove(orm.Session, 'do_orm_execute', restart_after_select)

    assert restarted
    assert removed['signal_inbox'] == 0
    assert _ids(engine, _INBOX) == {signal_id}


def test_nothing_to_purge(engine):
    assert _purge() == {'signal_inbox': 0, 'deployment_event': 0}
