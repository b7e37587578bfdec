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

"""The background hand-over of stored agent signals to an engine: a task
of the API worker's background work, run here by the same runner.

Real threads and a stand-in engine that records its casts in a queue, so
every assertion waits for what it expects (no fixed sleeps). "Once" is
shown by what comes next: the notifier's thread casts in order, so a cast
of a later signal arriving next proves no other cast came in between.
"""

import logging
import queue
import threading

import pytest

from swconfig.api.agent import signal_notifier
from swconfig.common import context as swconfig_context
from tests.fixtures.waiting import wait_for

LOGGER = 'swconfig.api.agent.signal_notifier'
WAIT = 10


class Engine:
    """Stands in for ``EngineAPI``: records ``process_signal`` casts;
    ``fail`` makes the casts of those ids raise, ``gate`` holds a cast of
    ``held`` until set."""

    def __init__(self, fail: tuple[int, ...] = (), held: int | None = None
                 ) -> None:
        self.casts: queue.Queue = queue.Queue()
        self.fail = fail
        self.held = held
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.threads: set[str] = set()

    def process_signal(self, context, inbox_id: int) -> None:
        self.threads.add(threading.current_thread().name)
        if inbox_id == self.held:
            self.entered.set()
            assert self.gate.wait(WAIT), 'the test never opened the gate'
        if inbox_id in self.fail:
            self.casts.put(('failed', context, inbox_id))
            raise RuntimeError('the bus is down')
        self.casts.put(('cast', context, inbox_id))

    def next(self) -> tuple:
        try:
            return self.casts.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError(f'no cast within {WAIT} s') from None


THREAD = 'periodic-signal-notifier'


@pytest.fixture
def context():
    return swconfig_context.get_admin_context()


@pytest.fixture
def notifier_of(run_as_a_worker):
    """``notifier_of(engine, context, linger, max_pending)``: a notifier
    run as an API worker runs it."""

    def make(engine: Engine, context, linger: float = 0.0,
             max_pending: int = 100) -> signal_notifier.SignalNotifier:
        notifier = signal_notifier.SignalNotifier(engine, context,
                                                  max_pending=max_pending)
        notifier.LINGER = linger
        return run_as_a_worker(notifier)

    return make


def test_a_signal_is_cast_with_the_notifiers_context(context, notifier_of):
    engine = Engine()
    notifier = notifier_of(engine, context)
    notifier.notify(5)
    assert engine.next() == ('cast', context, 5)
    assert engine.threads == {THREAD}


def test_signals_within_linger_share_one_cast_of_the_newest(context,
                                                          notifier_of):
    engine = Engine()
    # Long enough for the three notify calls below, however slow.
    notifier = notifier_of(engine, context, linger=0.5)
    for inbox_id in (3, 9, 5):
        notifier.notify(inbox_id)
    assert engine.next() == ('cast', context, 9)
    notifier.notify(11)
    # Next comes 11: 3 and 5 were never cast on their own.
    assert engine.next() == ('cast', context, 11)


def test_a_signal_within_linger_of_a_taken_one_joins_its_cast(
        context, notifier_of):
    engine = Engine()
    notifier = notifier_of(engine, context, linger=2.0)
    notifier.notify(3)
    # The thread took 3 and lingers: 4 arrives within LINGER of it.
    wait_for(notifier._queue.empty, 1.5, 'the thread takes signal 3')
    notifier.notify(4)
    assert engine.next() == ('cast', context, 4)
    notifier.notify(8)
    assert engine.next() == ('cast', context, 8)


def test_signals_apart_are_cast_apart(context, notifier_of):
    engine = Engine()
    notifier = notifier_of(engine, context)
    notifier.notify(1)
    assert engine.next()[2] == 1
    notifier.notify(2)
    assert engine.next()[2] == 2


def test_a_full_queue_is_logged_not_raised(context, notifier_of, caplog):
    engine = Engine(held=1)
    notifier = notifier_of(engine, context, max_pending=1)
    notifier.notify(1)
    assert engine.entered.wait(WAIT), 'the first cast never started'
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        notifier.notify(2)   # waits in the queue: its one place
        notifier.notify(3)   # the queue is full: dropped, logged
    dropped = [record.getMessage() for record in caplog.records
               if record.levelno == logging.WARNING]
    assert len(dropped) == 1
    assert 'Stored signal 3 not handed to an engine now' in dropped[0]
    assert 'signal sweep will apply it' in dropped[0]
    engine.gate.set()
    assert engine.next()[2] == 1
    assert engine.next()[2] == 2
    notifier.notify(4)
    assert engine.next()[2] == 4   # 3 was never cast


def test_a_failing_cast_keeps_the_thread(context, notifier_of, caplog):
    engine = Engine(fail=(1,))
    notifier = notifier_of(engine, context)
    with caplog.at_level(logging.ERROR, logger=LOGGER):
        notifier.notify(1)
        assert engine.next() == ('failed', context, 1)
        notifier.notify(2)
        assert engine.next() == ('cast', context, 2)
    assert any('Could not hand signal 1 to an engine' in record.getMessage()
               for record in caplog.records)
    assert engine.threads == {THREAD}


def test_one_thread_per_process(context, notifier_of):
    engine = Engine()
    notifier = notifier_of(engine, context)
    notifier.notify(1)
    engine.next()
    pending = notifier._queue
    notifier.notify(2)
    engine.next()
    assert notifier._queue is pending


def test_a_forked_process_casts_on_a_thread_of_its_own(context,
                                                      run_as_a_worker):
    """After a fork, ``forked`` drops the parent's queue (its signals are
    the parent's to cast) and a runner of the child's own starts."""
    engine = Engine()
    notifier = signal_notifier.SignalNotifier(engine, context)
    notifier.LINGER = 0.0
    parent_queue, parent_wakeup = notifier._queue, notifier.wakeup
    parent_queue.put_nowait(1)  # queued, not yet cast, at the fork
    notifier.forked()
    assert notifier._queue is not parent_queue
    assert notifier.wakeup is not parent_wakeup
    threads_before = _notifier_threads()
    run_as_a_worker(notifier)
    notifier.notify(2)
    assert engine.next()[2] == 2
    assert notifier._queue.empty()   # 2 went through the child's queue
    assert len(_notifier_threads() - threads_before) == 1
    assert engine.casts.empty()   # 1 was never cast by the child


def test_notify_never_raises(context, notifier_of, caplog, monkeypatch):
    engine = Engine()
    notifier = notifier_of(engine, context)

    class Broken:
        def put_nowait(self, inbox_id):
            raise RuntimeError('cannot queue')

    monkeypatch.setattr(notifier, '_queue', Broken())
    with caplog.at_level(logging.ERROR, logger=LOGGER):
        notifier.notify(7)
    assert any('Stored signal 7 not handed to an engine; the signal sweep'
               in record.getMessage() for record in caplog.records)
    assert engine.casts.empty()


def _notifier_threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate()
            if thread.name == THREAD}
