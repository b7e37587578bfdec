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

"""Engines share background work through tooz on the machine's Redis.

Each test uses a group of its own, so runs and tests never see each
other's members. The SIGKILL test runs the victim in a real child
process; the outage test runs a Redis of its own, which it kills.
"""

import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
import redis

from swconfig.engine import coordination
from tests.fixtures import processes
from tests.fixtures import services
from tests.fixtures.waiting import wait_for

REDIS_URL = f'redis://127.0.0.1:{services.REDIS_PORT}'
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
KEYS = [f'deployment-{i}' for i in range(1000)]
LOGGER = 'swconfig.engine.coordination'


@pytest.fixture
def group():
    return f'swconfig-test-{uuid.uuid4().hex[:10]}'


@pytest.fixture
def backend(set_conf):
    """Redis as the backend; returns a setter for member_timeout."""
    services.ensure_redis()
    set_conf('backend_url', REDIS_URL, group='coordination')

    def member_timeout(seconds):
        set_conf('member_timeout', seconds, group='coordination')

    return member_timeout


@pytest.fixture
def coordinators():
    """``make(member, group)``: a started coordinator, stopped after the
    test."""
    made = []

    def make(member, group):
        coordinator = coordination.Coordinator(member, group=group)
        made.append(coordinator)
        coordinator.start()
        return coordinator

    yield make
    for coordinator in made:
        coordinator.stop()


def owned(coordinator):
    return {key for key in KEYS if coordinator.owns(key)}


def test_without_a_backend_one_engine_owns_everything(set_conf):
    set_conf('backend_url', None, group='coordination')
    coordinator = coordination.Coordinator('alone')
    coordinator.start()
    assert owned(coordinator) == set(KEYS)
    assert coordinator.members == ['alone']
    coordinator.stop()


def test_two_engines_split_every_key_once_and_fairly(backend, group,
                                                     coordinators):
    backend(5)
    first = coordinators('first', group)
    second = coordinators('second', group)
    wait_for(lambda: first.members == second.members == ['first', 'second'],
             10, 'both engines see both')
    mine, theirs = owned(first), owned(second)
    assert mine | theirs == set(KEYS)
    assert not mine & theirs
    # Binomial(1000, 1/2): 400..600 is more than six deviations wide.
    assert 400 <= len(mine) <= 600, len(mine)
    # Every engine computes the same owner from the same members.
    for key in KEYS:
        expected = 'first' if key in mine else 'second'
        assert coordination.owner(key, ['second', 'first']) == expected


def test_members_follow_engines_that_join_and_leave(
        backend, group, coordinators):
    backend(5)
    first = coordinators('first', group)
    wait_for(lambda: first.members == ['first'], 10, 'first sees itself')
    second = coordinators('second', group)
    wait_for(lambda: first.members == ['first', 'second'], 10,
             'first notices the second engine')
    assert owned(first) != set(KEYS)
    second.stop()
    wait_for(lambda: first.members == ['first'], 10,
             'first notices the second engine left')
    assert owned(first) == set(KEYS)


def test_an_engine_that_stops_hands_its_items_over_at_once(
        backend, group, coordinators):
    backend(30)  # expiry cannot be what moves the items here
    survivor = coordinators('survivor', group)
    leaving = coordinators('leaving', group)
    wait_for(lambda: survivor.members == ['leaving', 'survivor'], 10,
             'survivor sees the other engine')
    assert owned(survivor) != set(KEYS)
    stopped_at = time.monotonic()
    leaving.stop()
    wait_for(lambda: owned(survivor) == set(KEYS), 5,
             'survivor owns everything')
    takeover = time.monotonic() - stopped_at
    assert takeover < 3, takeover
    print(f'takeover after a clean stop: {takeover:.2f} s')


