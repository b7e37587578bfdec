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

"""When each server's agent last polled, recorded without a database write
per poll.

A valid metadata poll (``swconfig.api.agent.endpoints``) calls ``note``:
one dict assignment of ``server_id -> time.monotonic()`` in this
process's memory (the metadata cache's clock too, so a repeat poll reads
one clock for both). A daemon thread, started by the first note of each
process, writes the times noted since its last round, in UTC, every
``[api] poll_time_interval`` seconds through
``db_api.server_poll_times_store`` (one UPDATE per 500 servers, a time
only ever moved forward, as several API workers write). A failed write is
logged and retried with the next round; the newest time of each server is
kept in memory meanwhile. What is noted is also written, best effort, at
exit.

A worker forked from a parent that already polled starts a writer of
its own: at once after ``os.fork`` (swconfig-api's and gunicorn's workers),
and within two intervals under uWSGI, which forks without Python's fork
hooks: a note compares the pid (a system call, a few times the cost of
the rest of a note) only once the writer has missed its rounds.

The hot path takes no lock: the writer thread copies the dict (one C call
under the GIL) and remembers what it wrote, instead of swapping or
emptying the dict under a request thread's feet. The dict is one for the
process's life (``noted``), whichever recorder writes it, so a caller may
hold it and note polls without calling ``note``.
"""

import atexit
import datetime
import os
import threading
import time

from oslo_log import log

from swconfig.conf import CONF
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)
# Bound once: the hot path looks up no module attribute.
_getpid = os.getpid
#: The clock of the notes: monotonic, the metadata cache's (a repeat
#: poll reads it once for the cache's freshness and its note).
CLOCK = time.monotonic
_clock = CLOCK

#: A server that has not polled for this long is forgotten by the writer
#: (its last time is in the database by then).
FORGET_AFTER = 3600.0


class _Discard(dict):
    """Where notes go when recording is off (interval 0)."""

    def __setitem__(self, key: str, value: float) -> None:
        pass


#: This process's notes (``Recorder.times``), kept by every recorder it
#: starts, a forked child's included.
_NOTED: dict[str, float] = {}


class Recorder:
    """The noted times of one process and the thread that writes them."""

    def __init__(self, interval: float,
                 times: dict[str, float] | None = None) -> None:
        self.pid = os.getpid()
        self.interval = interval
        #: server id -> ``CLOCK`` seconds of its last valid poll;
        #: request threads only ever assign to it.
        self.times: dict[str, float] = (
            (times if times is not None else {}) if interval > 0
            else _Discard())
        #: What the last successful writes stored, per server.
        self.written: dict[str, float] = {}
        self._flushing = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: Until then a note trusts this is still the recorder of its
        #: process; the writer moves it on every round. Past it (a
        #: forked child whose parent's writer did not come along, or a
        #: writer stuck on the database) a note compares the pid: a
        #: system call, so not on every poll.
        self.check_after = (_clock() + self.grace() if interval > 0
                            else float('inf'))

    def grace(self) -> float:
        return 2 * self.interval + 1

    def start(self) -> None:
        if self.interval <= 0:
            return
        self._thread = threading.Thread(target=self._run,
                                        name='poll-time-writer', daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the writer thread (after its current round)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.check_after = _clock() + self.grace()
            self.flush()

    def flush(self) -> int:
        """Write the times noted since the last successful write; how
        many servers were written (0 when the write failed: the notes
        are kept for the next round). Never raises."""
        with self._flushing:
            noted = self.times.copy()  # atomic: request threads go on
            pending = {server_id: noted_at
                       for server_id, noted_at in noted.items()
                       if self.written.get(server_id) != noted_at}
            if pending:
                to_epoch = time.time() - _clock()
                try:
                    db_api.server_poll_times_store({
                        server_id: _utc(noted_at + to_epoch)
                        for server_id, noted_at in pending.items()})
                except Exception as exc:
                    LOG.warning('Could not record the last poll time of '
                                '%d servers (kept for the next try in %s '
                                's): %s', len(pending), self.interval, exc)
                    return 0
                self.written.update(pending)
            self._forget(noted)
            return len(pending)

    def _forget(self, noted: dict[str, float]) -> None:
        """Drop servers that stopped polling long ago, so deleted servers
        do not stay in memory. A poll racing with this is written with
        that server's next poll."""
        horizon = _clock() - FORGET_AFTER
        for server_id, noted_at in noted.items():
            if noted_at < horizon and self.written.get(server_id) == noted_at:
                if self.times.get(server_id) == noted_at:
                    self.times.pop(server_id, None)
                del self.written[server_id]


def _utc(epoch: float) -> datetime.datetime:
    """Naive UTC, as every timestamp column holds."""
    return datetime.datetime.fromtimestamp(
        epoch, datetime.timezone.utc).replace(tzinfo=None)


class _NotStarted:
    """No recorder in any process yet: the first note's pid check
    starts one."""

    pid = -1
    check_after = float('-inf')


_recorder: Recorder | _NotStarted = _NotStarted()
_start_lock = threading.Lock()


def note(server_id: str) -> None:
    """A valid poll of ``server_id``'s metadata, now. The agents' hot
    path: a clock read, a comparison and one dict assignment."""
    recorder = _recorder
    now = _clock()
    if now > recorder.check_after and recorder.pid != _getpid():
        recorder = _start()
    recorder.times[server_id] = now


def _start() -> Recorder:
    """This process's recorder, started on its first note (and again in
    a forked child, whose parent's thread did not come along: the notes
    the child made meanwhile are taken over, its parent's too, which
    only writes those again)."""
    global _recorder
    with _start_lock:
        recorder = _recorder
        if not isinstance(recorder, Recorder) or recorder.pid != _getpid():
            recorder = Recorder(CONF.api.poll_time_interval, _NOTED)
            recorder.start()
            _recorder = recorder
        return recorder


def noted() -> dict[str, float]:
    """Where this process notes polls, for a caller that notes them
    itself (``noted[server_id] = CLOCK()``) after the first poll of
    each server went through ``note``, which starts the writer (and a
    forked child's, the first poll after a fork). A dict that keeps
    nothing when recording is off."""
    return _NOTED if CONF.api.poll_time_interval > 0 else _Discard()


def flush() -> int:
    """Write this process's noted times now (at exit, and for tests)."""
    recorder = _recorder
    if not isinstance(recorder, Recorder) or recorder.pid != _getpid():
        return 0
    return recorder.flush()


def reset() -> None:
    """Stop this process's writer and forget its notes; the next note
    starts afresh with the current configuration (tests)."""
    global _recorder
    with _start_lock:
        recorder = _recorder
        if isinstance(recorder, Recorder) and recorder.pid == _getpid():
            recorder.stop()
        _recorder = _NotStarted()
        _NOTED.clear()


def _after_fork() -> None:
    """In a child forked by ``os.fork`` (uWSGI forks without running
    this: there the recorder's ``check_after`` passes): its next note
    starts its own writer. A child forked while another thread held the
    start lock would otherwise wait for it forever."""
    global _start_lock
    _start_lock = threading.Lock()
    _recorder.check_after = float('-inf')


os.register_at_fork(after_in_child=_after_fork)
atexit.register(flush)
