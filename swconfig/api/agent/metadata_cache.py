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

"""The agents' metadata documents, held in memory by each API worker.

Agents poll every 30 s from every server, so the poll is the service's
hottest path; served from memory, it costs no database round trip. Each
entry is the answer ready to send: the document's bytes and the headers
of a 200, a HEAD and a 304, so a hit allocates next to nothing; entries
are plain tuples, which the garbage collector does not walk.

Freshness: every write of a server's document, token revision or
existence logs a row in ``server_change`` in its own transaction. About
once per ``[api] metadata_cache_freshness`` seconds while agents poll, a
worker reads the changes logged since the highest id it saw and drops
those servers. A poll is served from memory only while the last
such read *started* less than the interval ago, so a change committed
before a poll started, minus the interval, is always seen: a document is
never more than the interval stale, whichever worker or engine wrote it.
The read falls due a quarter of the interval early (``READ_AHEAD``): one
poll reads the log while the others are still served from memory, so no
request thread waits for the database unless a read takes longer than
that quarter.

Transactions commit out of id order (an id is taken at INSERT, visible at
COMMIT), so the ids missing below the highest one seen are asked for
again on every read until they appear or ``MISSING_LIFETIME`` passes (a
rolled-back transaction leaves a gap for good).

Memory: a least-recently-polled list of ``[api] metadata_cache_size``
entries; servers that stop polling fall out. Each entry costs about its
document's size plus 1 KB. An entry's layout is this module's own: the
other modules read it with the named accessors (``etag``, ``content``,
...) and ``repeat_answer``.

Two tasks of the worker's background work (``swconfig.api.background``)
look after the cache: ``ChangeLogPurge`` deletes the changes older than
``RETENTION`` every ``PURGE_INTERVAL`` seconds, and ``WarmUp`` (``[api]
metadata_cache_warm``) loads documents when the worker starts,
``WARM_BATCH`` servers per query, until the cache is full or every
server is held; a batch read while changes were being read is dropped
(its rows may predate them). A restarted worker then serves its polls
from memory within seconds instead of reading each server once.
"""

import calendar
import collections
from collections.abc import Callable
import datetime
from email import utils as email_utils
import operator
import threading
import time
from typing import Any

from oslo_log import log
from oslo_utils import timeutils

from swconfig.api import response_body
from swconfig.common import background
from swconfig.common import sealed_document
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)

EMPTY_DOCUMENT = b'{"deployments":[]}'
#: How long an id missing below the highest seen is asked for again: far
#: longer than any transaction that logs a change stays open.
MISSING_LIFETIME = 300.0
#: At most this many missing ids are tracked (the oldest are given up).
MAX_MISSING = 5000
#: A worker starts with the gaps among this many latest changes.
START_WINDOW = 1000
#: Logged changes are kept this long, and purged every PURGE_INTERVAL
#: seconds by each API worker...
RETENTION = 3600.0
PURGE_INTERVAL = 600.0
#: ...so a worker that read none for this long starts again, empty.
RESTART_AFTER = RETENTION / 2
#: Servers read per query while warming up.
WARM_BATCH = 500
#: The share of ``freshness`` before its end that the next read of the
#: change log falls due, while held entries are still served.
READ_AHEAD = 0.25


def http_date(value: Any) -> str:
    """RFC 1123, as os-collect-config requires (it crashes on others)."""
    return email_utils.formatdate(calendar.timegm(value.timetuple()),
                                  usegmt=True)


#: The fields of an entry, one server's answers ready to send. An entry
#: is a plain tuple of strings, bytes, numbers and tuples of them, which
#: the garbage collector stops tracking: an object per entry (as a class
#: instance, its header lists and body were a dozen) had every full
#: collection walk the whole cache with the GIL held, 1.5-2.9 s per worker
#: at 100,000 servers, stalling every poll of the worker meanwhile
#: (``benchmarks.run --phases polls --servers 100000``).
(_ETAG, _ETAG_HEADER, _TOKEN_REVISION, _TENANT, _CONTENT, _GET_HEADERS,
 _HEAD_HEADERS, _NOT_MODIFIED_HEADERS, _VERIFIED_QUERY) = range(9)
#: An entry; see the field numbers above.
Entry = tuple
OK = '200 OK'
NOT_MODIFIED = '304 Not Modified'

