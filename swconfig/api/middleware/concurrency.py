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

"""A bound on the project requests one API worker serves at once.

Project requests (``/v1/{tenant_id}/...``) may wait for a long time: for
Keystone to validate a token, for an engine to answer, for a message bus
that is down (up to ``[engine] rpc_response_timeout``). Without a bound
they could take every request thread of the worker, and the agents'
metadata polls and signals, which need none of those services, would
queue behind them. Past ``[api] max_concurrent_project_requests`` this
middleware answers 503 with Retry-After at once; the agents' signed URLs
never pass through it (the dispatcher hands them straight to the agent
app).
"""

import queue
import threading
from typing import Any

from oslo_log import log

from swconfig.api.middleware import fault
from swconfig.common import exception
from swconfig.conf import CONF

LOG = log.getLogger(__name__)


def project_request_limit() -> int:
    """``[api] max_concurrent_project_requests``, or three quarters of
    ``[api] threads`` when it is 0."""
    threads = CONF.api.threads
    limit = CONF.api.max_concurrent_project_requests
    if not limit:
        return max(1, threads * 3 // 4)
    if limit >= threads:
        LOG.warning('[api] max_concurrent_project_requests (%d) is not '
                    'below [api] threads (%d): project requests waiting '
                    'for a backend can take every request thread, and the '
                    'agents\' polls and signals wait behind them.',
                    limit, threads)
    return limit


class ConcurrencyLimiter:
    """Refuses a project request at once when ``limit`` are in progress.

    The slot is held until the application returns its response: pecan
    and the error middleware build the whole body before returning.
    """

    def __init__(self, app: Any, limit: int | None = None) -> None:
        self.app = app
        self.limit = limit if limit is not None else project_request_limit()
        # The free slots, one token each: taking one and giving it back
        # are one C call each. threading's semaphores are Python code
        # around a Condition, and a count under a lock took two blocks of
        # Python per request.
        self._free: queue.SimpleQueue = queue.SimpleQueue()
        for _ in range(self.limit):
            self._free.put(None)
        self._lock = threading.Lock()  # _refused
        self._refused = 0  # since the last request that got a slot

    @property
    def in_progress(self) -> int:
        """How many requests hold a slot."""
        return self.limit - self._free.qsize()

    def __call__(self, environ: dict, start_response: Any) -> Any:
        try:
            self._free.get_nowait()
        except queue.Empty:
            return self._refuse(environ, start_response)
        try:
            if self._refused:
                self._log_recovered()
            return self.app(environ, start_response)
        finally:
            self._free.put(None)

    def _refuse(self, environ: dict, start_response: Any) -> Any:
        with self._lock:
            self._refused += 1
            first = self._refused == 1
        if first:
            # Once per busy spell: one line, not one per refused request.
            LOG.warning('%d project requests are in progress on this API '
                        'worker (max_concurrent_project_requests); refusing '
                        'more with 503 until one ends. Requests that wait '
                        'this long usually wait for an unreachable engine, '
                        'message bus or Keystone.', self.limit)
        busy = exception.APIBusy(limit=self.limit)
        response = fault.error_response(busy.code, busy.type_name,
                                        busy.message, headers=busy.headers)
        return response(environ, start_response)

    def _log_recovered(self) -> None:
        with self._lock:
            refused, self._refused = self._refused, 0
        if refused:
            LOG.info('Project requests are served again on this API '
                     'worker; %d were refused while it was busy.', refused)
