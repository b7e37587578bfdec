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

"""Load generators: wrk (C, with a Lua script) for agent polling, and a
small asyncio keep-alive HTTP/1.1 client for signal bursts, deployment
creation, and polling when wrk cannot be installed.

On a 2-core machine the client competes with the server for CPU, so the
polling load, the highest rate, goes through wrk; the client's CPU is
measured and reported like the server's.
"""

import asyncio
import collections
from collections.abc import Callable
from collections.abc import Iterator
import dataclasses
import json
import os
import random
import shutil
import subprocess
import time

from benchmarks import common

WRK_SCRIPT = os.path.join(os.path.dirname(__file__), 'poll.lua')
TENANT_SCRIPT = os.path.join(os.path.dirname(__file__), 'tenant.lua')


@dataclasses.dataclass
class Result:
    """What one load run measured."""

    requests: int = 0
    seconds: float = 0.0
    statuses: dict[int, int] = dataclasses.field(default_factory=dict)
    errors: int = 0  # socket errors, timeouts, 5xx and unexpected 4xx
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0
    last_response: float = 0.0  # time.monotonic() of the last answer

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


def ensure_wrk() -> str | None:
    """wrk's path, installing the Debian package if needed; None if it
    cannot be had (the asyncio client takes over)."""
    path = shutil.which('wrk')
    if path:
        return path
    if os.geteuid() == 0 and shutil.which('apt-get'):
        common.log('installing wrk (apt-get install -y wrk)')
        for argv in (['apt-get', 'install', '-y', '-q', 'wrk'],
                     ['apt-get', 'update', '-q'],
                     ['apt-get', 'install', '-y', '-q', 'wrk']):
            subprocess.run(argv, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=600,
                           check=False)
            path = shutil.which('wrk')
            if path:
                return path
    common.log('wrk is not available: polling with the asyncio client')
    return None


def write_targets(path: str, targets: list[common.Target]) -> str:
    with open(path, 'w') as handle:
        for target in targets:
            handle.write(f'{target.path} {target.etag}\n')
    return path


def tenant_path(target: common.Target) -> str:
    """The Heat-compatible tenant view of the target's server."""
    return (f'/v1/{target.project}/software_deployments/metadata/'
            f'{target.server_id}')


def write_tenant_targets(path: str, targets: list[common.Target]) -> str:
    """Targets for ``tenant.lua``: the tenant views of the servers."""
    with open(path, 'w') as handle:
        for target in targets:
            handle.write(f'{tenant_path(target)} -\n')
    return path


def wrk_poll(wrk: str, port: int, targets_file: str, concurrency: int,
             seconds: float, conditional_every: int,
             rate: float = 0, script: str = WRK_SCRIPT) -> Result:
    """HEAD+GET pairs with wrk; every ``conditional_every``-th GET sends
    If-None-Match with the current ETag (answered 304). With ``rate``
    (requests/s) the requests are paced (open loop), else sent back to
    back on every connection (closed loop: the server's capacity)."""
    env = dict(os.environ, BENCH_TARGETS=targets_file,
               BENCH_CONDITIONAL=str(conditional_every),
               BENCH_RATE=str(rate))
    argv = [wrk, '-t', '1', '-c', str(concurrency), '-d',
            f'{max(1, int(seconds))}s', '--timeout', '5s', '-s', script,
            f'http://{common.HOST}:{port}/']
    process = subprocess.Popen(argv, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, env=env, text=True)
    output, _ = process.communicate(timeout=seconds + 60)
    line = next((x for x in output.splitlines() if x.startswith('BENCH ')),
                None)
    if process.returncode != 0 or line is None:
        raise RuntimeError(f'wrk failed ({process.returncode}):\n{output}')
    data = json.loads(line[len('BENCH '):])
    statuses = {200: data['s200'], 304: data['s304']}
    if data['sother']:
        statuses[0] = data['sother']
    socket_errors = (data['connect'] + data['read'] + data['write']
                     + data['timeout'])
    return Result(requests=data['requests'],
                  seconds=data['duration_us'] / 1e6, statuses=statuses,
                  errors=socket_errors + data['sother'],
                  p50_ms=data['p50_us'] / 1000, p99_ms=data['p99_us'] / 1000,
                  max_ms=data['max_us'] / 1000)


