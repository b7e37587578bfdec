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

"""Background work, the same way in the engine and the API: tasks and the
one runner that runs them.

A process lists its tasks in a table (the engine's:
``swconfig.engine.periodics``; an API worker's:
``swconfig.api.background``) and hands it to a ``Runner``, which runs
each task on a thread of its own. While the service a task talks to is
unreachable (what the runner's ``is_outage`` recognises: a database
outage, ``BackendUnavailable``) the task backs off, doubling its wait up
to its maximum, and the outage is logged once when it starts and once
when it ends, not every round; nothing is lost meanwhile, because what a
round would have done is still there to do in the next one. Any other
failure is logged with its traceback and the task runs again at its
interval. Which items a shared task handles is decided by the runner's
partition (the engines' coordinator), never by the task.
"""

import abc
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
import threading
import time
from typing import Any
from typing import Protocol

from oslo_log import log

LOG = log.getLogger(__name__)


class Partition(Protocol):
    """This process's share of the background work."""

    def owns(self, key: str) -> bool:
        """Whether the item called ``key`` is this process's to handle."""


class Everything:
    """The partition of a process that shares its work with nobody (an
    API worker's work is its own)."""

    def owns(self, key: str) -> bool:
        return True


class PeriodicTask(abc.ABC):
    """One kind of background work a process repeats.

    The runner calls ``run`` every ``interval()`` seconds (or sooner, when
    the task knows its next work is due sooner: ``wait_after_round``, and
    when something sets its ``wakeup``); while it fails with an outage
    the runner backs off up to ``max_interval()`` and logs the outage
    once, when it starts and when it ends. A task that is not
    ``repeated`` ends after its first round that went well.
    """

    #: For the log and the thread name.
    name: str
    #: Set by whoever makes work due sooner than the task's next round:
    #: the runner then starts that round at once. None: rounds only.
    wakeup: threading.Event | None = None
    #: False: one round that goes well is all (retried until then).
    repeated: bool = True

    @abc.abstractmethod
    def interval(self) -> float:
        """Seconds between rounds while all is well."""

    def wait_after_round(self) -> float:
        """Seconds until the next round after one that went well: the
        interval, unless the task knows its next work is due sooner."""
        return self.interval()

    def max_interval(self) -> float:
        """Longest wait between rounds during an outage."""
        return 60.0

    @abc.abstractmethod
    def run(self, partition: Partition) -> None:
        """One round."""

    def forked(self) -> None:
        """In a forked child, before its runner starts: drop what the
        parent's threads held (locks, queues, waiters)."""
        return None


class SharedTask(PeriodicTask):
    """Work on items that the live engines share out: each round lists
    the items, and ``handle`` sees only the ones ``partition`` gives this
    engine, so no task decides ownership itself."""

    @abc.abstractmethod
    def items(self) -> Iterable[tuple[str, Any]]:
        """This round's items, each with the key it is shared out by."""

    @abc.abstractmethod
    def handle(self, owned: Iterator[Any]) -> None:
        """Work on this engine's items (consumed lazily)."""

    def run(self, partition: Partition) -> None:
        self.handle(item for key, item in self.items()
                    if partition.owns(key))


class Outage:
    """Whether, and since when, a service has been failing, so that an
    outage is logged when it starts and when it ends."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.since: float | None = None

    def failed(self, exc: Exception, retry_in: float) -> None:
        if self.since is None:
            self.since = time.monotonic()
            LOG.warning('%s: %s; retrying with backoff (next in %.0f s), '
                        'nothing is lost meanwhile', self.what, exc,
                        retry_in)

    def recovered(self) -> None:
        if self.since is not None:
            LOG.info('%s: working again after %.0f s', self.what,
                     time.monotonic() - self.since)
            self.since = None


def next_wait(task: PeriodicTask, wait: float, failed: Exception | None,
              is_outage: Callable[[Exception], bool]) -> float:
    """The wait before the next round: what the task asks after a round
    that went well (its interval, or less when its next work is due
    sooner), its interval after a bug, or during an outage twice the last
    wait (at least the interval), up to the task's maximum."""
    if failed is None:
        return task.wait_after_round()
    if not is_outage(failed):
        return task.interval()
    return min(max(wait, task.interval()) * 2, task.max_interval())


class Runner:
    """Runs tasks on threads of their own until stopped, each round with
    ``partition`` deciding what this process owns; ``is_outage`` tells
    a service being down (back off, log it once) from a bug."""

    def __init__(self, tasks: list[PeriodicTask], partition: Partition,
                 is_outage: Callable[[Exception], bool]) -> None:
        self.tasks = tasks
        self.partition = partition
        self.is_outage = is_outage
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        self._stop.clear()
        for task in self.tasks:
            thread = threading.Thread(target=self._loop, args=(task,),
                                      name=f'periodic-{task.name}',
                                      daemon=True)
            thread.start()
            self._threads.append(thread)
        LOG.info('Background tasks: %s', ', '.join(
            f'{task.name} ' + (
                f'every {task.interval():g} s' if task.repeated else 'once')
            + (' or when due sooner' if task.wakeup is not None else '')
            for task in self.tasks))

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        for task in self.tasks:
            if task.wakeup is not None:
                task.wakeup.set()  # it waits on that, not on _stop
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._threads = []

    def run_once(self, task: PeriodicTask, outage: Outage,
                 wait: float) -> float:
        """One round of ``task``; returns the wait before the next."""
        return self._round(task, outage, wait)[0]

    def _round(self, task: PeriodicTask, outage: Outage,
               wait: float) -> tuple[float, bool]:
        """One round of ``task``: the wait before the next, and whether
        the round went well."""
        failed: Exception | None = None
        try:
            task.run(self.partition)
        except Exception as exc:
            failed = exc
        wait = next_wait(task, wait, failed, self.is_outage)
        if failed is None:
            outage.recovered()
        elif self.is_outage(failed):
            outage.failed(failed, wait)
        else:
            LOG.error('Background task %s failed; it runs again in %.1f '
                      's', task.name, wait, exc_info=failed)
        return wait, failed is None

    def _loop(self, task: PeriodicTask) -> None:
        outage = Outage(task.name)
        wait = task.interval()
        # A task that can be woken waits on its wakeup (stop() sets it
        # too, after _stop); cleared before each round, so a wake-up
        # during the round starts another at once.
        alarm = task.wakeup or self._stop
        while True:
            if task.wakeup is not None:
                task.wakeup.clear()
            if self._stop.is_set():
                return
            # A backoff doubles the waits of the outage, never a wait
            # that went well (an idle task's may be long).
            wait, went_well = self._round(
                task, outage,
                wait if outage.since is not None else task.interval())
            if went_well and not task.repeated:
                return
            alarm.wait(wait)