#: An entry's fields as the other modules read them (each a C call):
#: the document's ETag, its header value (quoted), the token revision,
#: the owning project, the document's bytes, and the query string whose
#: token was verified for the entry (None: not verified).
etag = operator.itemgetter(_ETAG)
etag_header = operator.itemgetter(_ETAG_HEADER)
token_revision = operator.itemgetter(_TOKEN_REVISION)
tenant = operator.itemgetter(_TENANT)
content = operator.itemgetter(_CONTENT)
verified_query = operator.itemgetter(_VERIFIED_QUERY)


def entry_of(row: dict) -> Entry:
    """The entry of a server's row: its ETag (and its header, quoted;
    None without an ETag, as before the first document is rendered, when
    no ETag header is sent), token revision, owner, document bytes, the
    headers of a 200 GET, a 200 HEAD and a 304 (None without an ETag),
    and the query string whose token was verified (None yet: see
    ``MetadataCache.verified``). Headers are extended, never changed."""
    etag = row['etag']
    etag_header = f'"{etag}"' if etag else None
    text = row['document'] or ''
    if sealed_document.is_sealed(text):
        text = sealed_document.opened(text)
    content = text.encode() or EMPTY_DOCUMENT
    validators = ((('ETag', etag_header),) if etag else ()) + (
        ('Last-Modified', http_date(row['updated_at'])),
        ('Cache-Control', 'no-cache'))
    return (etag, etag_header, row['token_revision'], row.get('tenant'),
            content,
            (('Content-Type', 'application/json'), *validators,
             ('Content-Length', str(len(content)))),
            (('Content-Type', 'application/json'), ('Content-Length', '0'),
             *validators),
            (('Content-Length', '0'), *validators) if etag else None,
            None)


def answer(entry: Entry, method: str, not_modified: bool = False) -> tuple:
    """(status, headers, body) of a GET or a HEAD of ``entry``, or of its
    304 when ``not_modified`` (the entry has an ETag the request matched):
    what ``AgentApp`` and ``repeat_polls`` send, headers extended, never
    changed. A GET's body is made per answer: a ``Body`` (a tuple
    subclass) held by the entry would keep it tracked."""
    if not_modified:
        return NOT_MODIFIED, entry[_NOT_MODIFIED_HEADERS], response_body.EMPTY
    if method == 'GET':
        return OK, entry[_GET_HEADERS], response_body.Body((entry[_CONTENT],))
    return OK, entry[_HEAD_HEADERS], response_body.EMPTY


def repeat_answer(entry: Entry, query: str | None, method: str,
                  if_none_match: str | None) -> tuple | None:
    """``answer`` of a repeat poll that needs no more checks: the query
    string is the one whose token was verified for ``entry``, the method
    a GET or a HEAD, and an ``If-None-Match`` absent or exactly the
    entry's ETag. None otherwise: a listed or weak ETag, an unverified
    entry (for which no query is equal), any other request."""
    verified = entry[_VERIFIED_QUERY]
    if verified is None or verified != query or not (
            method == 'GET' or method == 'HEAD'):
        return None
    if not if_none_match:
        if method == 'GET':
            return OK, entry[_GET_HEADERS], response_body.Body(
                (entry[_CONTENT],))
        return OK, entry[_HEAD_HEADERS], response_body.EMPTY
    if if_none_match == entry[_ETAG_HEADER]:  # None without an ETag
        return NOT_MODIFIED, entry[_NOT_MODIFIED_HEADERS], response_body.EMPTY
    return None


