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

"""Whether an engine can answer a call now, asked before the API sends
one, so that a request that cannot be served is answered 503 with
Retry-After at once instead of holding a request thread until
``[engine] rpc_response_timeout``.

Two things are known without sending anything:

* **No engine runs.** Engines record heartbeats in the database
  (``swconfig.engine.heartbeat``); when none on the topic has within the
  window (three ``[engine] database_heartbeat_interval``), the call is
  refused with ``NoEngineRunning``. The count is read at most once a
  second per API worker. Not checked while ``[upgrade_levels] engine``
  pins older engines: they record no heartbeats.
* **The message bus is down.** Once a call failed on the bus, or has
  waited a second (calls take milliseconds), a broker is asked to accept
  a TCP connection (``rpc.bus_problem``, at most once a second per
  worker, never while calls go well, so the broker's log stays quiet).
  While none does, calls are refused with ``MessageBusDown`` and calls
  already waiting give up; during a broker outage with a write storm the
  request threads stay free for the agents' signals, which need no bus.

Each outage is logged once when it starts and once when it ends; the
refused requests themselves are logged at debug level only.
"""

from collections.abc import Callable
import threading
import time

from oslo_log import log

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common import rpc
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)

#: Seconds an answer (engines running, bus reachable) is reused by every
#: request thread of a worker.
CACHE = 1.0
#: Seconds a broker has to accept the probe's TCP connection.
PROBE_TIMEOUT = 0.5


class _Cached:
    """A value refreshed at most once per ``CACHE`` seconds: one thread
    refreshes, the others meanwhile use the value it had."""

    def __init__(self, read: Callable[[], object]) -> None:
        self._read = read
        self._lock = threading.Lock()
        self._at = float('-inf')
        self.value: object = None

    def expire(self) -> None:
        self._at = float('-inf')

    def get(self) -> object:
        if time.monotonic() - self._at < CACHE:
            return self.value
        if not self._lock.acquire(blocking=False):
            return self.value  # another thread is reading it now
        try:
            self.value = self._read()
            self._at = time.monotonic()
        finally:
            self._lock.release()
        return self.value


class Availability:
    """The API's view of the engines on ``topic`` and of the message bus.

    ``check_engines`` is False under an ``[upgrade_levels] engine`` pin.
    """

    def __init__(self, topic: str, check_engines: bool = True) -> None:
        self.topic = topic
        self.check_engines = check_engines
        self.context = swconfig_context.get_admin_context()
        self._engines = _Cached(self._read_engines)
        self._bus = _Cached(self._probe_bus)
        #: A call failed on the bus, or a probe found it down: probe
        #: before each call until a probe finds it up.
        self._bus_suspect = False
        self._no_engine_since: float | None = None
        self._bus_down_since: float | None = None

    # -- before a call --------------------------------------------------------

    def check(self) -> None:
        """Refuse a call no engine can answer now.

        :raises NoEngineRunning: no engine on the topic has recorded a
            heartbeat within the window.
        :raises MessageBusDown: the bus failed lately and still refuses
            connections.
        """
        if self.check_engines and self._engines.get() == 0:
            raise exception.NoEngineRunning(
                topic=self.topic, window=f'{db_api.heartbeat_window():g}')
        if self._bus_suspect:
            problem = self._bus.get()
            if problem:
                raise exception.MessageBusDown(reason=problem)

    # -- while a call waits, and after it failed ------------------------------

    def interrupt(self) -> BaseException | None:
        """For ``CallRunner.run``: the bus refusing connections ends the
        wait of a call (its answer could not come back anyway)."""
        problem = self._bus.get()
        if problem:
            return exception.MessageBusDown(reason=problem)
        return None

    def bus_failed(self) -> None:
        """A call failed on the bus: probe it before the next calls."""
        if not self._bus_suspect:
            self._bus_suspect = True
            self._bus.expire()

    # -- the reads ------------------------------------------------------------

    def _read_engines(self) -> int | None:
        """How many engines run; None when the database cannot say (the
        call then goes ahead and meets the outage itself)."""
        try:
            live = db_api.engine_services_live(self.context, self.topic)
        except Exception as exc:
            if not db_api.is_outage(exc):
                raise
            LOG.debug('Cannot count the running engines: %s', exc)
            return None
        if live == 0 and self._no_engine_since is None:
            self._no_engine_since = time.monotonic()
            LOG.warning('No engine has recorded a heartbeat on topic %s in '
                        'the last %g s: requests that need an engine are '
                        'answered 503 at once until one does. Is '
                        'swconfig-engine running, on this topic and '
                        'database?', self.topic, db_api.heartbeat_window())
        elif live and self._no_engine_since is not None:
            LOG.info('%d engine(s) running on topic %s again, after %.0f s '
                     'without one', live, self.topic,
                     time.monotonic() - self._no_engine_since)
            self._no_engine_since = None
        return live

    def _probe_bus(self) -> str | None:
        problem = rpc.bus_problem(PROBE_TIMEOUT)
        if problem and self._bus_down_since is None:
            self._bus_down_since = time.monotonic()
            self._bus_suspect = True
            LOG.warning('The message bus does not accept connections (%s): '
                        'requests that need an engine are answered 503 at '
                        'once until it does', problem)
        elif not problem:
            if self._bus_down_since is not None:
                LOG.info('The message bus accepts connections again, after '
                         '%.0f s', time.monotonic() - self._bus_down_since)
                self._bus_down_since = None
            self._bus_suspect = False
        return problem
