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

"""Signal batches on every real backend: ``signals.apply_batch`` claims
inbox rows, applies them to their deployments and finishes them in one
transaction, exactly once; on MariaDB and PostgreSQL a claim skips the
rows another engine holds instead of waiting for them.

Each test gets a fresh database (a SQLite file, or a scratch database on
the real MariaDB and PostgreSQL, started if down, never skipped), migrated
to head and patched into swconfig.db.api for the test's duration.
"""

import threading
import time

import pytest
import sqlalchemy as sa

from swconfig.common import context as swconfig_context
from swconfig.db import api as db_api
from swconfig.engine import signals
from tests.unit.db import backends
from tests.unit.db import rows
from tests.unit.db.signal_rows import DEPLOYMENT
from tests.unit.db.signal_rows import DONE
from tests.unit.db.signal_rows import EVENT
from tests.unit.db.signal_rows import INBOX
from tests.unit.db.signal_rows import OUTPUTS
from tests.unit.db.signal_rows import deployment_row
from tests.unit.db.signal_rows import events_of
from tests.unit.db.signal_rows import inbox_rows
from tests.unit.db.signal_rows import read_rows

# SQLite has one writer at a time: a second engine's claim waits for the
# first transaction instead of skipping its rows.
ROW_LOCKING_BACKENDS = ('mysql', 'postgresql')
PROGRESS = {'deploy_status': 'IN_PROGRESS', 'deploy_status_reason': 'half'}
# A claim that skips held rows answers at once; one that waits for them
# would not be back before the holder lets go.
SKIP_DEADLINE = 2.0
CLAIM_WAIT = 10
HOLD_LIMIT = 60

on_row_locking_backends = pytest.mark.parametrize(
    'facade', ROW_LOCKING_BACKENDS, indirect=True)


def _deployment(ctx):
    """An IN_PROGRESS deployment at action revision 1, version 1."""
    config = rows.make_config(ctx, outputs=OUTPUTS)
    return rows.make_deployment(ctx, config['id'], action_revision=1)['id']


def _signal(admin, deployment_id, payload=None, revision=1):
    return db_api.signal_inbox_add(admin, deployment_id, revision,
                                   DONE if payload is None else payload)


def _snapshot(facade):
    return [read_rows(facade, table)
            for table in (INBOX, DEPLOYMENT, EVENT)]


def _claim_in_thread(ids, outcome, key, started=None, release=None):
    """Claim ``ids`` in a transaction of a thread of its own, like another
    engine would; the transaction stays open until ``release``."""
    def run():
        try:
            admin = swconfig_context.get_admin_context()
            began = time.monotonic()
            with db_api.writer.using(admin):
                claimed = db_api.signal_inbox_claim(admin, ids)
                outcome[key] = [signal['id'] for signal in claimed]
                outcome[key + ' seconds'] = time.monotonic() - began
                if started is not None:
                    started.set()
                if release is not None:
                    release.wait(HOLD_LIMIT)
        except Exception as exc:
            outcome[key + ' error'] = exc
            if started is not None:
                started.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _check(outcome):
    errors = {k: v for k, v in outcome.items() if k.endswith(' error')}
    assert not errors, errors


# -- one batch ----------------------------------------------------------------

@backends.on_every_backend
def test_second_signal_of_a_batch_is_a_duplicate(facade, ctx, admin):
    """Both signals are finished in the one transaction; only the first
    is applied, and the second's event shows it saw the first's result."""
    deployment_id = _deployment(ctx)
    first = _signal(admin, deployment_id)
    second = _signal(admin, deployment_id, {'result': 'late'})

    assert signals.apply_batch([second, first]) == {
        first: 'COMPLETE', second: 'DUPLICATE'}

    row = deployment_row(facade, deployment_id)
    assert row['status'] == 'COMPLETE'
    assert row['status_reason'] == 'Outputs received'
    assert row['output_values'] == DONE
    assert row['version'] == 2
    assert row['updated_at'] is not None
    inbox = inbox_rows(facade, [first, second])
    assert {i: r['result'] for i, r in inbox.items()} == {
        first: 'COMPLETE', second: 'DUPLICATE'}
    assert all(r['processed_at'] is not None for r in inbox.values())
    assert events_of(facade, deployment_id) == [
        (None, 'IN_PROGRESS', 'Deploy data available'),
        ('IN_PROGRESS', 'COMPLETE', 'Outputs received'),
        ('COMPLETE', 'COMPLETE',
         'Duplicate signal ignored: the action already finished '
         '(COMPLETE)')]


