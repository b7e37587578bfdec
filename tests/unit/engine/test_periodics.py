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

"""The engine's background work: the runner's backoff and outage logging,
shared tasks seeing only what the partition gives them, and the table of
tasks each configuration runs."""

import logging
import threading

from oslo_db import exception as db_exc
import pytest
from sqlalchemy import exc as sa_exc

from swconfig import transports
from swconfig.common import exception
from swconfig.engine import deadlines
from swconfig.engine import periodics
from swconfig.engine import signals
from swconfig.transports import base
from swconfig.transports.swift import client as swift
from swconfig.transports.swift import metadata as swift_metadata
from swconfig.transports.swift import poller
from tests.fixtures.waiting import wait_for

LOGGER = periodics.__name__
INTERVAL = 2.0
MAX_INTERVAL = 30.0


class Everything:
    """A partition that gives this engine every item."""

    def owns(self, key):
        return True


class Only:
    """A partition that gives this engine ``keys`` only."""

    def __init__(self, keys):
        self.keys = set(keys)
        self.asked = []

    def owns(self, key):
        self.asked.append(key)
        return key in self.keys


class Task(base.PeriodicTask):
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


def backend_down():
    return exception.BackendUnavailable(service='Swift',
                                        reason='503 on /v1/AUTH_svc')


def database_down():
    refused = sa_exc.OperationalError(
        'SELECT 1', {}, Exception("(2003) Can't connect to MySQL server"))
    return db_exc.DBConnectionError(refused)


def rounds(task, count, wait=None):
    """The waits the runner chooses after ``count`` rounds of ``task``."""
    runner = periodics.Runner([task], Everything())
    outage = periodics.Outage(task.name)
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
    assert periodics.next_wait(task, INTERVAL, failure()) == 4.0
    assert periodics.next_wait(task, 0.1, failure()) == 4.0
    assert periodics.next_wait(task, 12.0, failure()) == 24.0
    assert periodics.next_wait(task, 24.0, failure()) == MAX_INTERVAL
    assert periodics.next_wait(task, 16.0, None) == INTERVAL


def test_the_database_outage_is_recognised_by_db_api():
    """What the runner backs off on is the database's own definition of
    an outage, not a list of its own."""
    assert periodics.is_outage(database_down())
    assert periodics.is_outage(backend_down())
    assert not periodics.is_outage(db_exc.DBDuplicateEntry())
    assert not periodics.is_outage(KeyError('id'))


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
    assert periodics.next_wait(task, 16.0, ValueError('x')) == INTERVAL


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
    outage = periodics.Outage('fake')
    assert outage.since is None
    outage.failed(backend_down(), 4.0)
    since = outage.since
    assert since is not None
    outage.failed(backend_down(), 8.0)
    assert outage.since == since
    outage.recovered()
    assert outage.since is None


class Shared(base.SharedTask):
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


def test_timeouts_fail_only_the_deployments_this_engine_owns(monkeypatch):
    late = [{'id': f'dep-{n}'} for n in range(4)]
    failed = []
    monkeypatch.setattr(signals, 'timed_out', lambda passed: late)
    monkeypatch.setattr(signals, 'time_out',
                        lambda row: failed.append(row['id']))
    monkeypatch.setattr(deadlines, 'next_wait', lambda passed, longest: 4.5)
    task = periodics.Timeouts()
    task.run(Only({'dep-1', 'dep-3'}))
    assert failed == ['dep-1', 'dep-3']
    assert task.wait_after_round() == 4.5


def test_timeouts_wait_for_the_next_deadline_or_a_backlog(monkeypatch,
                                                          set_conf):
    """Every round asks when the next deadline is due (at most the
    interval later); a full batch leaves more to fail at once."""
    set_conf('timeout_check_interval', 10, group='agent')
    asked = []
    batch = []
    monkeypatch.setattr(signals, 'timed_out', lambda passed: batch)
    monkeypatch.setattr(signals, 'time_out', lambda row: None)
    monkeypatch.setattr(deadlines, 'next_wait', lambda passed, longest: (
        asked.append((passed, longest)) or 2.5))
    task = periodics.Timeouts()
    assert task.wakeup is deadlines.WAKE
    assert task.wait_after_round() == 10
    task.run(Everything())
    assert task.wait_after_round() == 2.5
    assert len(asked) == 1 and asked[0][1] == 10
    batch.extend({'id': f'd{n}'} for n in range(signals.SWEEP_BATCH))
    task.run(Everything())
    assert task.wait_after_round() == deadlines.MIN_WAIT_SECONDS
    assert len(asked) == 1


class Counting(base.PeriodicTask):
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
    runner = periodics.Runner([fast, slow], partition)
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
    runner = periodics.Runner([task], Everything())
    runner.start()
    try:
        wait_for(lambda: task.rounds >= 3, 10, 'rounds when due')
    finally:
        runner.stop(timeout=10)


