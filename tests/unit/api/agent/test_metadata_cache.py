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

"""The API workers' metadata cache on a real SQLite file: hits without the
database, the LRU bound, the freshness bound (a controlled clock), changes
seen through the change log (also ids committed out of order), deleted
servers and read-your-writes after ``expire``."""

import datetime
import gc
import logging
import threading

from oslo_utils import timeutils
import pytest
import sqlalchemy as sa

from swconfig.api.agent import metadata_cache
from swconfig.common import background
from swconfig.db import api as db_api
from swconfig.db import models
from swconfig.db import session
from swconfig.engine import metadata
from tests.unit.db import backends
from tests.unit.db import rows

FRESHNESS = 1.0
ADMIN = rows.context_for('p1', roles=('admin',), is_admin=True)
_CHANGE = models.ServerChange.__table__


@pytest.fixture
def db(facade):
    reset = session.context_manager.patch_factory(facade)
    try:
        yield facade.writer.get_engine()
    finally:
        reset()
        backends.empty_tables(facade)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


def _cache(clock, size=100):
    return metadata_cache.MetadataCache(size, FRESHNESS, clock=clock)


def _store(server_id: str, text: str) -> str:
    """Register the server if new and store ``text`` as its document, as
    the renderer does; the new ETag."""
    with db_api.writer.using(ADMIN):
        server = db_api.server_claim(ADMIN, server_id, None)
        etag = metadata.document_etag(text)
        assert db_api.server_document_store(
            ADMIN, server_id, server['document_revision'], text, etag)
    return etag


def _fetch(cache, server_id):
    return cache.get(server_id) or cache.load(server_id)


def test_a_hit_needs_no_database(db, clock, monkeypatch):
    etag = _store('s1', '{"deployments":[1]}')
    cache = _cache(clock)
    entry = _fetch(cache, 's1')
    assert (metadata_cache.etag(entry), metadata_cache.content(entry)) == (
        etag, b'{"deployments":[1]}')
    assert ('Content-Length', str(len(metadata_cache.content(entry)))) in (
        metadata_cache.answer(entry, 'GET')[1])
    assert ('ETag', f'"{etag}"') in metadata_cache.answer(entry, 'GET',
                                                         True)[1]

    def _no_database(*_args, **_kwargs):
        raise AssertionError('the database was read')

    monkeypatch.setattr(db_api, 'agent_server_document', _no_database)
    monkeypatch.setattr(db_api, 'agent_server_changes', _no_database)
    clock.now += FRESHNESS / 2
    assert cache.get('s1') is entry


def test_least_recently_polled_fall_out(db, clock):
    for name in ('a', 'b', 'c', 'd'):
        _store(name, f'"{name}"')
    cache = _cache(clock, size=3)
    assert cache.get('a') is None  # (the first poll reads the change log)
    for name in ('a', 'b', 'c'):
        cache.load(name)
    assert cache.get('a') is not None  # a is now the most recent
    cache.load('d')
    assert len(cache) == 3
    assert cache.get('b') is None
    assert all(cache.get(name) is not None for name in ('a', 'c', 'd'))


def test_a_change_is_served_once_the_bound_passed(db, clock):
    _store('s1', '"old"')
    cache = _cache(clock)
    old = _fetch(cache, 's1')
    new_etag = _store('s1', '"new"')
    # Until the next read is due the held document may still be served...
    due = FRESHNESS * (1 - metadata_cache.READ_AHEAD)
    clock.now += due * 0.9
    assert cache.get('s1') is old
    # ...not once it is, a quarter of the bound early: the change log
    # drops it.
    clock.now += due * 0.1
    assert cache.get('s1') is None
    assert metadata_cache.etag(_fetch(cache, 's1')) == new_etag


def test_a_deleted_server_is_gone_once_the_bound_passed(db, clock):
    _store('s1', '"doc"')
    cache = _cache(clock)
    assert _fetch(cache, 's1') is not None
    db_api.server_delete(ADMIN, 's1')
    clock.now += FRESHNESS
    assert cache.get('s1') is None
    assert cache.load('s1') is None


