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

"""Sharing background work between engines with tooz.

Every engine joins one tooz group. A thread of its own heartbeats every
``[coordination] member_heartbeat_interval`` and reads the live members
about once a second, so neither a busy worker nor a slow Swift call can
make a live engine look dead, and a dead engine's items move within
``member_timeout`` of its last heartbeat (tooz is told to expire a
member one look-interval earlier, so noticing the expiry fits in too).

Each item of background work (a signal container, a Zaqar queue, a
server's document, a deployment's timeout) belongs to exactly one live
member: the one whose hash with the item's key is highest (rendezvous
hashing). Every engine computes it alike from the same member list, and
only the items of a member that joins or leaves move.

Without ``[coordination] backend_url`` the engine owns everything.

When the backend cannot be reached the engine first keeps the member
list it last saw and goes on with its share, for ``member_timeout``:
a short outage moves nothing. Past that, the others may have expired it
and taken its items, and it can no longer tell whether one of them died
meanwhile, so it does *all* the background work itself until the
backend answers again (an engine that has never reached the backend
does so from the start). Doing an item twice is harmless, because the
database applies each signal once and every write is conditional;
leaving a dead engine's items to nobody for the whole outage is not.
Each outage is logged when it starts, when the engine takes everything
over and when it ends, never per call. Once the backend answers, the
engine joins the group again if its membership expired meanwhile.
"""

import hashlib
import math
import os
import socket
import threading
import time
from typing import NamedTuple

from oslo_log import log
from tooz import coordination as tooz_coordination

from swconfig.conf import CONF

LOG = log.getLogger(__name__)

#: Longest gap, in seconds, between two reads of the member list.
LOOK_INTERVAL = 1.0
#: Seconds start() waits for the first read of the group, so the first
#: round of background work already sees the other engines.
START_WAIT = 2.0
#: Seconds stop() waits for the heartbeat thread to leave the group.
STOP_WAIT = 5.0


class Timings(NamedTuple):
    """The seconds the heartbeat thread works with."""
    heartbeat: float  # between two heartbeats
    look: float  # between two reads of the member list
    expiry: float  # a member's heartbeat lives this long in tooz
    outage: float  # this long without an answer is an outage


def timings() -> Timings:
    """The timings the options ask for; heartbeats fall on every n-th
    look, so their spacing is exact."""
    timeout = CONF.coordination.member_timeout
    heartbeat = (CONF.coordination.member_heartbeat_interval
                 or timeout / 5)
    if heartbeat > timeout / 3:
        LOG.warning('[coordination] member_heartbeat_interval %.1f s is '
                    'too close to member_timeout %d s for a busy engine to '
                    'stay alive; using %.1f s', heartbeat, timeout,
                    timeout / 3)
        heartbeat = timeout / 3
    look = heartbeat / math.ceil(heartbeat / LOOK_INTERVAL)
    return Timings(heartbeat=heartbeat, look=look, expiry=timeout - look,
                   outage=2 * heartbeat)


def owner(key: str, members: list[str] | tuple[str, ...]) -> str:
    """The member owning ``key``: highest hash of (member, key)."""
    return max(members, key=lambda member: hashlib.sha256(
        f'{member}\n{key}'.encode()).digest())


