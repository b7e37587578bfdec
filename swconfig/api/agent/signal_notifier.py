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

"""Handing stored signals to an engine without making the agent wait.

The API stores every agent signal durably before it answers; the cast
that asks an engine to apply it is sent by a task of the worker's
background work (``swconfig.api.background``), batched over a few
milliseconds. A cast that is lost (full queue, dead broker) is harmless:
the engines' signal sweep applies whatever is still pending.
"""

import queue
import threading
import time

from oslo_log import log

from swconfig.common import background
from swconfig.common.context import RequestContext
from swconfig.engine import rpcapi

LOG = log.getLogger(__name__)


class SignalNotifier(background.PeriodicTask):
    """Casts ``process_signal`` from a background thread, so an agent's
    answer never waits for the message bus (the signal is already stored;
    a cast that is dropped, e.g. with a full queue or a dead broker, is
    applied by the engines' sweep).

    Signals that arrive within ``LINGER`` seconds of each other share one
    cast, naming the newest: an engine applies the signal it is cast and
    every pending one stored before it. Every signal is committed before
    it is queued, so the cast that covers it is always sent after it is
    visible. Each queued signal wakes the task.
    """

    name = 'signal-notifier'
    LINGER = 0.02
    #: Seconds between rounds while no signal wakes the task.
    IDLE_WAIT = 60.0

    def __init__(self, engine_api: rpcapi.EngineAPI,
                 context: RequestContext,
                 max_pending: int = 10000) -> None:
        self.engine_api = engine_api
        self.context = context
        self.max_pending = max_pending
        self._queue: queue.Queue = queue.Queue(max_pending)
        self.wakeup = threading.Event()

    def notify(self, inbox_id: int) -> None:
        """Queue the cast; never raises (the signal is stored already)."""
        try:
            self._queue.put_nowait(inbox_id)
            self.wakeup.set()
        except queue.Full:
            LOG.warning('Stored signal %s not handed to an engine now '
                        '(%d casts pending); the signal sweep will apply '
                        'it', inbox_id, self.max_pending)
        except Exception:
            LOG.exception('Stored signal %s not handed to an engine; the '
                          'signal sweep will apply it', inbox_id)

    def interval(self) -> float:
        return self.IDLE_WAIT

    def run(self, partition: background.Partition) -> None:
        """Cast the newest of the signals queued within ``LINGER`` of the
        first; the next round casts what came after."""
        pending = self._queue
        try:
            newest = pending.get_nowait()
        except queue.Empty:
            return
        deadline = time.monotonic() + self.LINGER
        while True:
            try:
                newest = max(newest, pending.get(
                    timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                break
        try:
            self.engine_api.process_signal(self.context, newest)
        except Exception:  # process_signal logs; the sweep applies it
            LOG.exception('Could not hand signal %s to an engine',
                          newest)

    def forked(self) -> None:
        """The parent's queued signals are cast by the parent."""
        self._queue = queue.Queue(self.max_pending)
        self.wakeup = threading.Event()
