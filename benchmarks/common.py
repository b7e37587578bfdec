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