@contextlib.contextmanager
def member_process(group, member, member_timeout):
    child = subprocess.Popen(
        [sys.executable, '-m', 'tests.fixtures.coordination_member',
         REDIS_URL, group, member, str(member_timeout)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == 'ready'
        yield child
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(10)


def test_a_killed_engine_s_items_move_within_member_timeout(
        backend, group, coordinators):
    member_timeout = 3
    backend(member_timeout)
    timings = coordination.timings()
    survivor = coordinators('survivor', group)
    with member_process(group, 'victim', member_timeout) as victim:
        wait_for(lambda: survivor.members == ['survivor', 'victim'], 10,
                 'survivor sees the victim')
        victims = set(KEYS) - owned(survivor)
        assert victims
        victim.send_signal(signal.SIGKILL)
        killed_at = time.monotonic()
        victim.wait(10)
        # Right after the kill the victim's heartbeat is still fresh.
        assert not {key for key in victims if survivor.owns(key)}
        wait_for(lambda: owned(survivor) == set(KEYS),
                 member_timeout + 5, 'survivor owns everything')
    takeover = time.monotonic() - killed_at
    print(f'takeover after SIGKILL: {takeover:.2f} s '
          f'(member_timeout {member_timeout} s)')
    # Its last heartbeat was at most one interval before the kill, and
    # lives member_timeout minus one look; one look later it is seen.
    earliest = member_timeout - timings.look - timings.heartbeat
    assert earliest - 0.1 <= takeover <= member_timeout + 1, takeover


def test_an_unreachable_backend_neither_raises_nor_silences_owns(
        set_conf, group, coordinators, caplog):
    set_conf('backend_url', f'redis://127.0.0.1:{processes.free_port()}',
             group='coordination')
    set_conf('member_timeout', 2, group='coordination')
    caplog.set_level(logging.WARNING, logger=LOGGER)
    started_at = time.monotonic()
    coordinator = coordinators('lonely', group)
    assert time.monotonic() - started_at < coordination.START_WAIT + 2
    for _ in range(20):
        assert owned(coordinator) == set(KEYS)
        time.sleep(0.1)
    assert coordinator.members == ['lonely']
    warnings = [r for r in caplog.records if r.name == LOGGER
                and r.levelno == logging.WARNING]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    stopping_at = time.monotonic()
    coordinator.stop()
    assert time.monotonic() - stopping_at < coordination.STOP_WAIT + 2


@contextlib.contextmanager
def private_redis(port):
    server = subprocess.Popen(
        ['redis-server', '--bind', '127.0.0.1', '--port', str(port),
         '--save', '', '--appendonly', 'no'],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = redis.Redis(port=port)
        wait_for(lambda: _pings(client), 10, 'private Redis up')
        yield server
    finally:
        server.kill()
        server.wait(10)


def _pings(client):
    try:
        return client.ping()
    except Exception:
        return False


def test_an_outage_keeps_the_share_then_takes_everything_then_heals(
        set_conf, group, coordinators, caplog):
    member_timeout = 3
    port = processes.free_port()
    set_conf('backend_url', f'redis://127.0.0.1:{port}',
             group='coordination')
    set_conf('member_timeout', member_timeout, group='coordination')
    caplog.set_level(logging.INFO, logger=LOGGER)
    with private_redis(port) as server:
        look = coordination.timings().look
        first = coordinators('first', group)
        second = coordinators('second', group)
        wait_for(lambda: first.members == second.members
                 == ['first', 'second'], 10, 'both engines see both')
        share = owned(first)
        assert share and share != set(KEYS)
        server.kill()
        server.wait(10)
        lost_at = time.monotonic()
        # A short outage moves nothing.
        assert owned(first) == share
        wait_for(lambda: owned(first) == owned(second) == set(KEYS),
                 member_timeout + 5, 'each engine does everything')
        alone_after = time.monotonic() - lost_at
        # Its last answer came at most one look before the kill.
        assert alone_after >= member_timeout - look - 0.1, alone_after
        print(f'each engine does everything {alone_after:.2f} s into '
              f'the outage (member_timeout {member_timeout} s)')
    with private_redis(port):
        wait_for(lambda: first.members == second.members
                 == ['first', 'second'], 30, 'both engines back in the group')
        assert owned(first) == share
        first.stop()
        second.stop()
    messages = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    for engine in ('first', 'second'):
        kept = [m for m in messages
                if f'engine {engine} keeps its share' in m]
        assert len(kept) == 1, messages
        took_over = [m for m in messages
                     if f'engine {engine} does all background work' in m]
        assert len(took_over) == 1, messages
    assert sum('answers again after' in m for m in messages) == 2, messages
