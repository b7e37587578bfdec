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

"""Caches of per-process look-ups, bounded and cleared whole when full.

The API keeps a few look-ups whose misses are only slower, never wrong:
the paths agents polled before, the route of each URL requested
recently, recent policy decisions. A least-recently-used order would
cost bookkeeping on every hit, and hits are the hot path; clearing the
whole cache when it is full costs one refill, now and then.
"""

from typing import Any


class LookupCache(dict):
    """At most ``limit`` items; all are forgotten when it is reached (a
    limit of 0 keeps nothing). Read it as a dict; add with ``keep``."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def keep(self, key: Any, value: Any) -> None:
        if not self.limit:
            return
        if len(self) >= self.limit:
            self.clear()
        self[key] = value


class RepeatLookupCache(LookupCache):
    """A LookupCache that keeps a key only when it is kept again: a
    cache of the look-ups that repeat.

    For look-ups whose keys mostly recur (a client polling a deployment,
    a dashboard refreshing a server) but which a sweep over many more
    keys than ``limit`` may also reach (a monitor reading every server's
    metadata): kept at once, each value of the sweep would be held until
    the next clear and freed with thousands of others, so that the sweep
    pays the keeping (and the garbage collector's walks of what it
    holds) on top of every miss. Here the first ``keep`` of a key only
    notes the key, in a set forgotten whole after ``4 x limit`` notes; a
    second ``keep`` while it is noted keeps it. Keys are expected to be
    strings, which the collector does not track.
    """

    #: Keys noted, as a multiple of ``limit``.
    NOTED_PER_KEPT = 4

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self._noted: set[Any] = set()

    def keep(self, key: Any, value: Any) -> None:
        if key in self._noted:
            super().keep(key, value)
            return
        if len(self._noted) >= self.NOTED_PER_KEPT * self.limit:
            self._noted.clear()
        self._noted.add(key)
