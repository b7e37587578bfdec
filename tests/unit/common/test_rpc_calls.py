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

"""Bounded RPC waits: CallRunner and the transport errors it recognises."""

import threading
import time

import amqp.exceptions
from kombu import exceptions as kombu_exceptions
import oslo_messaging as messaging
import pytest

from swconfig.common import exception
from swconfig.common import rpc
from swconfig.conf import CONF


def _helpers() -> int:
    return sum(1 for thread in threading.enumerate()
               if thread.name == 'rpc-call')


def _call_in_thread(runner: rpc.CallRunner, deadline: float,
                    function, outcomes: list) -> threading.Thread:
    """``runner.run`` in a thread of its own; what it ended with goes to
    ``outcomes`` for the test's thread to check (an assertion inside the
    thread would not fail the test)."""
    def call():
        try:
            outcomes.append(runner.run(deadline, function))
        except Exception as exc:
            outcomes.append(type(exc))

    thread = threading.Thread(target=call)
    thread.start()
    return thread


@pytest.fixture
def release():
    """Set at the end of the test, so no helper thread stays blocked."""
    event = threading.Event()
    yield event
    event.set()


def test_result_and_exception_pass_through():
    runner = rpc.CallRunner(2)
    assert runner.run(5, lambda: {'answer': 42}) == {'answer': 42}
    error = exception.ConfigNotFound(config_id='c1')

    def fail():
        raise error

    with pytest.raises(exception.ConfigNotFound) as caught:
        runner.run(5, fail)
    assert caught.value is error


def test_deadline_bounds_a_call_that_hangs(release):
    runner = rpc.CallRunner(1)
    started = time.monotonic()
    with pytest.raises(exception.ServiceUnavailable) as caught:
        runner.run(2, lambda: release.wait(60))
    elapsed = time.monotonic() - started
    assert 2 <= elapsed < 2 + 3, elapsed
    assert caught.value.code == 503
    assert 'within 2 s' in caught.value.message


def test_an_interrupt_ends_the_wait_of_a_slow_call(release, monkeypatch):
    """Asked once a second while a call runs; what it returns is raised
    at once, long before the deadline."""
    monkeypatch.setattr(rpc.CallRunner, 'INTERRUPT_EVERY', 0.2)
    runner = rpc.CallRunner(1)
    asked = []
    down = exception.MessagingUnavailable(reason='refused')

    def interrupt():
        asked.append(time.monotonic())
        return down if len(asked) == 3 else None

    started = time.monotonic()
    with pytest.raises(exception.MessagingUnavailable) as caught:
        runner.run(30, lambda: release.wait(60), interrupt=interrupt)
    assert caught.value is down
    assert len(asked) == 3
    assert 0.5 <= time.monotonic() - started < 3


def test_a_fast_call_never_asks_the_interrupt():
    runner = rpc.CallRunner(1)
    asked = []
    assert runner.run(5, lambda: 42,
                      interrupt=lambda: asked.append(1)) == 42
    assert asked == []


def test_a_call_queued_past_its_deadline_never_runs(release):
    """With every helper stuck, a new call waits in line, fails at its
    deadline, and is dropped: it must not reach an engine later (its
    client was already told 503)."""
    runner = rpc.CallRunner(1)
    ran = []
    first_started = threading.Event()

    def stuck():
        first_started.set()
        release.wait(60)
        ran.append('stuck')

    outcomes = []
    caller = _call_in_thread(runner, 1, stuck, outcomes)
    assert first_started.wait(10)
    # The helper stays stuck until released: the first call times out.
    caller.join(30)
    assert outcomes == [exception.ServiceUnavailable]
    with pytest.raises(exception.ServiceUnavailable):
        runner.run(1, lambda: ran.append('queued'))
    release.set()
    # The one helper serves calls in order: once this one ran, the queued
    # call was taken (and dropped) before it.
    assert runner.run(10, lambda: ran.append('after') or 'done') == 'done'
    assert ran == ['stuck', 'after']


def test_helpers_are_bounded(release):
    runner = rpc.CallRunner(2)
    before = _helpers()
    entered = threading.Semaphore(0)

    def stuck():
        entered.release()
        release.wait(60)

    outcomes = []
    callers = [_call_in_thread(runner, 2, stuck, outcomes)
               for _ in range(4)]
    assert entered.acquire(timeout=10) and entered.acquire(timeout=10)
    for caller in callers:
        caller.join(30)
    assert _helpers() - before == 2
    assert outcomes == [exception.ServiceUnavailable] * 4
    release.set()


def test_helpers_are_reused():
    runner = rpc.CallRunner(4)
    before = _helpers()
    for number in range(20):
        assert runner.run(5, lambda n=number: n) == number
    assert _helpers() - before == 1


@pytest.mark.parametrize('error', [
    kombu_exceptions.OperationalError('[Errno 111] Connection refused'),
    amqp.exceptions.ConnectionForced('broker shutting down'),
    ConnectionRefusedError(111, 'Connection refused'),
    TimeoutError('timed out'),
])
def test_transport_errors(error):
    assert rpc.is_transport_error(error)


@pytest.mark.parametrize('error', [
    messaging.MessagingTimeout('no reply'),
    messaging.MessageDeliveryFailure('no broker'),
    exception.ServiceUnavailable(reason='x'),
    ValueError('a bug'),
])
def test_other_errors_are_not_transport_errors(error):
    assert not rpc.is_transport_error(error)


def test_client_has_the_retry_and_timeout_asked_for(monkeypatch):
    """Both reach oslo.messaging (its send retries forever without
    ``retry``), also for a prepared call context."""
    transport = messaging.get_rpc_transport(CONF, url='fake://')
    monkeypatch.setattr(rpc, '_TRANSPORT', transport)
    try:
        client = rpc.get_client(messaging.Target(topic='t'), timeout=7,
                                retry=3)
        prepared = client.prepare(version='1.0')
        assert (prepared.retry, prepared.timeout) == (3, 7)
    finally:
        transport.cleanup()
