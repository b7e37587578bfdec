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

"""A dict that forgets everything when it is full.

The API keeps a few per-process look-ups whose misses are only slower,
never wrong: the paths agents polled before, the route of each URL
requested recently, recent policy decisions. A least-recently-used order
would cost bookkeeping on every hit, and hits are the hot path; clearing
the whole dict when it is full costs one refill, now and then.
"""

from typing import Any


class ForgetfulDict(dict):
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
