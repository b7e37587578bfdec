"""What the benchmark modules share: addresses, the signing key, limits."""

import dataclasses
import os
import socket
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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def script(name: str) -> str:
    """A console script installed next to this interpreter (the venv)."""
    candidate = os.path.join(os.path.dirname(sys.executable), name)
    if not os.path.exists(candidate):
        raise SystemExit(f'{name} is not installed next to '
                         f'{sys.executable}: run the benchmark with the '
                         f'project venv\'s python')
    return candidate


def wait_port(port: int, timeout: float = START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f'nothing listens on {HOST}:{port} after '
                       f'{timeout:.0f}s')


def log(message: str) -> None:
    """Progress on stderr, so stdout holds only the results."""
    print(f'[{time.strftime("%H:%M:%S")}] {message}', file=sys.stderr,
          flush=True)
