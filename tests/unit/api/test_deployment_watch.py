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

"""Long polls of a deployment (``?wait=N``): the per-worker watcher, run
by the runner of the worker's background work.

Real threads against a stand-in for the one query the watcher makes
(``db_api.software_deployment_versions``), with a short poll interval.
Nothing sleeps a fixed time to show that nothing happened: a waiter that
must stay parked is checked to be parked after the watcher read its
deployment unchanged, and is then woken.
"""

import logging
import threading
import time
import types

import pytest

from swconfig.api import deployment_watch
from swconfig.common import background
from tests.fixtures.waiting import wait_for
from tests.unit.outages import database_down

POLL = 0.01
#: Long enough never to run out in a test that expects a wake-up.
LONG = 30


class Versions:
    """Stands in for ``software_deployment_versions``: the versions the
    test sets, and the ids each read asked for."""

    def __init__(self, versions: dict[str, int], failures: int = 0,
                 failure: type = RuntimeError) -> None:
        self._versions = dict(versions)
        self._failures = failures
        self._failure = failure
        self._lock = threading.Lock()
        self.reads: list[list[str]] = []

    def __call__(self, context, deployment_ids):
        assert context.is_admin  # the watcher reads every project's
        with self._lock:
            self.reads.append(list(deployment_ids))
            if self._failures:
                self._failures -= 1
                raise self._failure()
            return {deployment_id: self._versions[deployment_id]
                    for deployment_id in deployment_ids
                    if deployment_id in self._versions}

    def set(self, deployment_id: str, version: int | None) -> None:
        with self._lock:
            if version is None:
                self._versions.pop(deployment_id)
            else:
                self._versions[deployment_id] = version

    def read_count(self, deployment_id: str) -> int:
        with self._lock:
            return sum(deployment_id in ids for ids in self.reads)

    def read_together(self, *deployment_ids: str) -> bool:
        """Whether one read asked for exactly these, in order."""
        with self._lock:
            return list(deployment_ids) in self.reads


class Waiter(threading.Thread):
    """One request waiting for a deployment, in its own thread."""

    def __init__(self, watch, deployment_id: str, version: int,
                 timeout: float = LONG) -> None:
        super().__init__(daemon=True)
        self.args = (deployment_id, version, timeout)
        self.watch = watch
        self.changed: bool | None = None
        self.seconds: float | None = None

    def run(self) -> None:
        started = time.monotonic()
        self.changed = self.watch.wait(*self.args)
        self.seconds = time.monotonic() - started

    def result(self) -> bool | None:
        self.join(10)
        assert not self.is_alive(), f'{self.args} still waits'
        assert self.seconds < LONG
        return self.changed


@pytest.fixture
def versions(monkeypatch):
    monkeypatch.setattr(deployment_watch, 'POLL_INTERVAL', POLL)

    def install(current: dict[str, int], failures: int = 0,
                failure: type = RuntimeError) -> Versions:
        fake = Versions(current, failures, failure)
        # Only the watcher's view of the DB API: other threads keep it.
        monkeypatch.setattr(deployment_watch, 'db_api', types.SimpleNamespace(
            software_deployment_versions=fake))
        return fake

    return install


def _parked(versions: Versions, waiter: Waiter, deployment_id: str) -> None:
    """Once the watcher has read the deployment unchanged, twice, the
    waiter must still be waiting."""
    wait_for(lambda: versions.read_count(deployment_id) >= 2, 10,
             f'the watcher reads {deployment_id}')
    assert waiter.is_alive() and waiter.changed is None


def test_a_change_wakes_the_waiter(versions, run_as_a_worker):
    db = versions({'d1': 3})
    watch = run_as_a_worker(deployment_watch.DeploymentWatch(max_waiters=10))
    waiter = Waiter(watch, 'd1', 3)
    waiter.start()
    _parked(db, waiter, 'd1')
    db.set('d1', 4)
    assert waiter.result() is True


def test_a_deleted_deployment_wakes_the_waiter(versions, run_as_a_worker):
    db = versions({'d1': 3})
    watch = run_as_a_worker(deployment_watch.DeploymentWatch(max_waiters=10))
    waiter = Waiter(watch, 'd1', 3)
    waiter.start()
    _parked(db, waiter, 'd1')
    db.set('d1', None)
    assert waiter.result() is True


def test_a_version_already_changed_wakes_at_the_first_read(
        versions, run_as_a_worker):
    db = versions({'d1': 5})
    watch = run_as_a_worker(deployment_watch.DeploymentWatch(max_waiters=10))
    assert watch.wait('d1', 4, LONG) is True
    assert db.read_count('d1') >= 1


def test_unchanged_until_the_timeout_is_false(versions, run_as_a_worker):
    db = versions({'d1': 3})
    watch = run_as_a_worker(deployment_watch.DeploymentWatch(max_waiters=10))
    started = time.monotonic()
    assert watch.wait('d1', 3, 0.3) is False
    assert time.monotonic() - started >= 0.3
    # It was watched, not merely left to time out.
    assert db.read_count('d1') >= 1


