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


@dataclasses.dataclass
class SignalTarget:
    deployment_id: str
    path: str  # path and query of the signed signal URL


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the results."""
    print(f'[{time.strftime("%H:%M:%S")}] {message}', file=sys.stderr,
          flush=True)


def cpu_reference() -> float:
    """Seconds a fixed pure-Python loop (5 million additions) takes, the
    best of three: a shared machine's speed moves with its neighbours,
    and every figure of a run moves with it (the same code gave 1,132 and
    662 signals/s an hour apart on one machine).
    Compare runs only when this agrees."""
    best = float('inf')
    for _attempt in range(3):
        started = time.perf_counter()
        total = 0
        for number in range(5_000_000):
            total += number
        best = min(best, time.perf_counter() - started)
    return best