def test_changes_committed_out_of_id_order_are_seen(db, clock):
    """An id taken by a transaction still open when a later one commits
    is asked for again until it appears."""
    _store('s1', '"one"')
    _store('s2', '"two"')
    cache = _cache(clock)
    first = _fetch(cache, 's1')
    _fetch(cache, 's2')
    with db.begin() as connection:
        top = connection.scalar(sa.select(sa.func.max(_CHANGE.c.id)))
        connection.execute(_CHANGE.insert(), [{
            'id': top + 2, 'server_id': 's2',
            'changed_at': timeutils.utcnow()}])
    clock.now += FRESHNESS
    assert cache.get('s2') is None
    assert cache.get('s1') is first  # id top + 1 is not committed yet
    # The "late" transaction commits id top + 1, and the document with it.
    new_etag = metadata.document_etag('"late"')
    with db.begin() as connection:
        connection.execute(sa.update(models.Server.__table__).where(
            models.Server.id == 's1').values(document='"late"',
                                             etag=new_etag))
        connection.execute(_CHANGE.insert(), [{
            'id': top + 1, 'server_id': 's1',
            'changed_at': timeutils.utcnow()}])
    clock.now += FRESHNESS
    assert cache.get('s1') is None
    assert metadata_cache.etag(_fetch(cache, 's1')) == new_etag


class _WatchedLock:
    """The cache's refresh lock, telling each acquire's ``blocking``."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.blocking: list[bool] = []
        self.waiting = threading.Event()

    def acquire(self, blocking: bool = True) -> bool:
        self.blocking.append(blocking)
        if blocking:
            self.waiting.set()
        return self.lock.acquire(blocking)

    def release(self) -> None:
        self.lock.release()


def _get_in_thread(cache, server_id):
    """``cache.get`` in another thread (the test thread holds the refresh
    lock, as a poll reading the change log would); its thread and
    result."""
    result = []
    thread = threading.Thread(
        target=lambda: result.append(cache.get(server_id)), daemon=True)
    thread.start()
    return thread, result


def test_polls_before_the_bound_do_not_wait_for_a_read(db, clock,
                                                       monkeypatch):
    """Once a read is due, a poll while another reads is answered from
    memory at once: the bound has not passed."""
    _store('s1', '"doc"')
    cache = _cache(clock)
    entry = _fetch(cache, 's1')
    cache._refresh_lock = lock = _WatchedLock()
    reads = []
    changes = db_api.agent_server_changes
    monkeypatch.setattr(db_api, 'agent_server_changes',
                        lambda *a, **k: reads.append(a) or changes(*a, **k))
    clock.now += FRESHNESS * (1 - metadata_cache.READ_AHEAD / 2)
    assert lock.acquire()  # another poll is reading the change log
    thread, result = _get_in_thread(cache, 's1')
    thread.join(timeout=30)
    assert not thread.is_alive(), 'the poll waited for the read'
    assert result == [entry] and lock.blocking == [True, False]
    assert reads == []
    lock.release()
    # With nobody reading, the poll due to read reads, and the bound moves
    # on from when it started.
    assert cache.get('s1') is entry and len(reads) == 1
    assert cache.fresh_until == clock.now + FRESHNESS
    assert cache.read_due_at == clock.now + FRESHNESS * (
        1 - metadata_cache.READ_AHEAD)


def test_a_poll_past_the_bound_waits_for_the_read(db, clock):
    """Past the bound nothing held is served until the change log is
    read: a poll waits for another thread's read, then reads itself."""
    _store('s1', '"old"')
    cache = _cache(clock)
    assert _fetch(cache, 's1') is not None
    cache._refresh_lock = lock = _WatchedLock()
    clock.now += FRESHNESS
    assert lock.acquire()
    thread, result = _get_in_thread(cache, 's1')
    assert lock.waiting.wait(timeout=30), 'the poll did not wait'
    _store('s1', '"new"')  # committed before the poll's read
    lock.release()
    thread.join(timeout=30)
    assert result == [None]  # the change log dropped the old document


def test_a_miss_read_before_a_change_is_not_kept(db, clock, monkeypatch):
    _store('s1', '"old"')
    cache = _cache(clock)
    cache.get('s1')  # starts the change log position
    read = db_api.agent_server_document

    def _read_then_change(server_id, *args):
        row = read(server_id, *args)
        _store('s1', '"new"')
        clock.now += FRESHNESS
        cache.get('other')  # a poll that reads the change log
        return row

    monkeypatch.setattr(db_api, 'agent_server_document', _read_then_change)
    # as read, fresh then
    assert metadata_cache.content(cache.load('s1')) == b'"old"'
    monkeypatch.undo()
    assert cache.get('s1') is None