def test_several_waiters_share_one_read_per_round(versions, run_as_a_worker):
    db = versions({'d1': 1, 'd2': 7})
    watch = run_as_a_worker(deployment_watch.DeploymentWatch(max_waiters=10))
    first, second = Waiter(watch, 'd1', 1), Waiter(watch, 'd1', 1)
    other = Waiter(watch, 'd2', 7)
    for waiter in (first, second, other):
        waiter.start()
    wait_for(lambda: db.read_together('d1', 'd2'), 10,
             'one read of both deployments')
    _parked(db, other, 'd2')
    db.set('d1', 2)
    assert first.result() is True and second.result() is True
    # The other deployment's waiter is not woken by d1's change.
    reads = db.read_count('d2')
    wait_for(lambda: db.read_count('d2') >= reads + 2, 10,
             'the watcher reads d2 again')
    assert other.is_alive() and other.changed is None
    db.set('d2', 8)
    assert other.result() is True
    # Each deployment is asked for once per read, however many wait.
    assert all(len(ids) == len(set(ids)) for ids in db.reads)


def test_past_max_waiters_a_wait_is_answered_at_once(versions,
                                                     run_as_a_worker):
    db = versions({'d1': 1, 'd2': 1, 'd3': 1})
    watch = run_as_a_worker(deployment_watch.DeploymentWatch(max_waiters=2))
    waiters = [Waiter(watch, 'd1', 1), Waiter(watch, 'd2', 1)]
    for waiter in waiters:
        waiter.start()
    wait_for(lambda: db.read_together('d1', 'd2'), 10,
             'one read of both deployments')
    started = time.monotonic()
    assert watch.wait('d3', 1, LONG) is False
    assert time.monotonic() - started < LONG / 2
    assert db.read_count('d3') == 0
    db.set('d1', 2)
    assert waiters[0].result() is True
    # The waiter that left freed its place.
    late = Waiter(watch, 'd3', 1)
    late.start()
    _parked(db, late, 'd3')
    db.set('d3', 2)
    db.set('d2', 2)
    assert late.result() is True and waiters[1].result() is True


def test_a_database_outage_is_logged_once_and_the_watch_goes_on(
        versions, run_as_a_worker, caplog):
    """Not a traceback per round: one warning when the outage starts and
    one line when the reads work again; the waiter is woken after it."""
    db = versions({'d1': 1}, failures=3, failure=database_down)
    watch = run_as_a_worker(deployment_watch.DeploymentWatch(max_waiters=10))
    with caplog.at_level(logging.INFO, logger=background.__name__):
        waiter = Waiter(watch, 'd1', 1)
        waiter.start()
        wait_for(lambda: db.read_count('d1') >= 4, 10,
                 'a read after the failed ones')
        db.set('d1', 2)
        assert waiter.result() is True
    lines = [record for record in caplog.records
             if record.getMessage().startswith('deployment-watch: ')]
    assert [record.levelno for record in lines] == [logging.WARNING,
                                                    logging.INFO]
    assert 'retrying with backoff' in lines[0].getMessage()
    assert 'working again' in lines[1].getMessage()
    assert not any(record.exc_info for record in caplog.records)


def test_a_failed_read_is_logged_and_tried_again(versions, run_as_a_worker,
                                                 caplog):
    """A failure that is not an outage (a bug) is logged with its
    traceback, each time, and the watch reads again."""
    db = versions({'d1': 1}, failures=2)
    watch = run_as_a_worker(deployment_watch.DeploymentWatch(max_waiters=10))
    with caplog.at_level(logging.ERROR, logger=background.__name__):
        waiter = Waiter(watch, 'd1', 1)
        waiter.start()
        wait_for(lambda: db.read_count('d1') >= 3, 10,
                 'a read after the failed ones')
        db.set('d1', 2)
        assert waiter.result() is True
    failures = [record for record in caplog.records
                if 'Background task deployment-watch failed'
                in record.getMessage()]
    assert len(failures) == 2
    assert all(record.exc_info[0] is RuntimeError for record in failures)


def test_nobody_waiting_reads_nothing_and_a_waiter_wakes_the_watch(
        versions, run_as_a_worker):
    """Idle, the watch sleeps (``IDLE_WAIT``) instead of polling; the
    first waiter wakes it at once."""
    db = versions({'d1': 1})
    watch = run_as_a_worker(deployment_watch.DeploymentWatch(max_waiters=10))
    assert watch.wait_after_round() == deployment_watch.IDLE_WAIT
    assert watch.wakeup is not None
    waiter = Waiter(watch, 'd1', 1)
    waiter.start()
    _parked(db, waiter, 'd1')
    db.set('d1', 2)
    assert waiter.result() is True
    assert db.reads and all(ids == ['d1'] for ids in db.reads)
