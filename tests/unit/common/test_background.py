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

"""Background work as every process runs it: the runner's backoff and
outage logging, tasks on threads of their own, one-round tasks, and
shared tasks seeing only what the partition gives them."""

import logging
import threading

import pytest

from swconfig.common import background
from swconfig.common import exception
from swconfig.db import api as db_api
from tests.fixtures.waiting import wait_for
from tests.unit.outages import backend_down
from tests.unit.outages import database_down
from tests.unit.partitions import Everything
from tests.unit.partitions import Only

LOGGER = background.__name__
INTERVAL = 2.0
MAX_INTERVAL = 30.0


def is_outage(exc):
    """The engine's test: a backend or the database down."""
    return (isinstance(exc, exception.BackendUnavailable)
            or db_api.is_outage(exc))


class Task(background.PeriodicTask):
    """Raises the exceptions of ``failures`` in turn (None: a round that
    works), then works."""

    name = 'fake'

    def __init__(self, failures=()):
        self.failures = list(failures)
        self.rounds = 0

    def interval(self):
        return INTERVAL

    def max_interval(self):
        return MAX_INTERVAL

    def run(self, partition):
        self.rounds += 1
        if self.failures:
            failure = self.failures.pop(0)
            if failure is not None:
                raise failure


def rounds(task, count, wait=None):
    """The waits the runner chooses after ``count`` rounds of ``task``."""
    runner = background.Runner([task], Everything(), is_outage)
    outage = background.Outage(task.name)
    wait = task.interval() if wait is None else wait
    waits = []
    for _ in range(count):
        wait = runner.run_once(task, outage, wait)
        waits.append(wait)
    return waits


@pytest.mark.parametrize('failure', [backend_down, database_down],
                         ids=['BackendUnavailable', 'DBConnectionError'])
def test_an_outage_backs_off_doubling_up_to_the_maximum(failure):
    """Each failing round doubles the wait, from the interval up to the
    task's maximum; the first round that works goes back to the
    interval."""
    task = Task([failure() for _ in range(5)])
    assert rounds(task, 7) == [4.0, 8.0, 16.0, 30.0, 30.0, 2.0, 2.0]
    assert task.rounds == 7


@pytest.mark.parametrize('failure', [backend_down, database_down],
                         ids=['BackendUnavailable', 'DBConnectionError'])
def test_next_wait_doubles_from_at_least_the_interval(failure):
    task = Task()
    assert background.next_wait(task, INTERVAL, failure(), is_outage) == 4.0
    assert background.next_wait(task, 0.1, failure(), is_outage) == 4.0
    assert background.next_wait(task, 12.0, failure(), is_outage) == 24.0
    assert background.next_wait(task, 24.0, failure(),
                                is_outage) == MAX_INTERVAL
    assert background.next_wait(task, 16.0, None, is_outage) == INTERVAL


def test_any_other_failure_is_logged_with_its_traceback(caplog):
    """A bug is not an outage: logged as an error with its traceback, and
    the task runs again at its interval, even right after a backoff."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    task = Task([backend_down(), backend_down(), KeyError('deployment')])
    assert rounds(task, 3) == [4.0, 8.0, INTERVAL]
    errors = [r for r in caplog.records
              if r.name == LOGGER and r.levelno == logging.ERROR]
    assert len(errors) == 1
    assert errors[0].getMessage() == (
        'Background task fake failed; it runs again in 2.0 s')
    assert errors[0].exc_info is not None
    assert errors[0].exc_info[0] is KeyError
    assert 'Traceback' in caplog.text
    assert background.next_wait(task, 16.0, ValueError('x'),
                                is_outage) == INTERVAL


def test_an_outage_is_logged_when_it_starts_and_when_it_ends(caplog):
    """Not every round: one WARNING when the first round fails, one INFO
    when the first round works again; a later outage is logged anew."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    task = Task([backend_down(), database_down(), backend_down(), None,
                 None, backend_down(), None])
    rounds(task, 8)
    messages = [(r.levelno, r.getMessage()) for r in caplog.records
                if r.name == LOGGER]
    started = [m for level, m in messages
               if level == logging.WARNING and 'retrying with backoff' in m]
    ended = [m for level, m in messages
             if level == logging.INFO and 'working again after' in m]
    assert len(started) == 2
    assert len(ended) == 2
    assert started[0].startswith('fake: Swift is unavailable: 503 on '
                                 '/v1/AUTH_svc; retrying with backoff '
                                 '(next in 4 s)')
    assert [m.split(':')[0] for level, m in messages] == ['fake'] * 4
    # Start, end, start, end: in that order.
    order = ['start' if 'retrying' in m else 'end' for _level, m in messages]
    assert order == ['start', 'end', 'start', 'end']


def test_outage_state_follows_failures_and_recovery():
    outage = background.Outage('fake')
    assert outage.since is None
    outage.failed(backend_down(), 4.0)
    since = outage.since
    assert since is not None
    outage.failed(backend_down(), 8.0)
    assert outage.since == since
    outage.recovered()
    assert outage.since is None


