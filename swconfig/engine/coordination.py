"""Sharing background work between engines with tooz.

Every engine joins one tooz group and heartbeats on a thread of its own,
so a busy or backing-off worker never makes it look dead. Each item of
background work (a signal container, a Zaqar queue, a server's document,
a deployment's timeout) belongs to exactly one live member: the one
whose hash with the item's key is highest (rendezvous hashing), which
every engine computes alike from the same member list and which moves
only the items of a member that joins or leaves.

Without ``[coordination] backend_url`` the engine owns everything.

When the backend is unreachable the engine keeps the member list it last
saw and goes on with its share (logged once per outage): the database
still applies each signal once, so the worst case is two engines doing
the same poll for a while, never a signal applied twice or an item left
without an owner. Once the backend answers again the engine joins the
group again if its membership expired meanwhile.
"""

import hashlib
import os
import socket
import threading
import time

from oslo_log import log
from tooz import coordination as tooz_coordination

from swconfig.conf import CONF

LOG = log.getLogger(__name__)


class Coordinator:
    """This engine's membership and its view of the live engines."""

    def __init__(self, member_id: str, group: str | None = None) -> None:
        self.member_id = member_id
        self.group = (group or CONF.coordination.group).encode()
        self._members: list[str] = [member_id]
        self._lock = threading.Lock()
        self._changed = False
        self._client = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._outage_since: float | None = None

    # -- life cycle ---------------------------------------------------------

    def start(self) -> None:
        """Join the group and start heartbeating; a no-op without a
        backend. Never raises: an unreachable backend is retried."""
        url = CONF.coordination.backend_url
        if not url or self._thread is not None:
            return
        timeout = CONF.coordination.member_timeout
        separator = '&' if '?' in url else '?'
        self._client = tooz_coordination.get_coordinator(
            f'{url}{separator}membership_timeout={timeout}',
            self.member_id.encode())
        self._stop.clear()
        self._beat()
        self._thread = threading.Thread(target=self._heartbeats,
                                        name='coordination-heartbeat',
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Leave the group, so the others take this engine's items over
        at once."""
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join(10)
        self._thread = None
        try:
            self._client.leave_group(self.group).get()
        except Exception as exc:
            LOG.info('Could not leave coordination group %s cleanly (%s): '
                     'the others take over after member_timeout',
                     self.group.decode(), exc)
        try:
            self._client.stop()
        except Exception:
            LOG.debug('tooz client did not stop cleanly', exc_info=True)
        self._client = None
        with self._lock:
            self._members = [self.member_id]

    # -- queries --------------------------------------------------------------

    @property
    def members(self) -> list[str]:
        with self._lock:
            return list(self._members)

    def refresh(self) -> bool:
        """Whether the live members changed since the last call (the
        heartbeat thread keeps the list up to date)."""
        with self._lock:
            changed, self._changed = self._changed, False
        return changed

    def owns(self, key: str) -> bool:
        """Whether this engine is the owner of ``key`` among the live
        members."""
        with self._lock:
            members = self._members
        if len(members) == 1:
            return members[0] == self.member_id
        return owner(key, members) == self.member_id

    # -- heartbeat thread -----------------------------------------------------

    def _heartbeats(self) -> None:
        interval = (CONF.coordination.heartbeat_interval
                    or CONF.coordination.member_timeout / 5)
        while not self._stop.wait(interval):
            self._beat()

    def _beat(self) -> None:
        try:
            if not self._client.is_started:
                self._client.start()
            self._client.heartbeat()
            members = self._live_members()
        except Exception as exc:
            if self._outage_since is None:
                self._outage_since = time.monotonic()
                LOG.warning('Coordination backend unreachable (%s); '
                            'keeping the last known engines %s and '
                            'retrying', exc, ', '.join(self.members))
            return
        if self._outage_since is not None:
            LOG.info('Coordination backend reachable again after %.0f s',
                     time.monotonic() - self._outage_since)
            self._outage_since = None
        with self._lock:
            if members != self._members:
                LOG.info('Engines sharing background work: %d (%s)',
                         len(members), ', '.join(members))
                self._members = members
                self._changed = True

    def _live_members(self) -> list[str]:
        """The live members, joining (again) if this engine is not among
        them (first beat, or its membership expired in an outage)."""
        try:
            found = self._client.get_members(self.group).get()
        except tooz_coordination.GroupNotCreated:
            found = set()
        names = {member.decode() for member in found}
        if self.member_id not in names:
            try:
                self._client.create_group(self.group).get()
            except tooz_coordination.GroupAlreadyExist:
                pass
            try:
                self._client.join_group(self.group).get()
            except tooz_coordination.MemberAlreadyExist:
                pass
            names.add(self.member_id)
        return sorted(names)


def owner(key: str, members: list[str]) -> str:
    """The member owning ``key``: highest hash of (member, key)."""
    return max(members, key=lambda member: hashlib.sha256(
        f'{member}\n{key}'.encode()).digest())


_COORDINATOR: Coordinator | None = None
_CREATE = threading.Lock()


def get() -> Coordinator:
    """This process's coordinator (member id: engine host and pid)."""
    global _COORDINATOR
    with _CREATE:
        if _COORDINATOR is None:
            host = CONF.engine.host or socket.gethostname()
            _COORDINATOR = Coordinator(f'{host}.{os.getpid()}')
        return _COORDINATOR