@backends.on_every_backend
def test_stale_and_gone_signals_are_finished_unapplied(facade, ctx, admin):
    deployment_id = _deployment(ctx)
    stale = _signal(admin, deployment_id, revision=0)
    gone = _signal(admin, 'no-such-deployment')

    assert signals.apply_batch([stale, gone]) == {
        stale: 'STALE', gone: 'GONE'}

    row = deployment_row(facade, deployment_id)
    assert (row['status'], row['version'], row['output_values']) == (
        'IN_PROGRESS', 1, None)
    assert {i: r['result'] for i, r in inbox_rows(facade, [stale, gone])
            .items()} == {stale: 'STALE', gone: 'GONE'}
    assert events_of(facade, deployment_id)[1:] == [
        ('IN_PROGRESS', 'IN_PROGRESS',
         'Stale signal for action revision 0 ignored (current revision '
         '1)')]


@backends.on_every_backend
def test_many_deployments_in_one_call(facade, ctx, admin):
    """Final signals, progress then final, and progress alone (a write
    of other columns) for many deployments: one call applies them all."""
    finals = [_deployment(ctx) for _ in range(8)]
    twice = [_deployment(ctx) for _ in range(8)]
    progress = [_deployment(ctx) for _ in range(8)]
    expected = {}
    for deployment_id in finals:
        expected[_signal(admin, deployment_id)] = 'COMPLETE'
    for deployment_id in twice:
        expected[_signal(admin, deployment_id, PROGRESS)] = 'PROGRESS'
        expected[_signal(admin, deployment_id)] = 'COMPLETE'
    for deployment_id in progress:
        expected[_signal(admin, deployment_id, PROGRESS)] = 'PROGRESS'

    assert signals.apply_batch(sorted(expected)) == expected

    for group, status, reason, version in (
            (finals, 'COMPLETE', 'Outputs received', 2),
            (twice, 'COMPLETE', 'Outputs received', 3),
            (progress, 'IN_PROGRESS', 'half', 2)):
        for deployment_id in group:
            row = deployment_row(facade, deployment_id)
            assert (row['status'], row['status_reason'],
                    row['version']) == (status, reason, version)
            assert row['output_values'] == (
                DONE if status == 'COMPLETE' else None)
    inbox = inbox_rows(facade, list(expected))
    assert {i: r['result'] for i, r in inbox.items()} == expected
    assert all(r['processed_at'] is not None for r in inbox.values())
    assert events_of(facade, twice[0])[1:] == [
        ('IN_PROGRESS', 'IN_PROGRESS', 'half'),
        ('IN_PROGRESS', 'COMPLETE', 'Outputs received')]


@backends.on_every_backend
def test_statements_do_not_grow_with_the_batch(facade, ctx, admin):
    """A batch of 30 takes as many statements as a batch of 3."""
    def statements(count):
        ids = [_signal(admin, _deployment(ctx)) for _ in range(count)]
        executed = []

        caller = threading.get_ident()

        def record(conn, cursor, statement, *args):
            # This call's statements only, not another thread's that
            # happens to use the same engine meanwhile.
            if threading.get_ident() == caller:
                executed.append(statement)

        engine = facade.writer.get_engine()
        sa.event.listen(engine, 'before_cursor_execute', record)
        try:
            results = signals.apply_batch(ids)
        finally:
            sa.event.remove(engine, 'before_cursor_execute', record)
        assert results == dict.fromkeys(ids, 'COMPLETE')
        return len(executed)

    assert statements(30) == statements(3)


