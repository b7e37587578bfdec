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

"""What the benchmark modules share: addresses, the signing key, limits."""

import dataclasses
import sys
import time

HOST = '127.0.0.1'
SIGNING_KEY = 'bench:benchmark-signing-key-0123456789abcdef'
MARIADB_URL = f'mysql+pymysql://root@{HOST}:3306'
RABBIT_URL = f'rabbit://guest:guest@{HOST}:5672/'
#: Every wait in the benchmark is bounded; nothing runs unbounded.
START_TIMEOUT = 90.0


@dataclasses.dataclass
class Target:
    """One agent's view of a seeded server: its signed URL and ETag."""

    server_id: str
    path: str  # path and query of the signed metadata URL
    etag: str
    project: str = ''  # the server's owner (the tenant view's path)


@dataclasses.dataclass
class SignalTarget:
    deployment_id: str
    path: str  # path and query of the signed signal URL


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the results."""
    print(f'[{time.strftime("%H:%M:%S")}] {message}', file=sys.stderr,
          flush=True)


def python_speed(rounds: int = 3) -> float:
    """Seconds this machine's Python takes for 10 million additions, the
    best of ``rounds``: a gauge for comparing runs on machines (or
    moments) whose speed differs, as shared virtual machines' does."""
    best = float('inf')
    for _round in range(rounds):
        started = time.perf_counter()
        total = 0
        for number in range(10_000_000):
            total += number
        best = min(best, time.perf_counter() - started)
    return best