class MetadataCache:
    """Documents by server id, at most ``freshness`` seconds stale."""

    def __init__(self, size: int, freshness: float,
                 clock: Callable[[], float] = time.monotonic,
                 warm: bool = False) -> None:
        self.size = size
        self.freshness = freshness
        self.clock = clock
        #: Until when, on ``clock``, held entries are served without
        #: reading the change log: ``freshness`` after the last read
        #: started; -inf at first, after ``expire`` and in a forked child.
        self.fresh_until = float('-inf')
        #: From when, on ``clock``, a poll reads the change log: a quarter
        #: of ``freshness`` before ``fresh_until``, so one poll reads it
        #: while the others are still answered from memory. Derivable,
        #: but kept: the repeat-poll path compares it as it stands.
        self.read_due_at = float('-inf')
        #: Whether the worker loads documents when it starts (``WarmUp``).
        self.warms = warm and size > 0
        #: The entries held, least recently polled first. Outside this
        #: class (``repeat_polls``, after checking ``fresh_until``) only
        #: read with ``get`` and ``move_to_end``.
        self.entries: collections.OrderedDict[str, Entry] = (
            collections.OrderedDict())
        self._lock = threading.Lock()  # the entries and the generation
        self._refresh_lock = threading.Lock()
        # When the last read of the change log started (monotonic).
        self._checked_at = float('-inf')
        self._position: int | None = None  # the highest change id seen
        self._missing: dict[int, float] = {}  # id -> when first missed
        # Bumped whenever changes were read: a miss read before a change
        # was seen must not be stored after it.
        self._generation = 0
        #: The key ring that verified the held entries' queries (None
        #: before the first): a poll verifies its token again under
        #: another.
        self.ring: Any = None
        # expire() calls: a read of the log that an expire() overtook
        # leaves ``fresh_until`` as it is.
        self._expirations = 0

    def forked(self) -> None:
        """In a forked child: locks of its own (a thread of the parent
        may have held one), and the change log read before its next
        answer."""
        self._lock = threading.Lock()
        self._refresh_lock = threading.Lock()
        self.fresh_until = self.read_due_at = float('-inf')

    def verified(self, server_id: str, entry: Entry, query: str,
                 ring: Any) -> Entry:
        """``entry`` with ``query``, whose token ``ring`` verified for it,
        kept in its place unless it was dropped or replaced meanwhile (a
        replacement is verified afresh). An entry is immutable, so the
        held one is replaced. Another key ring than ``ring`` (the one
        loaded by a test) drops every entry first: the queries they hold
        were verified with that one."""
        verified = entry[:_VERIFIED_QUERY] + (query,)
        with self._lock:
            if ring is not self.ring:
                if self.ring is not None:
                    self.entries.clear()
                    self._generation += 1
                self.ring = ring
            if self.entries.get(server_id) is entry:
                self.entries[server_id] = verified
        return verified

    def expire(self) -> None:
        """Make the next poll read the change log first: called after a
        request whose changes the engine committed before answering, so
        this worker serves them to the next poll (read your writes)."""
        with self._lock:
            self._expirations += 1
            self.fresh_until = self.read_due_at = float('-inf')

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, server_id: str) -> Entry | None:
        """The server's entry if held; first reads the change log once
        that is due (``read_due_at``). Only a poll past the freshness
        bound waits for a read another thread is making, or fails with a
        database error (nothing stale is served instead); before it, the
        held entry is served."""
        if not self.size:
            return None
        now = self.clock()
        if now >= self.read_due_at:
            self._refresh(wait=now >= self.fresh_until)
        # Without the lock: each OrderedDict call is atomic (C, str keys),
        # and an entry dropped between the two is simply not moved.
        held = self.entries.get(server_id)
        if held is not None:
            try:
                self.entries.move_to_end(server_id)
            except KeyError:
                pass
        return held

    def load(self, server_id: str) -> Entry | None:
        """Read the server's document from the database (None if there is
        no such server) and keep it, unless a change was read meanwhile
        (the row read may predate it)."""
        generation = self._generation
        row = db_api.agent_server_document(server_id)
        if row is None:
            return None
        loaded = entry_of(row)
        if self.size:
            with self._lock:
                if generation == self._generation:
                    self.entries[server_id] = loaded
                    self.entries.move_to_end(server_id)
                    while len(self.entries) > self.size:
                        self.entries.popitem(last=False)
        return loaded

    def warm(self) -> int:
        """Load documents, ``WARM_BATCH`` servers per query in server id
        order, until the cache is full or every server is held; a poll's
        newer entry is kept. How many entries are held afterwards."""
        self._refresh()  # where the change log starts, before any read
        after = None
        while len(self.entries) < self.size:
            generation = self._generation
            rows = db_api.agent_server_documents(after, WARM_BATCH)
            if not rows:
                break
            after = rows[-1]['id']
            entries = [(row['id'], entry_of(row)) for row in rows]
            with self._lock:
                if generation != self._generation:
                    continue  # changes were read meanwhile: rows may be older
                for server_id, warmed in entries:
                    if len(self.entries) >= self.size:
                        break
                    self.entries.setdefault(server_id, warmed)
        return len(self.entries)

    def _refresh(self, wait: bool = True) -> None:
        """Read the change log, unless another thread is reading it and
        ``wait`` is false, or read it while this one waited for it."""
        if not self._refresh_lock.acquire(blocking=wait):
            return  # another thread is reading; held entries are fresh
        try:
            self._read_if_due()
        finally:
            self._refresh_lock.release()

    def _read_if_due(self) -> None:
        started = self.clock()
        expirations = self._expirations
        if started < self.read_due_at:
            return  # another thread read it while this one waited
        if (self._position is not None
                and started - self._checked_at > RESTART_AFTER):
            LOG.info('Metadata cache: no poll for %d s, starting again '
                     'empty', started - self._checked_at)
            self._position = None
        if self._position is None:
            self._start(started)
        else:
            self._read_changes(started)
        self._checked_at = started
        with self._lock:
            # An expire() meanwhile may be for a commit this read
            # missed: the next answer reads the log again.
            if expirations == self._expirations:
                self.fresh_until = started + self.freshness
                self.read_due_at = (started
                                    + self.freshness * (1 - READ_AHEAD))

    def _start(self, now: float) -> None:
        """Start from the latest changes: nothing held can be stale, and
        the gaps among them may be transactions still open."""
        rows = db_api.agent_server_changes(None, latest=START_WINDOW)
        with self._lock:
            self.entries.clear()
            self._generation += 1
        ids = {change_id for change_id, _server in rows}
        self._missing = {}
        if rows:
            self._note_missing(rows[0][0], rows[-1][0], ids, now)
        self._position = rows[-1][0] if rows else 0

    def _read_changes(self, now: float) -> None:
        for change_id, since in list(self._missing.items()):
            if now - since > MISSING_LIFETIME:
                del self._missing[change_id]
        rows = db_api.agent_server_changes(self._position,
                                           sorted(self._missing))
        if not rows:
            return
        ids = {change_id for change_id, _server in rows}
        for change_id in ids:
            self._missing.pop(change_id, None)
        top = max(ids)
        if top > self._position:
            self._note_missing(self._position, top, ids, now)
            self._position = top
        with self._lock:
            for _change_id, server_id in rows:
                self.entries.pop(server_id, None)
            self._generation += 1

    def _note_missing(self, low: int, high: int, seen: set[int],
                      now: float) -> None:
        """Remember the ids strictly between ``low`` and ``high`` that
        ``seen`` lacks."""
        for change_id in range(low + 1, high):
            if change_id not in seen:
                self._missing.setdefault(change_id, now)
        if len(self._missing) > MAX_MISSING:
            oldest = sorted(self._missing, key=self._missing.get)
            dropped = oldest[:len(self._missing) - MAX_MISSING]
            LOG.warning('Metadata cache: %d change ids missing; no longer '
                        'waiting for the %d oldest', len(self._missing),
                        len(dropped))
            for change_id in dropped:
                del self._missing[change_id]


