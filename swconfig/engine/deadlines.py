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


"""When the engine's deployment timeouts are due.

Each round of the timeout task ends by asking the database for the next
deadline (one look-up in the ``(status, timeout_at)`` index) and the
task sleeps until it is due, but never longer than ``[agent]
timeout_check_interval``, which bounds how late a deadline set by
another engine is seen. Looking only every interval (10 s by default)
would end a 5 s timeout as late as 16 s. A deployment given a deadline
in this engine wakes the task when that deadline is nearer than its
wake-up (``expect``, called once the deployment is committed, so the
round it starts finds it), or when a round is running (which may have
looked before the commit).

A deadline is acted on ``SIGNAL_STORE_GRACE_SECONDS`` after it passed:
a signal stamped by the deadline may still be committing (see
``signals.timed_out``). The grace and the wake-up make a timeout fire
within about 1.1 s of its deadline, well within the 2 s promised.
"""

import datetime
import threading

from oslo_utils import timeutils

from swconfig.common import context as swconfig_context
from swconfig.db import api as db_api

#: Seconds between a deadline and the round that acts on it, the time an
#: API server may take between stamping a signal and committing it.
SIGNAL_STORE_GRACE_SECONDS = 1
#: Past the due time, so the round's "deadline before now - grace" holds.
_SLACK_SECONDS = 0.01
#: Shortest wait between rounds: deadlines that pass a few milliseconds
#: apart are acted on together, not a round each.
MIN_WAIT_SECONDS = 0.25

#: Set to start the timeout task's next round now (its ``wakeup``).
WAKE = threading.Event()
_lock = threading.Lock()
#: When the task next runs if nothing wakes it; None while a round runs
#: (or before the first).
_wake_at: datetime.datetime | None = None


def cutoff() -> datetime.datetime:
    """Deadlines before this have passed by more than the grace: a round
    fails those deployments."""
    return timeutils.utcnow() - datetime.timedelta(
        seconds=SIGNAL_STORE_GRACE_SECONDS)


def expect(timeout_at: datetime.datetime | None) -> None:
    """A deployment of this engine with deadline ``timeout_at`` (None:
    none) was committed: wake the timeout task if it would sleep past the
    deadline or is running a round."""
    if timeout_at is None:
        return
    with _lock:
        if _wake_at is None or _due(timeout_at) < _wake_at:
            WAKE.set()


def round_started() -> None:
    """A round begins: a deadline committed from now on wakes the task
    again (the round may look before that commit)."""
    global _wake_at
    with _lock:
        _wake_at = None


def next_wait(passed: datetime.datetime, longest: float) -> float:
    """Seconds until the next round, after one that failed the
    deployments whose deadline was before ``passed``: until the next
    deadline that round did not act on is due, at most ``longest``."""
    global _wake_at
    upcoming = db_api.software_deployment_next_deadline(
        swconfig_context.get_admin_context(), passed)
    now = timeutils.utcnow()
    wait = longest
    if upcoming is not None:
        wait = min(longest, max(MIN_WAIT_SECONDS,
                                (_due(upcoming) - now).total_seconds()))
    with _lock:
        _wake_at = now + datetime.timedelta(seconds=wait)
    return wait


def _due(timeout_at: datetime.datetime) -> datetime.datetime:
    return timeout_at + datetime.timedelta(
        seconds=SIGNAL_STORE_GRACE_SECONDS + _SLACK_SECONDS)
