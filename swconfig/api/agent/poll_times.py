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

A valid metadata poll (``swconfig.api.agent.application``) calls ``note``:
one dict assignment of ``server_id -> time.monotonic()`` in this
process's memory (the metadata cache's clock too, so a repeat poll reads
one clock for both). The worker's poll-time writer (a task of its
background work, ``swconfig.api.background``) writes the times noted
since its last round, in UTC, every ``[api] poll_time_interval`` seconds
through ``db_api.server_poll_times_store`` (one UPDATE per 500 servers, a
time only ever moved forward, as several API workers write). While the
database is unreachable the notes are kept in memory, the newest time of
each server, and written once it answers. What is noted is also written,
best effort, at exit.

The hot path takes no lock: the writer copies the dict (one C call under
the GIL) and remembers what it wrote, instead of swapping or emptying
the dict under a request thread's feet. The dict is one for the
process's life (``noted``), whichever recorder writes it (a forked
worker's included), so a caller may hold it and note polls without
calling ``note``.
"""

import atexit
import datetime
import threading
import time

from oslo_log import log

from swconfig.common import background
from swconfig.conf import CONF
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)
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
#: makes, a forked child's included.
_NOTED: dict[str, float] = {}


class Recorder(background.PeriodicTask):
    """The noted times of one process, written every ``seconds``."""

    name = 'poll-time-writer'

    def __init__(self, seconds: float,
                 times: dict[str, float] | None = None) -> None:
        self.seconds = seconds
        #: server id -> ``CLOCK`` seconds of its last valid poll;
        #: request threads only ever assign to it.
        self.times: dict[str, float] = (
            (times if times is not None else {}) if seconds > 0
            else _Discard())
        #: What the last successful writes stored, per server.
        self.written: dict[str, float] = {}
        self._flushing = threading.Lock()

    def interval(self) -> float:
        return self.seconds

    def run(self, partition: background.Partition) -> None:
        self.write()

    def forked(self) -> None:
        self._flushing = threading.Lock()

    def write(self) -> int:
        """Write the times noted since the last successful write; how
        many servers were written. A failed write raises, and keeps the
        notes for the next one."""
        with self._flushing:
            noted = self.times.copy()  # atomic: request threads go on
            pending = {server_id: noted_at
                       for server_id, noted_at in noted.items()
                       if self.written.get(server_id) != noted_at}
            if pending:
                to_epoch = time.time() - _clock()
                db_api.server_poll_times_store({
                    server_id: _utc(noted_at + to_epoch)
                    for server_id, noted_at in pending.items()})
                self.written.update(pending)
            self._forget(noted)
            return len(pending)

    def flush(self) -> int:
        """``write``, logging a failure instead (0 servers written)."""
        try:
            return self.write()
        except Exception as exc:
            unwritten = sum(self.written.get(server_id) != noted_at
                            for server_id, noted_at in self.times.items())
            LOG.warning('Could not record the last poll time of %d '
                        'servers (kept for the next try in %s s): %s',
                        unwritten, self.seconds, exc)
            return 0

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


class _NoWriter:
    """Before a worker's background work made its writer: notes are
    kept, for the writer to come."""

    times = _NOTED


_recorder: Recorder | _NoWriter = _NoWriter()


def writer() -> Recorder:
    """This process's writer of the configured ``[api]
    poll_time_interval``, which notes go to from now on (when the
    interval is 0, nowhere: its rounds write nothing)."""
    global _recorder
    _recorder = Recorder(CONF.api.poll_time_interval, _NOTED)
    return _recorder


def note(server_id: str) -> None:
    """A valid poll of ``server_id``'s metadata, now. The agents' hot
    path: a clock read and one dict assignment."""
    _recorder.times[server_id] = _clock()


def noted() -> dict[str, float]:
    """Where this process notes polls, for a caller that notes them
    itself (``noted[server_id] = CLOCK()``). A dict that keeps nothing
    when recording is off."""
    return _NOTED if CONF.api.poll_time_interval > 0 else _Discard()


def flush() -> int:
    """Write this process's noted times now (at exit, and for tests)."""
    recorder = _recorder
    if not isinstance(recorder, Recorder):
        return 0
    return recorder.flush()


def reset() -> None:
    """Forget this process's writer and its notes (tests)."""
    global _recorder
    _recorder = _NoWriter()
    _NOTED.clear()


atexit.register(flush)
