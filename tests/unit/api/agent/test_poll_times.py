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

"""The API workers' poll time recorder (``poll_times``) on a real SQLite
file: notes written by the worker's writer, a failed write (the table
gone for a moment) keeps the notes, interval 0 records nothing, and a
forked child writes on a thread of its own."""

import contextlib
import datetime
import logging
import sys
import threading
import time
import types

import pytest
import sqlalchemy as sa

from swconfig.api import background as api_background
from swconfig.api.agent import poll_times
from swconfig.conf import CONF
from swconfig.db import models
from swconfig.db import session
from tests.fixtures import forking
from tests.fixtures.waiting import wait_for

_SERVER = models.Server.__table__
CREATED = datetime.datetime(2026, 12, 5, 10, 0, 0)


@pytest.fixture
def db(facade):
    reset = session.context_manager.patch_factory(facade)
    engine = facade.writer.get_engine()
    with engine.begin() as connection:
        connection.execute(_SERVER.insert(), [
            {'id': server_id, 'tenant': 'p1', 'token_revision': 1,
             'document_revision': 0, 'created_at': CREATED,
             'updated_at': CREATED}
            for server_id in ('a', 'b', 'c')])
    poll_times.reset()
    try:
        yield engine
    finally:
        poll_times.reset()
        reset()
        with engine.begin() as connection:
            for table in reversed(models.Base.metadata.sorted_tables):
                connection.execute(table.delete())


def _stored(engine) -> dict:
    with engine.connect() as connection:
        return dict(connection.execute(
            sa.select(_SERVER.c.id, _SERVER.c.last_poll_at)).all())


@contextlib.contextmanager
def _interval(seconds: int):
    """``[api] poll_time_interval`` set for a while; the value before is
    put back (the in-process stack of the same session sets its own)."""
    before = CONF.api.poll_time_interval
    CONF.set_override('poll_time_interval', seconds, group='api')
    try:
        yield
    finally:
        CONF.set_override('poll_time_interval', before, group='api')


def _writers() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate()
            if thread.name == 'periodic-poll-time-writer']


@pytest.fixture
def worker():
    """``worker()``: this process's background work made of the
    configured poll-time writer alone, started as a worker starts it;
    stopped, and the work before put back, after the test."""
    before = api_background.current()
    made = []

    def start():
        work = api_background.Work(lambda: [poll_times.writer()])
        api_background.install(work)
        work.start()
        made.append(work)
        return work

    yield start
    api_background.install(before)
    for work in made:
        work.stop()


def test_nothing_is_written_before_the_worker_starts(db):
    """A note starts no thread: the worker's background work writes."""
    with _interval(1):
        poll_times.note('a')
        assert _writers() == []
        assert poll_times.flush() == 0
        assert 'a' in poll_times.noted()


def test_the_thread_writes_what_was_noted(db, worker):
    with _interval(1):
        before = time.time()
        worker()
        poll_times.note('a')
        poll_times.note('b')
        assert len(_writers()) == 1
        wait_for(lambda: _stored(db)['b'], 10, 'the poll times written')
        stored = _stored(db)
        assert stored['c'] is None
        noted = stored['a'].replace(tzinfo=datetime.timezone.utc)
        assert noted.timestamp() == pytest.approx(before, abs=2)


def test_a_failed_write_keeps_the_notes(db, caplog):
    recorder = poll_times.Recorder(3600)  # no thread: flushed by hand
    now = poll_times.CLOCK()
    recorder.times['a'] = now - 10
    recorder.times['b'] = now - 10
    with db.begin() as connection:
        connection.execute(sa.text('ALTER TABLE server RENAME TO gone'))
    try:
        with caplog.at_level(logging.WARNING, logger=poll_times.__name__):
            assert recorder.flush() == 0
    finally:
        with db.begin() as connection:
            connection.execute(sa.text('ALTER TABLE gone RENAME TO server'))
    assert 'Could not record the last poll time of 2 servers' in caplog.text
    assert 'no such table: server' in caplog.text  # the error, named
    # Meanwhile 'a' polled again: the newest time is what is written.
    recorder.times['a'] = now - 5
    assert recorder.flush() == 2
    stored = _stored(db)
    # Noted on the monotonic clock, stored as UTC.
    epoch = {server: value.replace(tzinfo=datetime.timezone.utc).timestamp()
             for server, value in stored.items() if value is not None}
    assert epoch['a'] == pytest.approx(time.time() - 5, abs=2)
    assert epoch['a'] - epoch['b'] == pytest.approx(5, abs=0.01)
    assert recorder.flush() == 0  # nothing new since


def test_interval_0_records_nothing(db):
    with _interval(0):
        assert poll_times.writer().interval() == 0  # left out of the table
        poll_times.note('a')
        assert poll_times._recorder.times == {}
        assert _writers() == []
        assert poll_times.flush() == 0
    assert _stored(db) == {'a': None, 'b': None, 'c': None}


def test_a_forked_child_starts_its_own_writer(db, worker):
    with _interval(3600):
        work = worker()
        poll_times.note('a')
        parent = poll_times._recorder

        def child_report():
            poll_times.note('b')
            own = poll_times._recorder
            # The same writer, on a thread of the child's own (the
            # parent's did not come along).
            ok = (own is parent and work.running
                  # the parent's note comes along (written again)
                  and set(own.times) == {'a', 'b'}
                  and len(_writers()) == 1
                  and _writers()[0].is_alive())
            return b'ok' if ok else b'no'

        assert forking.in_forked_child(child_report) == b'ok'
        assert poll_times._recorder is parent
        assert len(_writers()) == 1


def test_a_uwsgi_master_leaves_the_start_to_each_worker(monkeypatch):
    """uWSGI forks its workers in C: no ``os.register_at_fork`` hook runs.
    A master that loads the application (no ``lazy-apps``) starts no
    work; each worker starts its own from uWSGI's post-fork hook. A
    worker that loads it (``lazy-apps``) starts at once."""
    started = []
    monkeypatch.setattr(api_background, 'start',
                        lambda: started.append('start'))
    hooks = []
    uwsgi = types.ModuleType('uwsgi')
    uwsgi.worker_id = lambda: 0  # the master
    decorators = types.ModuleType('uwsgidecorators')
    decorators.postfork = hooks.append
    monkeypatch.setitem(sys.modules, 'uwsgi', uwsgi)
    monkeypatch.setitem(sys.modules, 'uwsgidecorators', decorators)
    api_background.start_in_each_worker()
    assert started == [] and len(hooks) == 1
    hooks[0]()  # in a worker, after its fork
    assert started == ['start']
    uwsgi.worker_id = lambda: 2  # a worker loading it itself
    api_background.start_in_each_worker()
    assert started == ['start', 'start'] and len(hooks) == 1