class Counting(background.PeriodicTask):
    """Counts its rounds and records the thread and partition of each."""

    name = 'counting'

    def __init__(self, interval):
        self._interval = interval
        self.rounds = 0
        self.threads = set()
        self.partitions = set()
        self.ran = threading.Event()

    def interval(self):
        return self._interval

    def run(self, partition):
        self.rounds += 1
        self.threads.add(threading.current_thread())
        self.partitions.add(id(partition))
        self.ran.set()


def test_the_runner_runs_each_task_on_its_own_thread_until_stopped():
    fast = Counting(0.01)
    slow = Counting(3600.0)
    slow.name = 'slow'
    partition = Everything()
    runner = background.Runner([fast, slow], partition, is_outage)
    runner.start()
    try:
        wait_for(lambda: fast.rounds >= 3, 10, 'three rounds of the task')
        assert slow.ran.wait(10)
    finally:
        runner.stop(timeout=10)
    threads = fast.threads | slow.threads
    assert {t.name for t in threads} == {'periodic-counting',
                                         'periodic-slow'}
    assert threading.current_thread() not in threads
    # Stopping wakes the slow task from its hour-long wait.
    assert not any(t.is_alive() for t in threads)
    assert fast.partitions == slow.partitions == {id(partition)}
    assert slow.rounds == 1
    rounds_when_stopped = fast.rounds
    runner.start()
    try:
        wait_for(lambda: fast.rounds > rounds_when_stopped, 10,
                 'a round after starting again')
    finally:
        runner.stop(timeout=10)


class Scheduled(Counting):
    """Asks for its next round after ``due`` seconds, and can be woken."""

    name = 'scheduled'

    def __init__(self, interval, due):
        super().__init__(interval)
        self.due = due
        self.wakeup = threading.Event()

    def wait_after_round(self):
        return self.due


def test_a_task_due_sooner_than_its_interval_runs_when_due():
    task = Scheduled(3600.0, due=0.01)
    runner = background.Runner([task], Everything(), is_outage)
    runner.start()
    try:
        wait_for(lambda: task.rounds >= 3, 10, 'rounds when due')
    finally:
        runner.stop(timeout=10)


def test_a_woken_task_runs_at_once_and_stop_ends_its_wait():
    task = Scheduled(3600.0, due=3600.0)
    runner = background.Runner([task], Everything(), is_outage)
    runner.start()
    try:
        wait_for(lambda: task.rounds == 1, 10, 'the first round')
        task.wakeup.set()
        wait_for(lambda: task.rounds == 2, 10, 'a round once woken')
    finally:
        runner.stop(timeout=10)
    assert runner._threads == []
    assert task.rounds == 2


def test_after_an_outage_the_backoff_ignores_the_due_time():
    task = Task([backend_down()])
    task.wait_after_round = lambda: 0.5
    assert rounds(task, 2) == [2 * INTERVAL, 0.5]


def test_a_failing_task_keeps_running_on_its_thread():
    task = Task([KeyError('x'), backend_down()])
    task.interval = lambda: 0.01
    task.max_interval = lambda: 0.02
    runner = background.Runner([task], Everything(), is_outage)
    runner.start()
    try:
        wait_for(lambda: task.rounds >= 4, 10,
                 'rounds after a bug and an outage')
    finally:
        runner.stop(timeout=10)
    assert runner._threads == []


class Shared(background.SharedTask):
    name = 'shared'

    def __init__(self, items):
        self._items = items
        self.handled = None

    def interval(self):
        return INTERVAL

    def items(self):
        return self._items

    def handle(self, owned):
        self.handled = list(owned)


def test_a_shared_task_handles_only_what_the_partition_gives_it():
    task = Shared([('a', 'A'), ('b', 'B'), ('c', 'C'), ('d', 'D')])
    partition = Only({'b', 'd', 'z'})
    task.run(partition)
    assert task.handled == ['B', 'D']
    assert partition.asked == ['a', 'b', 'c', 'd']


def test_a_shared_task_owning_nothing_handles_nothing():
    task = Shared([('a', 'A')])
    task.run(Only(()))
    assert task.handled == []


def test_a_task_run_once_ends_after_its_first_round_that_works():
    """Retried through an outage and a bug like any task, then its thread
    ends (the API's cache warm-up)."""
    task = Task([backend_down(), KeyError('x')])
    task.repeated = False
    task.interval = lambda: 0.01
    task.max_interval = lambda: 0.02
    runner = background.Runner([task], Everything(), is_outage)
    runner.start()
    try:
        wait_for(lambda: not any(thread.is_alive()
                                 for thread in runner._threads), 10,
                 'the thread of a task run once to end')
    finally:
        runner.stop(timeout=10)
    assert task.rounds == 3


def test_only_what_the_runner_is_told_is_an_outage():
    """A process whose work talks to the database only (an API worker)
    counts only the database's outages; a backend's error is a bug
    there, logged with its traceback."""
    runner = background.Runner([], Everything(), db_api.is_outage)
    task = Task([backend_down(), database_down()])
    outage = background.Outage(task.name)
    assert runner.run_once(task, outage, INTERVAL) == INTERVAL
    assert outage.since is None
    assert runner.run_once(task, outage, INTERVAL) == 2 * INTERVAL
    assert outage.since is not None


def test_a_process_sharing_nothing_owns_everything():
    assert background.Everything().owns('any key')