# -- the asyncio client -------------------------------------------------------

Request = tuple[str, str, dict[str, str], bytes]  # method, path, headers, body


async def _read_response(reader: asyncio.StreamReader,
                         method: str) -> tuple[int, bool]:
    head = await reader.readuntil(b'\r\n\r\n')
    lines = head.decode('latin-1').split('\r\n')
    status = int(lines[0].split(' ', 2)[1])
    length = 0
    close = False
    for line in lines[1:]:
        name, _, value = line.partition(':')
        name = name.strip().lower()
        if name == 'content-length':
            length = int(value.strip())
        elif name == 'connection' and value.strip().lower() == 'close':
            close = True
    if method != 'HEAD' and status not in (204, 304) and length:
        await reader.readexactly(length)
    return status, close


def _encode(port: int, request: Request) -> bytes:
    method, path, headers, body = request
    lines = [f'{method} {path} HTTP/1.1', f'Host: {common.HOST}:{port}']
    lines += [f'{name}: {value}' for name, value in headers.items()]
    if body or method in ('PUT', 'POST'):
        lines.append(f'Content-Length: {len(body)}')
    return ('\r\n'.join(lines) + '\r\n\r\n').encode('latin-1') + body


async def _worker(port: int, requests: Iterator[Request], deadline: float,
                  latencies: list[float], statuses: collections.Counter,
                  failures: list[int], ok: Callable[[int], bool],
                  last: list[float]) -> None:
    reader = writer = None
    for request in requests:
        if time.monotonic() > deadline:
            break
        started = time.monotonic()
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection(common.HOST,
                                                               port)
            writer.write(_encode(port, request))
            status, close = await asyncio.wait_for(
                _read_response(reader, request[0]), 10)
        except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError,
                ValueError, IndexError):
            failures.append(1)
            if writer is not None:
                writer.close()
            reader = writer = None
            continue
        finished = time.monotonic()
        latencies.append(finished - started)
        statuses[status] += 1
        last[0] = max(last[0], finished)
        if not ok(status):
            failures.append(1)
        if close:
            writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()


def _percentile(ordered: list[float], fraction: float) -> float:
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


async def _run(port: int, requests: Iterator[Request], concurrency: int,
               seconds: float, ok: Callable[[int], bool]) -> Result:
    latencies: list[float] = []
    statuses: collections.Counter = collections.Counter()
    failures: list[int] = []
    last = [0.0]
    started = time.monotonic()
    await asyncio.gather(*(
        _worker(port, requests, started + seconds, latencies, statuses,
                failures, ok, last) for _ in range(concurrency)))
    elapsed = time.monotonic() - started
    ordered = sorted(latencies)
    return Result(requests=len(latencies), seconds=elapsed,
                  statuses=dict(statuses), errors=len(failures),
                  p50_ms=_percentile(ordered, 0.50) * 1000,
                  p99_ms=_percentile(ordered, 0.99) * 1000,
                  max_ms=(ordered[-1] * 1000 if ordered else 0.0),
                  last_response=last[0])


def run_requests(port: int, requests: Iterator[Request], concurrency: int,
                 seconds: float, ok: Callable[[int], bool]) -> Result:
    """Send ``requests`` over ``concurrency`` keep-alive connections until
    they run out or ``seconds`` pass."""
    return asyncio.run(_run(port, iter(requests), concurrency, seconds, ok))


def poll_requests(targets: list[common.Target], conditional_every: int,
                  seed: int = 1) -> Iterator[Request]:
    """The same HEAD+GET pattern as poll.lua, for the asyncio client."""
    chooser = random.Random(seed)
    pair = 0
    while True:
        target = chooser.choice(targets)
        pair += 1
        yield ('HEAD', target.path, {}, b'')
        headers = ({'If-None-Match': f'"{target.etag}"'}
                   if pair % conditional_every == 0 else {})
        yield ('GET', target.path, headers, b'')


def tenant_requests(targets: list[common.Target]) -> Iterator[Request]:
    """The asyncio client's tenant views (wrk unavailable)."""
    rng = random.Random(7919)
    while True:
        yield ('GET', tenant_path(rng.choice(targets)), {}, b'')