@backends.on_every_backend
def test_applying_the_same_signals_again_changes_nothing(facade, ctx,
                                                         admin):
    """Exactly once: a second pass finds every signal processed."""
    deployments = [_deployment(ctx) for _ in range(3)]
    ids = [_signal(admin, d) for d in deployments]
    ids.append(_signal(admin, deployments[0], {'result': 'late'}))
    first = signals.apply_batch(ids)
    assert first == {ids[0]: 'COMPLETE', ids[1]: 'COMPLETE',
                     ids[2]: 'COMPLETE', ids[3]: 'DUPLICATE'}
    before = _snapshot(facade)

    again = signals.apply_batch(ids)

    assert [again.get(i) for i in ids] == [None] * len(ids)
    assert _snapshot(facade) == before


# -- two engines --------------------------------------------------------------

@on_row_locking_backends
def test_claimed_signals_are_skipped_not_waited_for(facade, ctx, admin):
    """Another engine's open claim hides its rows from a second claim at
    once (SKIP LOCKED); committed without finishing them, it gives them
    back."""
    deployment_id = _deployment(ctx)
    other = _deployment(ctx)
    held = [_signal(admin, deployment_id, PROGRESS),
            _signal(admin, deployment_id)]
    free = _signal(admin, other)
    outcome = {}
    claimed = threading.Event()
    release = threading.Event()
    holder = _claim_in_thread(held, outcome, 'holder', claimed, release)
    try:
        assert claimed.wait(HOLD_LIMIT)
        _check(outcome)
        assert outcome['holder'] == held

        same = _claim_in_thread(held, outcome, 'same ids')
        same.join(CLAIM_WAIT)
        assert not same.is_alive(), 'the claim waited for the held rows'
        _check(outcome)
        assert outcome['same ids'] == []
        assert outcome['same ids seconds'] < SKIP_DEADLINE

        wider = _claim_in_thread(held + [free], outcome, 'wider')
        wider.join(CLAIM_WAIT)
        assert not wider.is_alive(), 'the claim waited for the held rows'
        _check(outcome)
        assert outcome['wider'] == [free]
        assert outcome['wider seconds'] < SKIP_DEADLINE
    finally:
        release.set()
        holder.join(HOLD_LIMIT)
    assert not holder.is_alive()

    inbox = inbox_rows(facade, held + [free])
    assert [r['processed_at'] for r in inbox.values()] == [None] * 3
    with db_api.writer.using(admin):
        assert [s['id'] for s in db_api.signal_inbox_claim(
            admin, held)] == held


@on_row_locking_backends
def test_a_signal_waits_for_an_older_one_held_elsewhere(facade, ctx,
                                                        admin):
    """While another engine holds a deployment's older signal, a later
    one is not applied ahead of it: it stays pending, and is applied
    after the older one once that is released."""
    deployment_id = _deployment(ctx)
    older = _signal(admin, deployment_id, PROGRESS)
    later = _signal(admin, deployment_id)
    outcome = {}
    claimed = threading.Event()
    release = threading.Event()
    holder = _claim_in_thread([older], outcome, 'holder', claimed, release)
    try:
        assert claimed.wait(HOLD_LIMIT)
        _check(outcome)
        assert outcome['holder'] == [older]
        assert signals.apply_batch([later]).get(later) is None
        row = deployment_row(facade, deployment_id)
        assert (row['status'], row['version']) == ('IN_PROGRESS', 1)
        assert inbox_rows(facade, [later])[later]['processed_at'] is None
    finally:
        release.set()
        holder.join(HOLD_LIMIT)
    assert not holder.is_alive()

    assert signals.apply_batch([older, later]) == {
        older: 'PROGRESS', later: 'COMPLETE'}
    row = deployment_row(facade, deployment_id)
    assert (row['status'], row['version']) == ('COMPLETE', 3)
    assert [e[1:] for e in events_of(facade, deployment_id)[1:]] == [
        ('IN_PROGRESS', 'half'), ('COMPLETE', 'Outputs received')]
