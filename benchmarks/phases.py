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

"""The measured phases: agent polling, a signal burst, deployment creation.

Each phase runs under a ``stack.Monitor`` and returns one ``Row`` of the
results table: throughput and latency as the client saw them, plus the
CPU every process used during the phase and the largest RSS it reached.
"""

import dataclasses
import itertools
import json
import threading
import time
from typing import Any

import requests
import sqlalchemy as sa

from benchmarks import common
from benchmarks import loadgen
from benchmarks import stack

SIGNAL_BODY = json.dumps({
    'result': 'ok', 'deploy_stdout': 'deployed\n', 'deploy_stderr': '',
    'deploy_status_code': 0}).encode()
APPLY_TIMEOUT = 120.0
#: The label of the tenant metadata view's rows.
TENANT_VIEW = 'tenant view'


@dataclasses.dataclass
class Row:
    setup: str
    phase: str
    result: loadgen.Result
    cpu: dict[str, float]  # role -> CPU seconds during the phase
    rss: dict[str, list[int]]  # role -> largest RSS of each process
    wall: float
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def cpu_percent(self, role: str) -> float:
        return 100.0 * self.cpu.get(role, 0.0) / self.wall if self.wall else 0

    def server_cpu_us(self) -> float:
        """Server-side CPU (API, engines, DB, broker) per request."""
        used = sum(seconds for role, seconds in self.cpu.items()
                   if role not in ('client', 'other'))
        requests = self.result.requests or 1
        return 1e6 * used / requests

    def api_cpu_us(self) -> float:
        api = self.cpu.get('api-workers', 0.0) + self.cpu.get(
            'swconfig-all', 0.0)
        return 1e6 * api / (self.result.requests or 1)


def _row(setup: stack.Setup, phase: str, result: loadgen.Result,
         monitor: stack.Monitor, **extra: Any) -> Row:
    cpu = {role: monitor.cpu(role) for role in monitor.groups}
    cpu['other'] = monitor.other_cpu()
    return Row(setup.name, phase, result, cpu,
               {role: monitor.rss(role) for role in monitor.groups},
               monitor.wall, extra)


def poll(setup: stack.Setup, label: str, targets: list[common.Target],
         targets_file: str, wrk: str | None, concurrency: int,
         seconds: float, conditional_every: int, warmup: float = 3,
         rate: float = 0) -> Row:
    """Agents polling for ``seconds`` (after a short unmeasured warm-up
    that fills the connection pools and caches); paced at ``rate``
    requests/s if given (wrk only), else as fast as the server answers."""
    setup.check()
    if wrk:
        loadgen.wrk_poll(wrk, setup.port, targets_file, concurrency,
                         warmup, conditional_every)
    else:
        loadgen.run_requests(
            setup.port, loadgen.poll_requests(targets, conditional_every, 2),
            concurrency, warmup, lambda status: status in (200, 304))
    groups = stack.groups_for(setup)
    with stack.Monitor(groups) as monitor:
        if wrk:
            result = loadgen.wrk_poll(wrk, setup.port, targets_file,
                                      concurrency, seconds,
                                      conditional_every, rate)
        else:
            result = loadgen.run_requests(
                setup.port, loadgen.poll_requests(targets,
                                                  conditional_every),
                concurrency, seconds, lambda status: status in (200, 304))
    setup.check()
    return _row(setup, f'poll {label}', result, monitor,
                servers=len(targets), rate=rate)


#: What an API worker logs once its metadata cache warmed up.
WARMED = 'Metadata cache: warmed up'


def warm_caches(setup: stack.Setup, targets: list[common.Target],
                workers: int, timeout: float = 600) -> float:
    """Poll (unmeasured) until every API worker logged that its metadata
    cache warmed up (a worker's first poll starts it), so the phases
    measure the steady state real agents see rather than each worker's
    first read of every server; the seconds it took."""
    started = time.monotonic()
    while setup.api_log_count(WARMED) < workers:
        if time.monotonic() - started > timeout:
            raise RuntimeError(f'{setup.name}: {workers} API workers did '
                               f'not warm up within {timeout:.0f} s')
        setup.check()
        loadgen.run_requests(setup.port, loadgen.poll_requests(targets, 4),
                             4 * workers, 0.5, lambda s: s in (200, 304))
    return time.monotonic() - started