def test_expire_makes_the_next_poll_read_the_change_log(db, clock):
    _store('s1', '"old"')
    _store('s2', '"other"')
    cache = _cache(clock)
    _fetch(cache, 's1')
    other = _fetch(cache, 's2')
    new_etag = _store('s1', '"new"')
    cache.expire()
    assert cache.get('s1') is None
    assert metadata_cache.etag(_fetch(cache, 's1')) == new_etag
    assert cache.get('s2') is other  # only the changed server is dropped
    # Long after the last read, expire() still reads only the changes.
    clock.now += metadata_cache.RESTART_AFTER / 2
    cache.expire()
    assert cache.get('s2') is other


def test_held_entries_are_not_walked_by_the_garbage_collector(
        db, clock, monkeypatch):
    """A collection stops tracking every entry, verified ones included: a
    full collection never walks the cache (100,000 entries as objects
    stalled each worker 1.5-2.9 s with the GIL held)."""
    monkeypatch.setattr(metadata_cache, 'WARM_BATCH', 2)
    for number in range(5):
        _store(f's{number}', f'{{"deployments":[{number}]}}')
    cache = _cache(clock)
    assert cache.warm() == 5
    held = cache.get('s1')
    cache.verified('s1', held, 'token=t', object())
    entries = list(cache.entries.values())
    assert len(entries) == 5 and metadata_cache.verified_query(
        cache.get('s1')) == 'token=t'
    # A tuple is untracked once what it holds is: a collection may meet
    # an entry before its headers, so each level may take one.
    for _level in range(3):
        gc.collect()
    assert [gc.is_tracked(entry) for entry in entries] == [False] * 5


def test_a_verified_query_is_kept_only_on_the_entry_it_was_verified_for(
        db, clock):
    _store('s1', '"doc"')
    cache = _cache(clock)
    ring = object()
    first = _fetch(cache, 's1')
    assert metadata_cache.verified_query(first) is None
    verified = cache.verified('s1', first, 'token=a', ring)
    unverified = metadata_cache._VERIFIED_QUERY  # the fields before it
    assert verified[:unverified] == first[:unverified]
    assert cache.get('s1') is verified and cache.ring is ring
    # An entry replaced meanwhile (a change read) is left as it is.
    new_etag = _store('s1', '"new"')
    cache.expire()
    replacement = _fetch(cache, 's1')
    assert metadata_cache.etag(replacement) == new_etag
    assert metadata_cache.verified_query(cache.verified(
        's1', verified, 'token=b', ring)) == 'token=b'
    assert cache.get('s1') is replacement
    # Another key ring: what the old one verified is dropped.
    cache.verified('s1', replacement, 'token=c', object())
    assert cache.get('s1') is None


def test_a_document_without_an_etag_sends_no_etag():
    """Before its first document is rendered a server has no ETag: its
    answers carry no ETag header (every header value a string) and no
    If-None-Match can match."""
    entry = metadata_cache.entry_of({
        'etag': None, 'token_revision': 1, 'document': None,
        'updated_at': datetime.datetime(2026, 11, 27, 2, 0, 0)})
    assert metadata_cache.content(entry) == metadata_cache.EMPTY_DOCUMENT
    assert metadata_cache.etag_header(entry) is None
    assert metadata_cache.answer(entry, 'GET', True)[1] is None
    for method in ('GET', 'HEAD'):
        headers = metadata_cache.answer(entry, method)[1]
        names = [name for name, _value in headers]
        assert 'ETag' not in names and 'Last-Modified' in names
        assert all(isinstance(value, str) for _name, value in headers)


def test_size_zero_keeps_nothing(db, clock):
    _store('s1', '"doc"')
    cache = _cache(clock, size=0)
    assert metadata_cache.content(cache.load('s1')) == b'"doc"'
    assert cache.get('s1') is None and len(cache) == 0