class ChangeLogPurge(background.PeriodicTask):
    """Deletes the changes logged more than ``RETENTION`` ago, every
    ``PURGE_INTERVAL`` seconds (every worker whose ``cache`` reads the
    log does; a purge another worker did first deletes nothing)."""

    name = 'server-change-purge'

    def __init__(self, cache: MetadataCache) -> None:
        self.cache = cache

    def interval(self) -> float:
        return PURGE_INTERVAL

    def run(self, partition: background.Partition) -> None:
        before = timeutils.utcnow() - datetime.timedelta(
            seconds=RETENTION)
        purged = db_api.agent_server_changes_purge(before)
        if purged:
            LOG.debug('Metadata cache: purged %d old server changes',
                      purged)

    def forked(self) -> None:
        self.cache.forked()


class WarmUp(background.PeriodicTask):
    """Loads documents into ``cache`` once, when the worker starts (a
    forked worker again, into its own); retried while the database is
    unreachable, polls meanwhile load what they need."""

    name = 'metadata-cache-warm-up'
    repeated = False
    #: Seconds before another try after a failure that is not an outage.
    RETRY = 30.0

    def __init__(self, cache: MetadataCache) -> None:
        self.cache = cache

    def interval(self) -> float:
        return self.RETRY

    def run(self, partition: background.Partition) -> None:
        started = time.monotonic()
        held = self.cache.warm()
        LOG.info('Metadata cache: warmed up with %d documents in %.1f s',
                 held, time.monotonic() - started)