class Coordinator:
    """This engine's membership and its view of the live engines."""

    def __init__(self, member_id: str, group: str | None = None) -> None:
        self.member_id = member_id
        self.group = group or CONF.coordination.group
        self._alone = (member_id,)
        self._lock = threading.Lock()
        # What the backend last said, and when (monotonic).
        self._view: tuple[str, ...] = self._alone
        self._last_answer: float | None = None
        self._timings: Timings | None = None
        self._outage_since: float | None = None
        self._took_everything = False
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle ----------------------------------------------------------

    def start(self) -> None:
        """Join the group and start heartbeating; a no-op without a
        backend. Never raises: an unreachable backend is retried."""
        url = CONF.coordination.backend_url
        if not url or self._thread is not None:
            return
        settings = timings()
        with self._lock:
            self._timings = settings
            self._view = self._alone
            self._last_answer = None
            self._outage_since = time.monotonic()  # until the first answer
            self._took_everything = False
        self._stop = threading.Event()
        answered = threading.Event()
        self._thread = threading.Thread(
            target=self._heartbeats,
            args=(url, settings, self._stop, answered),
            name='coordination-heartbeat', daemon=True)
        self._thread.start()
        if not answered.wait(START_WAIT):
            with self._lock:
                self._took_everything = True
            LOG.warning('Coordination backend not reachable yet: engine %s '
                        'does all background work until it is', self.member_id)

    def stop(self) -> None:
        """Leave the group, so the others take this engine's items over
        at once."""
        thread, stop = self._thread, self._stop
        if thread is None or stop is None:
            return
        stop.set()
        thread.join(STOP_WAIT)
        if thread.is_alive():
            LOG.warning('Could not leave coordination group %s within %.0f '
                        's: the other engines take over after '
                        'member_timeout', self.group, STOP_WAIT)
        self._thread = self._stop = None
        with self._lock:
            self._timings = None
            self._view = self._alone

    # -- queries -------------------------------------------------------------

    @property
    def members(self) -> list[str]:
        """The engines sharing the work, as far as this one knows."""
        return list(self._current())

    def owns(self, key: str) -> bool:
        """Whether this engine is the owner of ``key`` among the live
        members."""
        members = self._current()
        if len(members) == 1:
            return members[0] == self.member_id
        return owner(key, members) == self.member_id

    def _current(self) -> tuple[str, ...]:
        """The members to share with: the last answer while it is recent
        enough, else this engine alone (see the module docstring)."""
        with self._lock:
            settings = self._timings
            if settings is None:
                return self._alone
            now = time.monotonic()
            if self._last_answer is None:
                return self._alone
            silent = now - self._last_answer
            if silent <= settings.outage:
                return self._view
            if self._outage_since is None:
                self._outage_since = self._last_answer
                LOG.warning('Coordination backend silent for %.0f s: engine '
                            '%s keeps its share among %s for up to %d s',
                            silent, self.member_id, ', '.join(self._view),
                            CONF.coordination.member_timeout)
            if silent <= CONF.coordination.member_timeout:
                return self._view
            if not self._took_everything:
                self._took_everything = True
                LOG.warning('Coordination backend silent for %.0f s: engine '
                            '%s does all background work until it answers '
                            'again', silent, self.member_id)
            return self._alone

    # -- heartbeat thread ----------------------------------------------------

    def _heartbeats(self, url: str, settings: Timings,
                    stop: threading.Event,
                    answered: threading.Event) -> None:
        client = self._client(url, settings)
        beat_every = round(settings.heartbeat / settings.look)
        looks = 0
        while True:
            try:
                if not client.is_started:
                    client.start()
                if looks % beat_every == 0:
                    client.heartbeat()
                members = self._read_members(client)
            except Exception as exc:
                members, error = None, exc
            if stop.is_set():
                break  # stop() may have started a successor already
            if members is None:
                self._failed(error)
            else:
                self._answered(members)
                answered.set()
            looks += 1
            if stop.wait(settings.look):
                break
        self._leave(client)

    def _client(self, url: str,
                settings: Timings) -> tooz_coordination.CoordinationDriver:
        options: dict[str, str] = {
            'membership_timeout': f'{settings.expiry:.3f}'}
        if url.startswith(('redis:', 'rediss:')):
            # A hung call must fail well before the heartbeat is due; an
            # option in the URL wins.
            for name in ('socket_timeout', 'socket_connect_timeout'):
                if f'{name}=' not in url:
                    options[name] = str(max(1.0, settings.heartbeat))
        return tooz_coordination.get_coordinator(
            url, self.member_id.encode(), **options)

    def _read_members(
            self,
            client: tooz_coordination.CoordinationDriver) -> tuple[str, ...]:
        """The live members, joining (again) if this engine is not among
        them (first look, or its membership expired in an outage)."""
        group = self.group.encode()
        try:
            found = client.get_members(group).get()
        except tooz_coordination.GroupNotCreated:
            found = set()
        names = {member.decode() for member in found}
        if self.member_id not in names:
            try:
                client.create_group(group).get()
            except tooz_coordination.GroupAlreadyExist:
                pass
            try:
                client.join_group(group).get()
            except tooz_coordination.MemberAlreadyExist:
                pass
            names.add(self.member_id)
        return tuple(sorted(names))

    def _failed(self, exc: Exception) -> None:
        with self._lock:
            if self._outage_since is not None:
                return
            self._outage_since = time.monotonic()
            view = ', '.join(self._view)
        LOG.warning('Coordination backend unreachable (%s): engine %s '
                    'keeps its share among %s for up to %d s, retrying',
                    exc, self.member_id, view,
                    CONF.coordination.member_timeout)

    def _answered(self, members: tuple[str, ...]) -> None:
        now = time.monotonic()
        with self._lock:
            before, self._view = self._view, members
            first = self._last_answer is None
            self._last_answer = now
            outage, self._outage_since = self._outage_since, None
            took_everything, self._took_everything = (
                self._took_everything, False)
        if outage is not None and (took_everything or not first):
            LOG.info('Coordination backend answers again after %.0f s',
                     now - outage)
        if first or members != before:
            joined = sorted(set(members) - set(before) - {self.member_id})
            left = sorted(set(before) - set(members))
            LOG.info('Engines sharing background work in group %s: %d (%s)'
                     '%s%s', self.group, len(members), ', '.join(members),
                     f'; joined: {", ".join(joined)}' if joined else '',
                     f'; left: {", ".join(left)}' if left else '')

    def _leave(self, client: tooz_coordination.CoordinationDriver) -> None:
        if not client.is_started:
            return
        try:
            client.leave_group(self.group.encode()).get()
        except Exception as exc:
            LOG.info('Could not leave coordination group %s cleanly (%s): '
                     'the others take over after member_timeout',
                     self.group, exc)
        try:
            client.stop()  # also deletes this member's heartbeat
        except Exception:
            LOG.debug('tooz client did not stop cleanly', exc_info=True)


_COORDINATOR: Coordinator | None = None
_CREATE = threading.Lock()


def get() -> Coordinator:
    """This process's coordinator (member id: engine host and pid; a
    forked worker gets one of its own)."""
    global _COORDINATOR
    with _CREATE:
        pid = os.getpid()
        if _COORDINATOR is None or not _COORDINATOR.member_id.endswith(
                f'.{pid}'):
            host = CONF.engine.host or socket.gethostname()
            _COORDINATOR = Coordinator(f'{host}.{pid}')
        return _COORDINATOR
