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

"""A per-project limit on the rate of writes, per API worker.

A token bucket per project: ``write_burst_per_project`` writes at once,
refilled at ``max_writes_per_second_per_project``. Over the limit the API
answers 429 with Retry-After and Heat's error body. Reads and the agents'
signed URLs are never limited here.
"""

import math
import threading
import time
from typing import Any

from swconfig.api.middleware import fault
from swconfig.conf import CONF

WRITE_METHODS = frozenset(('POST', 'PUT', 'PATCH', 'DELETE'))


class TokenBucket:
    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> float:
        """0 if a token was taken, else the seconds until one is free."""
        now = time.monotonic()
        self.tokens = min(self.burst,
                          self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


class WriteRateLimiter:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.buckets: dict[str, TokenBucket] = {}
        self.lock = threading.Lock()

    def __call__(self, environ: dict, start_response: Any) -> Any:
        if environ.get('REQUEST_METHOD') not in WRITE_METHODS:
            return self.app(environ, start_response)  # reads: no option read
        rate = CONF.api.max_writes_per_second_per_project
        project = environ.get('HTTP_X_PROJECT_ID')
        if rate <= 0 or not project:
            return self.app(environ, start_response)
        with self.lock:
            bucket = self.buckets.get(project)
            if bucket is None or bucket.rate != rate:
                bucket = self.buckets[project] = TokenBucket(
                    rate, CONF.api.write_burst_per_project)
            wait = bucket.take()
        if not wait:
            return self.app(environ, start_response)
        response = fault.error_response(
            429, 'RequestLimitExceeded',
            f'Request limit exceeded: project {project} makes more than '
            f'{rate:g} writes per second; retry later.',
            headers=[('Retry-After', str(math.ceil(wait)))])
        return response(environ, start_response)