def tenant_view(setup: stack.Setup, label: str,
                targets: list[common.Target], targets_file: str,
                wrk: str | None, concurrency: int, seconds: float,
                warmup: float = 3) -> Row:
    """The Heat-compatible tenant metadata view of random servers, as
    their owner, closed loop (after a short unmeasured warm-up)."""
    setup.check()

    def load(duration: float) -> loadgen.Result:
        if wrk:
            return loadgen.wrk_poll(wrk, setup.port, targets_file,
                                    concurrency, duration, 1,
                                    script=loadgen.TENANT_SCRIPT)
        return loadgen.run_requests(
            setup.port, loadgen.tenant_requests(targets), concurrency,
            duration, lambda status: status == 200)

    load(warmup)
    with stack.Monitor(stack.groups_for(setup)) as monitor:
        result = load(seconds)
    setup.check()
    return _row(setup, f'{TENANT_VIEW} {label}', result, monitor,
                servers=len(targets))


def _in_progress(connection: sa.engine.Connection) -> int:
    return connection.execute(sa.text(
        "SELECT COUNT(*) FROM software_deployment "
        "WHERE status = 'IN_PROGRESS'")).scalar()


def _put_signals(targets: list[common.SignalTarget]) -> Any:
    return (('PUT', target.path, {'Content-Type': 'application/json'},
             SIGNAL_BODY) for target in targets)


def _wait_applied(engine: sa.engine.Engine, before: int, accepted: int,
                  timeout: float) -> int:
    applied = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with engine.connect() as connection:
            applied = before - _in_progress(connection)
        if applied >= accepted:
            break
        time.sleep(0.05)
    return applied