def test_a_woken_task_runs_at_once_and_stop_ends_its_wait():
    task = Scheduled(3600.0, due=3600.0)
    runner = periodics.Runner([task], Everything())
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
    runner = periodics.Runner([task], Everything())
    runner.start()
    try:
        wait_for(lambda: task.rounds >= 4, 10,
                 'rounds after a bug and an outage')
    finally:
        runner.stop(timeout=10)
    assert runner._threads == []


@pytest.fixture
def swift_conf(set_conf):
    """A configured [swift] (as in test_transports), nothing contacted."""
    set_conf('auth_url', 'http://swift.test/auth/v1.0', group='swift')
    set_conf('user', 'svc:swconfig', group='swift')
    set_conf('key', 'secret', group='swift')
    set_conf('temp_url_key', 'tempurl-key', group='swift')
    swift.reset()
    yield
    swift.reset()


def names(tasks):
    return [task.name for task in tasks]


def test_the_table_holds_the_engines_own_tasks_always():
    assert not transports.pushing_metadata_available()
    assert names(periodics.table()) == [
        'heartbeat', 'signal-sweep', 'deployment-timeouts', 'rollouts',
        'key-purge']


def test_document_push_runs_while_a_pushing_transport_is_configured(
        monkeypatch):
    monkeypatch.setattr(transports, 'pushing_metadata_available',
                        lambda: True)
    tasks = periodics.table()
    assert names(tasks) == ['heartbeat', 'signal-sweep',
                            'deployment-timeouts', 'rollouts', 'key-purge',
                            'document-push']
    assert isinstance(tasks[-1], periodics.DocumentPush)


def test_configured_swift_adds_its_poller_once(swift_conf):
    """Two Swift transports are installed (TEMP_URL_SIGNAL and
    POLL_TEMP_URL); the signal poller runs once, with the engine's
    sink, and POLL_TEMP_URL makes the engine push documents."""
    assert {'TEMP_URL_SIGNAL'} <= set(transports.available())
    tasks = periodics.table()
    assert sorted(names(tasks)) == sorted([
        'heartbeat', 'signal-sweep', 'deployment-timeouts', 'rollouts',
        'key-purge', 'document-push', 'swift-signals'])
    polling = [task for task in tasks if task.name == 'swift-signals']
    assert len(polling) == 1
    assert isinstance(polling[0], poller.SignalPoller)
    assert polling[0].sink is signals.SINK
    assert polling[0].transport == 'TEMP_URL_SIGNAL'


def test_a_task_two_transports_declare_runs_once(swift_conf, monkeypatch):
    """Transports sharing a service may declare the same task: the table
    holds it once, the first declared (signal transports come first)."""
    monkeypatch.setattr(
        swift_metadata.PollTempUrlTransport, 'periodic_tasks',
        lambda self, sink: [poller.SignalPoller(self.name, sink)],
        raising=False)
    polling = [task for task in periodics.table()
               if task.name == 'swift-signals']
    assert len(polling) == 1
    assert polling[0].transport == 'TEMP_URL_SIGNAL'


def test_the_tasks_take_their_intervals_from_the_options(set_conf,
                                                         swift_conf):
    set_conf('signal_sweep_interval', 7, group='agent')
    set_conf('timeout_check_interval', 11, group='agent')
    set_conf('document_push_interval', 0.5, group='agent')
    set_conf('signal_poll_interval', 1.5, group='swift')
    set_conf('max_retry_interval', 40.0, group='swift')
    set_conf('idempotency_key_purge_interval', 600, group='engine')
    tasks = {task.name: task for task in periodics.table()}
    assert tasks['signal-sweep'].interval() == 7
    assert tasks['deployment-timeouts'].interval() == 11
    assert tasks['document-push'].interval() == 0.5
    assert tasks['key-purge'].interval() == 600
    assert tasks['swift-signals'].interval() == 1.5
    assert tasks['swift-signals'].max_interval() == 40.0


def test_a_rollout_deleted_before_its_round_is_skipped_quietly(monkeypatch,
                                                                caplog):
    """Deleted between the listing and the advance: logged at INFO with
    no traceback, and the other rollouts are still advanced."""
    advanced = []

    def advance(rollout_id):
        if rollout_id == 'gone':
            raise exception.RolloutNotFound(rollout_id=rollout_id)
        advanced.append(rollout_id)

    monkeypatch.setattr(periodics.rollouts, 'advance', advance)
    with caplog.at_level(logging.INFO, logger=periodics.__name__):
        periodics.Rollouts().handle(iter(['gone', 'kept']))
    assert advanced == ['kept']
    record, = [r for r in caplog.records if 'gone' in r.getMessage()]
    assert record.levelno == logging.INFO and record.exc_info is None