def test_old_changes_are_purged(db, clock):
    _store('s1', '"doc"')
    with db.begin() as connection:
        connection.execute(_CHANGE.insert(), [{
            'server_id': 'gone',
            'changed_at': timeutils.utcnow() - datetime.timedelta(
                seconds=metadata_cache.RETENTION + 60)}])
    cache = _cache(clock)
    purge = metadata_cache.ChangeLogPurge(cache)
    assert purge.interval() == metadata_cache.PURGE_INTERVAL
    cache.get('s1')  # a poll purges nothing: its worker's task does
    with db.connect() as connection:
        left = connection.execute(sa.select(_CHANGE.c.server_id)).scalars()
        assert sorted(left) == ['gone', 's1']
    purge.run(background.Everything())
    with db.connect() as connection:
        left = connection.execute(sa.select(_CHANGE.c.server_id)).scalars()
        assert list(left) == ['s1']


def _no_document_reads(monkeypatch):
    def _no_database(*_args, **_kwargs):
        raise AssertionError('a document was read on a poll')

    monkeypatch.setattr(db_api, 'agent_server_document', _no_database)


def test_warming_up_loads_every_server_in_batches(db, clock, monkeypatch):
    """Polls after warming up are hits, batches follow the server ids, and
    the cache stops at its size."""
    monkeypatch.setattr(metadata_cache, 'WARM_BATCH', 3)
    etags = {f's{number:02d}': _store(f's{number:02d}', f'[{number}]')
             for number in range(8)}
    cache = _cache(clock)
    assert cache.warm() == 8
    _no_document_reads(monkeypatch)
    assert {name: metadata_cache.etag(cache.get(name))
            for name in etags} == etags
    assert metadata_cache.content(cache.get('s03')) == b'[3]'

    small = _cache(clock, size=5)
    monkeypatch.undo()
    monkeypatch.setattr(metadata_cache, 'WARM_BATCH', 3)
    assert small.warm() == 5
    assert [cache_name for cache_name in etags
            if small.get(cache_name) is not None] == [
        's00', 's01', 's02', 's03', 's04']


def test_warming_up_keeps_no_batch_read_while_changes_were_read(
        db, clock, monkeypatch):
    """A change read between a batch's read and its storing may be newer
    than the batch's rows: the batch is dropped, and the changed server
    is read on its first poll, with its new document."""
    monkeypatch.setattr(metadata_cache, 'WARM_BATCH', 2)
    for name in ('a', 'b', 'c', 'd'):
        _store(name, f'"{name}-1"')
    cache = _cache(clock)
    real = db_api.agent_server_documents
    batches = []

    def change_during_first_batch(after, limit):
        rows = real(after, limit)
        if not batches:
            _store('a', '"a-2"')  # committed after the batch was read
            clock.now += FRESHNESS
            assert cache.get('zz') is None  # a poll reads the change log
        batches.append([row['id'] for row in rows])
        return rows

    monkeypatch.setattr(db_api, 'agent_server_documents',
                        change_during_first_batch)
    assert cache.warm() == 2
    assert batches == [['a', 'b'], ['c', 'd'], []]
    assert cache.get('a') is None and cache.get('b') is None
    assert metadata_cache.content(cache.get('c')) == b'"c-1"'
    assert metadata_cache.content(_fetch(cache, 'a')) == b'"a-2"'


def test_warming_up_is_a_task_run_once_not_a_poll(db, clock, caplog):
    """Its worker's background work runs it (``swconfig.api.background``):
    a poll starts nothing, and a forked worker's cache reads the change
    log before its next answer."""
    for name in ('a', 'b', 'c'):
        _store(name, f'"{name}"')
    cache = metadata_cache.MetadataCache(100, FRESHNESS, clock=clock,
                                         warm=True)
    assert cache.warms and not _cache(clock).warms  # off unless asked for
    assert not metadata_cache.MetadataCache(0, FRESHNESS, warm=True).warms
    cache.get('a')
    assert len(cache) == 0
    task = metadata_cache.WarmUp(cache)
    assert not task.repeated
    with caplog.at_level(logging.INFO, logger=metadata_cache.__name__):
        task.run(background.Everything())
    assert len(cache) == 3
    assert 'Metadata cache: warmed up with 3 documents' in caplog.text
    assert cache.fresh_until > clock.now
    metadata_cache.ChangeLogPurge(cache).forked()  # as in a forked worker
    assert cache.fresh_until == cache.read_due_at == float('-inf')
    assert len(cache) == 3