def signal_burst(setup: stack.Setup, database_url: str,
                 signals: list[common.SignalTarget], concurrency: int,
                 time_limit: float, warmup: int = 128) -> Row:
    """PUT a signal to each deployment as fast as possible, then watch the
    database until every accepted signal has been applied. The first
    ``warmup`` signals (unmeasured) open the workers' database and
    message-bus connections."""
    setup.check()
    engine = sa.create_engine(database_url)
    with engine.connect() as connection:
        before = _in_progress(connection)
    warmup = min(warmup, len(signals) // 10)
    if warmup:
        loadgen.run_requests(setup.port, _put_signals(signals[:warmup]),
                             concurrency, time_limit, lambda s: s == 200)
        _wait_applied(engine, before, warmup, APPLY_TIMEOUT)
        signals = signals[warmup:]
        with engine.connect() as connection:
            before = _in_progress(connection)
    requests = _put_signals(signals)
    groups = stack.groups_for(setup)
    with stack.Monitor(groups) as monitor:
        result = loadgen.run_requests(setup.port, requests, concurrency,
                                      time_limit, lambda s: s == 200)
        accepted = result.statuses.get(200, 0)
        applied = _wait_applied(engine, before, accepted, APPLY_TIMEOUT)
        all_applied_after = time.monotonic() - result.last_response
    with engine.connect() as connection:
        results = dict(connection.execute(sa.text(
            'SELECT result, COUNT(*) FROM signal_inbox GROUP BY result'
        )).all())
    engine.dispose()
    setup.check()
    return _row(setup, 'signal burst', result, monitor, accepted=accepted,
                applied=applied, applied_after_s=all_applied_after,
                inbox=results)


def create_deployments(setup: stack.Setup,
                       creations: list[tuple[str, str, str]],
                       concurrency: int, time_limit: float) -> Row:
    """POST software_deployments with server-side derivation
    (``signal_transport``), each to a seeded server of its project."""
    setup.check()
    counter = itertools.count()

    def requests() -> Any:
        for project, server_id, config_id in creations:
            body = json.dumps({
                'config_id': config_id, 'server_id': server_id,
                'signal_transport': 'HEAT_SIGNAL', 'action': 'CREATE',
                'name': f'bench-created-{next(counter)}',
                'input_values': {'name': server_id, 'port': 9000},
            }).encode()
            yield ('POST', f'/v1/{project}/software_deployments',
                   {'Content-Type': 'application/json'}, body)

    groups = stack.groups_for(setup)
    with stack.Monitor(groups) as monitor:
        result = loadgen.run_requests(setup.port, requests(), concurrency,
                                      time_limit, lambda s: s < 300)
    setup.check()
    if result.errors:
        common.log(f'{setup.name}: {result.errors} creations failed; '
                   f'answers by status: {result.statuses}')
    return _row(setup, 'create deployments', result, monitor)


#: The labels of the list creation phase's rows.
ONE_BY_ONE = 'create {count} one by one'
IN_ONE_LIST = 'create {count} in one list'
BY_ROLLOUT = 'create {count} by a rollout'


def _creation_item(server_id: str, config_id: str, index: int) -> dict:
    return {'config_id': config_id, 'server_id': server_id,
            'signal_transport': 'HEAT_SIGNAL', 'action': 'CREATE',
            'name': f'bench-listed-{index}',
            'input_values': {'name': server_id, 'port': 9000}}


def list_creation(setup: stack.Setup, project: str, config_id: str,
                  count: int, concurrency: int,
                  time_limit: float, rollout_count: int = 0) -> list[Row]:
    """``count`` deployments made one POST each (``concurrency`` at a
    time), then ``count`` more in one POST of a list, each to a server of
    its own that the deployment registers (``project``'s): two rows whose
    "requests" are deployments, so their rates compare. The list's answer
    must hold every deployment, and its servers' documents theirs. Then,
    unless ``rollout_count`` is 0, a rollout to that many new servers."""
    setup.check()
    path = f'/v1/{project}/software_deployments'
    json_type = {'Content-Type': 'application/json'}

    def singles() -> Any:
        for index in range(count):
            body = _creation_item(f'bench-single-{index:06d}', config_id,
                                  index)
            yield 'POST', path, json_type, json.dumps(body).encode()

    groups = stack.groups_for(setup)
    with stack.Monitor(groups) as monitor:
        result = loadgen.run_requests(setup.port, singles(), concurrency,
                                      time_limit, lambda s: s == 200)
    rows = [_row(setup, ONE_BY_ONE.format(count=count), result, monitor)]
    if result.errors:
        common.log(f'{setup.name}: {result.errors} of the single POSTs '
                   f'failed; answers by status: {result.statuses}')
    items = [_creation_item(f'bench-listed-{index:06d}', config_id, index)
             for index in range(count)]
    base = f'http://{common.HOST}:{setup.port}'
    with stack.Monitor(groups) as monitor:
        started = time.monotonic()
        reply = requests.post(base + path, json=items, timeout=time_limit)
        seconds = time.monotonic() - started
    made = (reply.json().get('software_deployments', [])
            if reply.status_code == 200 else [])
    if len(made) != count:
        raise RuntimeError(f'{setup.name}: the list of {count} made '
                           f'{len(made)} deployments: {reply.status_code} '
                           f'{reply.text[:500]}')
    for row in (made[0], made[-1]):
        document = requests.get(
            f'{base}{path}/metadata/{row["server_id"]}', timeout=30).json()
        if [entry['id'] for entry in document['metadata']] != [
                row['config_id']]:
            raise RuntimeError(f'{setup.name}: server {row["server_id"]} '
                               f'lacks its listed deployment: {document}')
    listed = loadgen.Result(requests=count, seconds=seconds,
                            statuses={reply.status_code: 1},
                            p50_ms=seconds * 1000, p99_ms=seconds * 1000,
                            max_ms=seconds * 1000)
    rows.append(_row(setup, IN_ONE_LIST.format(count=count), listed,
                     monitor))
    ratio = listed.rate / result.rate if result.rate else float('inf')
    common.log(f'{setup.name}: {count} deployments one by one '
               f'{result.rate:.0f}/s, in one list {listed.rate:.0f}/s: '
               f'{ratio:.1f} x')
    if rollout_count:
        rows.append(_rollout_creation(setup, project, config_id,
                                      rollout_count, time_limit, groups))
    setup.check()
    return rows


def _rollout_creation(setup: stack.Setup, project: str, config_id: str,
                      count: int, time_limit: float,
                      groups: Any) -> Row:
    """A rollout to ``count`` new servers with max_concurrency 100%: the
    time from the request until every target is IN_PROGRESS (its
    deployment created and in its server's document; the answer comes
    once the creating engine wrote the first wave); the first and last
    servers' documents must hold their deployments."""
    base = f'http://{common.HOST}:{setup.port}/v1/{project}'
    servers = [f'bench-rolled-{index:06d}' for index in range(count)]
    first = _DocumentWatch(
        f'{base}/software_deployments/metadata/{servers[0]}')
    with stack.Monitor(groups) as monitor, first:
        started = time.monotonic()
        reply = requests.post(f'{base}/rollouts', json={
            'servers': servers, 'config_id': config_id,
            'signal_transport': 'HEAT_SIGNAL',
            'input_values': {'port': 9000},
            'max_concurrency': '100%'}, timeout=time_limit)
        rollout = reply.json().get('rollout', {}) if reply.ok else {}
        answered = time.monotonic() - started
        while (reply.ok and time.monotonic() - started < time_limit
               and (rollout.get('targets') or {}).get('IN_PROGRESS')
               != count):
            time.sleep(0.05)
            rollout = requests.get(f'{base}/rollouts/{rollout["id"]}',
                                   timeout=30).json()['rollout']
        seconds = time.monotonic() - started
    if (rollout.get('targets') or {}).get('IN_PROGRESS') != count:
        raise RuntimeError(f'{setup.name}: the rollout to {count} servers '
                           f'did not start them all: {reply.status_code} '
                           f'{reply.text[:500]}')
    for server_id in (servers[0], servers[-1]):
        document = requests.get(
            f'{base}/software_deployments/metadata/{server_id}',
            timeout=30).json()
        if len(document['metadata']) != 1:
            raise RuntimeError(f'{setup.name}: server {server_id} lacks '
                               f'its rollout deployment: {document}')
    if first.seen_at is None:
        raise RuntimeError(f'{setup.name}: {servers[0]} never showed its '
                           f'rollout deployment')
    first_seconds = first.seen_at - started
    rolled = loadgen.Result(requests=count, seconds=seconds,
                            statuses={reply.status_code: 1},
                            p50_ms=seconds * 1000, p99_ms=seconds * 1000,
                            max_ms=seconds * 1000)
    common.log(f'{setup.name}: a rollout to {count} servers: the first '
               f'deployment in its document after {first_seconds:.2f} s, '
               f'answered in {answered:.1f} s, every deployment created in '
               f'{seconds:.1f} s ({rolled.rate:.0f} deployments/s)')
    return _row(setup, BY_ROLLOUT.format(count=count), rolled, monitor,
                first_in_document_s=first_seconds, answered_s=answered)


class _DocumentWatch:
    """Reads a server's document (the tenant metadata view) every 10 ms
    in a thread, from before a request until it lists a deployment:
    ``seen_at`` is when it first did (monotonic)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.seen_at: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> '_DocumentWatch':
        self._thread.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _watch(self) -> None:
        with requests.Session() as session:
            while not self._stop.is_set():
                reply = session.get(self.url, timeout=30)
                if reply.ok and reply.json().get('metadata'):
                    self.seen_at = time.monotonic()
                    return
                self._stop.wait(0.01)


def idle_rss(setup: stack.Setup, seconds: float = 1.0) -> Row:
    """Memory at rest (after the load), for the memory targets."""
    groups = stack.groups_for(setup)
    with stack.Monitor(groups) as monitor:
        time.sleep(seconds)
    common.log(f'{setup.name}: idle sample taken')
    return _row(setup, 'idle', loadgen.Result(), monitor)
