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

"""Long polls of a deployment (``GET .../software_deployments/{id}?wait=N``).

A waiter parks on an ``Event``; it holds no database connection. The
watch, a task of each API worker's background work
(``swconfig.api.background``), reads every ``POLL_INTERVAL`` seconds,
only while someone waits, the ``version`` of every watched deployment in
one query (the connection goes back to the pool between reads), and wakes
the waiters of those that changed; while the database is unreachable it
backs off (up to ``MAX_OUTAGE_WAIT``), and the outage is logged once.
So many waiters cost one small primary-key query per interval, not one
per waiter, and a change is seen within ``POLL_INTERVAL``: cheap enough
to keep the engines out of it (no notification bus to feed) and quick
enough for a person watching.

Waiters hold request threads, and each counts as one of ``[api]
max_concurrent_project_requests``. At most half of that limit may wait
at once (``max_waiters``); past it a ``?wait`` request is answered at
once with the current state, as without ``wait``, so long polls can
never take the slots the requests they wait for (a signal through the
API, a cancel) need.
"""

import threading

from oslo_log import log

from swconfig.api.middleware import concurrency
from swconfig.common import background
from swconfig.common import context as swconfig_context
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)

#: Seconds between two reads of the watched deployments.
POLL_INTERVAL = 0.5
#: The longest wait between two reads while the database is unreachable.
MAX_OUTAGE_WAIT = 4.0
#: Seconds the watch sleeps while nobody waits (a waiter wakes it).
IDLE_WAIT = 3600.0
#: The longest wait a request may ask for, in seconds.
MAX_WAIT = 60


class _Waiter:
    __slots__ = ('deployment_id', 'version', 'changed')

    def __init__(self, deployment_id: str, version: int) -> None:
        self.deployment_id = deployment_id
        self.version = version
        self.changed = threading.Event()


class DeploymentWatch(background.PeriodicTask):
    """The per-worker watch the waiters of ``wait`` share."""

    name = 'deployment-watch'

    def __init__(self, max_waiters: int | None = None) -> None:
        self._max_waiters = max_waiters
        self._lock = threading.Lock()
        self._waiters: set[_Waiter] = set()
        self.wakeup = threading.Event()

    @property
    def max_waiters(self) -> int:
        if self._max_waiters is None:
            self._max_waiters = max(
                1, concurrency.project_request_limit() // 2)
        return self._max_waiters

    def wait(self, deployment_id: str, version: int,
             timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the deployment to change
        from ``version`` (or go); False if it did not, or if too many
        requests wait already (then at once)."""
        waiter = _Waiter(deployment_id, version)
        with self._lock:
            if len(self._waiters) >= self.max_waiters:
                LOG.info('%d requests already wait for deployments on '
                         'this API worker; answering a wait for %s at '
                         'once', len(self._waiters), deployment_id)
                return False
            first = not self._waiters
            self._waiters.add(waiter)
        if first:
            self.wakeup.set()  # the watch sleeps while nobody waits
        try:
            return waiter.changed.wait(timeout)
        finally:
            with self._lock:
                self._waiters.discard(waiter)

    def interval(self) -> float:
        return POLL_INTERVAL

    def max_interval(self) -> float:
        return MAX_OUTAGE_WAIT

    def wait_after_round(self) -> float:
        return POLL_INTERVAL if self._waiters else IDLE_WAIT

    def run(self, partition: background.Partition) -> None:
        with self._lock:
            waiters = list(self._waiters)
        if not waiters:
            return
        versions = db_api.software_deployment_versions(
            swconfig_context.get_admin_context(),
            sorted({waiter.deployment_id for waiter in waiters}))
        for waiter in waiters:
            if versions.get(waiter.deployment_id) != waiter.version:
                waiter.changed.set()

    def forked(self) -> None:
        """The parent's waiters are requests of its own threads."""
        self._lock = threading.Lock()
        self._waiters = set()
        self.wakeup = threading.Event()


WATCH = DeploymentWatch()
