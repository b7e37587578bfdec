"""The engine's background workers: loops that watch Swift and Zaqar.

Each worker runs on a thread of its own, one round every ``interval``
seconds. While the service it talks to is unreachable
(``BackendUnavailable``) the loop backs off, doubling its wait up to a
maximum, and logs the outage once when it starts and once when it ends,
not every round; nothing is lost meanwhile, because what a round would
have done is still there to do in the next one. Which items a round
covers is shared out between live engines by ``coordination``.
"""

import abc
import threading
import time

from oslo_log import log

from swconfig.common import exception
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)


class Worker(abc.ABC):
    """One kind of background work."""

    #: For the log and the thread name.
    name: str

    @abc.abstractmethod
    def interval(self) -> float:
        """Seconds between rounds while all is well."""

    @abc.abstractmethod
    def max_interval(self) -> float:
        """Longest wait between rounds during an outage."""

    @abc.abstractmethod
    def run_once(self) -> None:
        """One round; raises BackendUnavailable while its service is
        down."""


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

    @property
    def down(self) -> bool:
        return self.since is not None


class Runner:
    """Runs workers on threads until stopped."""

    def __init__(self, workers: list[Worker]) -> None:
        self.workers = workers
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        self._stop.clear()
        for worker in self.workers:
            thread = threading.Thread(target=self._loop, args=(worker,),
                                      name=f'worker-{worker.name}',
                                      daemon=True)
            thread.start()
            self._threads.append(thread)
            LOG.info('Started background worker %s', worker.name)

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._threads = []

    def _loop(self, worker: Worker) -> None:
        outage = Outage(worker.name)
        wait = worker.interval()
        while not self._stop.is_set():
            try:
                worker.run_once()
            except exception.BackendUnavailable as exc:
                wait = min(max(wait, worker.interval()) * 2,
                           worker.max_interval())
                outage.failed(exc, wait)
            except Exception as exc:
                if db_api.is_outage(exc):
                    wait = min(max(wait, worker.interval()) * 2,
                               worker.max_interval())
                    outage.failed(exc, wait)
                else:
                    LOG.exception('Background worker %s failed; it runs '
                                  'again in %.1f s', worker.name,
                                  worker.interval())
                    wait = worker.interval()
            else:
                outage.recovered()
                wait = worker.interval()
            self._stop.wait(wait)
