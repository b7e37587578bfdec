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

"""Agents keep signalling while real processes fail
(doc/source/architecture.rst).

For each backend (a private MariaDB and a private PostgreSQL server, so
the machine's shared servers are never stopped) and a private RabbitMQ
node: ``swconfig-api`` with ``[api] workers = 2`` and two
``swconfig-engine`` processes. Each fault gets deployments of its own
(server-derived, HEAT_SIGNAL); agent threads PUT one signal each to its
signed URL, paced over a few seconds, retrying a 5xx or a broken
connection with back-off as heat-config-notify does, while the test
injects the fault with real processes:

* ``engine-sigkill``: SIGKILL one engine mid-run;
* ``api-worker-sigkill``: SIGKILL one API worker (the launcher respawns
  it);
* ``rabbitmq-stop``: ``rabbitmqctl stop_app``, then ``start_app``;
* ``database-stop``: stop the database server, then start it again;
* ``database-sigkill``: SIGKILL the database server, then start it
  again (crash recovery);
* ``no-engine``: SIGKILL both engines, signal, then start two engines:
  the signals were stored and are applied after.

Every signal carries an output value of its own, so the deployment shows
which signal was applied. Some deployments get a second signal with
another value while the fault runs, others their own signal again once
final: neither may be applied. Counted per fault: accepted (a 2xx),
applied (COMPLETE with the signal's own value), lost (accepted, not
applied), applied twice (two "Outputs received" events or two inbox
rows applied), non-2xx answers by code. The table is printed at
the end of the module (``pytest -s``) and written as JSON to
``$SWCONFIG_FAULT_REPORT`` when set.
"""

from collections.abc import Callable
import json
import os
import signal
import threading
import time

import pytest
import requests

from tests.fixtures import fault_agents
from tests.integration.faults.fault_rig import APPLIED
from tests.integration.faults.fault_rig import CONFIG
from tests.integration.faults.fault_rig import SETTLE_TIMEOUT
from tests.integration.faults.fault_rig import Rig

pytestmark = pytest.mark.integration

#: Agents signalling through each fault: 60 keeps CI short; the closing
#: note's run used SWCONFIG_FAULT_SIGNALS=300.
SIGNALS_PER_FAULT = int(os.environ.get('SWCONFIG_FAULT_SIGNALS', 60))
#: Seconds (at least) a broker or database outage lasts.
OUTAGE = 4.0

REPORT: dict[str, dict[str, dict]] = {}


# -- the faults ------------------------------------------------------------

def mid_run(run: fault_agents.Run) -> bool:
    return run.accepted >= len(run.signals) // 3


def kill_engine(rig: Rig, run: fault_agents.Run, notes: list[str]) -> None:
    """SIGKILL one engine right after it applied a signal: it is busy
    (the other engine shares the casts, and each cast covers every
    pending signal, so an idle victim would prove little)."""
    assert run.wait_for(mid_run, 60), 'no signal accepted before the fault'
    victim = rig.engines()[0]

    def applied() -> int:
        return victim.log_tail(100000).count(APPLIED)

    before = applied()
    busy = run.wait_for(lambda r: applied() > before, 10)
    victim.signal(signal.SIGKILL)
    victim.process.wait(30)
    assert victim.process.returncode == -signal.SIGKILL
    ids = [s.deployment_id for s in run.signals]
    notes.append(f'SIGKILLed engine pid {victim.process.pid} '
                 f'{"just after" if busy else "NOT seen"} applying a '
                 f'signal ({applied()} applied in all), after '
                 f'{run.accepted} accepted signals; '
                 f'{rig.pending_signals(ids)} stored signals pending')


def kill_api_worker(rig: Rig, run: fault_agents.Run, notes: list[str]) -> None:
    """SIGSTOP then SIGKILL one API worker, so it dies with requests in
    flight (the kernel hands it new connections until it is gone)."""
    before = rig.api_workers()
    assert run.wait_for(mid_run, 60), 'no signal accepted before the fault'
    victim = min(before)
    os.kill(victim, signal.SIGSTOP)
    started = time.monotonic()
    # Requests the kernel handed to the frozen worker wait: kill it with
    # some in flight (bounded; noted if not seen).
    stuck = run.wait_for(lambda r: r.tracker.in_flight >= 3, 10)
    notes.append(f'API worker frozen {time.monotonic() - started:.1f}s'
                 f'{"" if stuck else " (no requests seen stuck in it)"}')
    in_flight = run.tracker.in_flight
    os.kill(victim, signal.SIGKILL)
    after = rig.api_workers(gone=victim)
    notes.append(f'SIGKILLed API worker pid {victim} with {in_flight} '
                 f'requests in flight; the launcher respawned '
                 f'{sorted(after - before)}')


def probe_api(rig: Rig, run: fault_agents.Run) -> None:
    """Calls made during an outage, in the background (the outage ends
    on time whatever they do): an agent's metadata poll, a REST read (the
    database) and a REST write (an RPC call to an engine). Each must
    answer 2xx or 503 within the client's timeout, never 500."""
    deployment = run.signals[0].deployment_id
    calls = {
        'GET agent metadata': ('GET', run.metadata_url, None),
        'GET deployment': ('GET', f'/v1/{rig.project}/software_deployments/'
                                  f'{deployment}', None),
        'POST config': ('POST', f'/v1/{rig.project}/software_configs', {
            'name': 'probe', 'group': 'script', 'config': CONFIG,
            'inputs': [], 'outputs': [], 'options': {}}),
    }

    def call(name: str, method: str, path: str, body: dict | None) -> None:
        started = time.monotonic()
        try:
            answer = rig.stack.request(
                method, path, json=body,
                timeout=fault_agents.CLIENT_TIMEOUT).status_code
        except requests.Timeout:
            answer = 'timeout'
        except requests.ConnectionError:
            answer = 'connection error'
        run.probes[name] = (answer, round(time.monotonic() - started, 2))

    for name, (method, path, body) in calls.items():
        thread = threading.Thread(target=call, args=(name, method, path,
                                                     body), daemon=True)
        thread.start()
        run.threads.append(thread)


def _outage(rig: Rig, run: fault_agents.Run, notes: list[str],
            what: str) -> None:
    """Keep the outage OUTAGE seconds and until agents got some answers
    during it (bounded); probe the REST API meanwhile."""
    probe_api(rig, run)
    answers = run.tracker.answers
    started = time.monotonic()
    seen = run.wait_for(lambda r: r.tracker.answers >= answers + 10 and
                        time.monotonic() - started >= OUTAGE, 3 * OUTAGE)
    notes.append(f'{what} down {time.monotonic() - started:.1f}s, '
                 f'{run.tracker.answers - answers} answers meanwhile'
                 f'{"" if seen else " (fewer than 10)"}')


def stop_rabbitmq(rig: Rig, run: fault_agents.Run, notes: list[str]) -> None:
    assert run.wait_for(mid_run, 60), 'no signal accepted before the fault'
    rig.broker.stop_app()
    try:
        _outage(rig, run, notes, 'RabbitMQ')
    finally:
        rig.broker.start_app()


def stop_database(rig: Rig, run: fault_agents.Run, notes: list[str],
                  kill: bool = False) -> None:
    assert run.wait_for(mid_run, 60), 'no signal accepted before the fault'
    rig.server.stop(kill=kill)
    try:
        _outage(rig, run, notes, f'{rig.backend} server'
                                 f'{" (SIGKILL)" if kill else ""}')
    finally:
        rig.server.start()


def kill_database(rig: Rig, run: fault_agents.Run, notes: list[str]) -> None:
    """A crash: what the server acknowledged must survive recovery."""
    stop_database(rig, run, notes, kill=True)


def no_engine(rig: Rig, run: fault_agents.Run, notes: list[str]) -> None:
    """Both engines were killed before the agents started
    (``kill_all_engines``): every accepted signal is stored, none
    applied; then two engines start."""
    run.join()
    pending = rig.rows([s.deployment_id for s in run.signals])
    accepted = [s for s in run.signals if s.accepted]
    waiting = [s for s in accepted if pending[s.deployment_id]['status']
               == 'IN_PROGRESS' and pending[s.deployment_id]['inbox'] and
               not any(i['processed'] for i in
                       pending[s.deployment_id]['inbox'])]
    notes.append(f'{len(waiting)} of {len(accepted)} accepted signals '
                 f'stored and pending while no engine ran')
    assert len(waiting) == len(accepted) == len(run.signals), notes
    rig.ensure_engines()
    notes.append('started two engines')


def kill_all_engines(rig: Rig, notes: list[str]) -> None:
    for engine in rig.engines():
        engine.signal(signal.SIGKILL)
        engine.process.wait(30)
    notes.append('SIGKILLed both engines before the agents started')


FAULTS: dict[str, Callable[[Rig, fault_agents.Run, list[str]], None]] = {
    'engine-sigkill': kill_engine,
    'api-worker-sigkill': kill_api_worker,
    'rabbitmq-stop': stop_rabbitmq,
    'database-stop': stop_database,
    'database-sigkill': kill_database,
    'no-engine': no_engine,
}
BEFORE_AGENTS = {'no-engine': kill_all_engines}


# -- fixtures --------------------------------------------------------------


@pytest.fixture(scope='module', autouse=True)
def report():
    """Print the fault table once the module ran; write it as JSON to
    $SWCONFIG_FAULT_REPORT when set."""
    yield REPORT
    if not REPORT:
        return
    columns = ['signals', 'accepted', 'applied', 'lost', 'applied twice',
               'never accepted', 'second signals sent',
               'second signals answered 2xx', 'second signals refused 403',
               'second signals applied', 'replays sent', 'replays refused',
               'timeouts', 'slowest answer (s)', 'non-2xx by code',
               'calls during the outage']
    lines = ['', 'fault table (per backend and fault)',
             ' | '.join(['backend', 'fault', *columns])]
    for backend, faults in REPORT.items():
        for fault, row in faults.items():
            lines.append(' | '.join([backend, fault, *(
                json.dumps(row['table'].get(c, 0)) for c in columns)]))
    print('\n'.join(lines))
    path = os.environ.get('SWCONFIG_FAULT_REPORT')
    if path:
        with open(path, 'w') as handle:
            json.dump(REPORT, handle, indent=1, sort_keys=True)


# -- the test --------------------------------------------------------------

@pytest.mark.parametrize('fault', list(FAULTS))
def test_signals_survive_fault(rig, fault):
    signals = rig.deploy(SIGNALS_PER_FAULT, fault)
    for item in signals:
        if item.index % 10 == 3:
            item.duplicate_value = f'duplicate-{item.value}'
    notes: list[str] = []
    run = fault_agents.Run(signals)
    run.metadata_url = rig.stack.metadata_url(rig.project, signals[0].server)
    started = time.monotonic()
    failure = None
    try:
        if fault in BEFORE_AGENTS:
            BEFORE_AGENTS[fault](rig, notes)
        run.start()
        FAULTS[fault](rig, run, notes)
        run.join()
    except Exception as exc:
        # Count what happened anyway, so the table shows it; fail below.
        failure = exc
        notes.append(f'FAILED: {exc!r}'[:2000])
    finally:
        rig.restore()
    run.join()  # again: after a failed fault, agents may still be busy
    ids = [item.deployment_id for item in signals]
    settled, seconds = rig.wait_settled(ids, SETTLE_TIMEOUT)
    notes.append(f'{"settled" if settled else "NOT settled"} '
                 f'{seconds:.1f}s after the agents finished')
    if settled:
        # Each final deployment's own signal again: refused, not applied.
        for item in signals:
            if item.index % 10 == 7:
                item.replay_attempts = fault_agents.put_like_notify(
                    item.url, fault_agents.payload(item.value))
        replayed, _ = rig.wait_settled(ids, 30)
        notes.append('replays handled' if replayed
                     else 'replays NOT handled in 30s')
    result = fault_agents.tally(signals, rig.rows(ids))
    result['table']['seconds'] = round(time.monotonic() - started, 1)
    result['table']['calls during the outage'] = run.probes
    result['notes'] = notes
    # A few examples of each bad count are enough to start from.
    shown = dict(result, bad={k: v[:5] for k, v in result['bad'].items()})
    REPORT.setdefault(rig.backend, {})[fault] = shown
    table = result['table']
    context = (f'{rig.backend} {fault}: {json.dumps(shown, indent=1)}\n'
               f'{rig.stack.log_tail(30)}')
    if failure is not None:
        raise failure
    assert settled, context
    assert table['lost'] == 0, context
    assert table['applied twice'] == 0, context
    assert table['never accepted'] == 0, context
    assert table['applied'] == table['signals'], context
    assert table['second signals applied'] == 0, context
    assert table['replays refused'] == table['replays sent'] > 0, context
    assert table['timeouts'] == 0, context
    assert table['slowest answer (s)'] < fault_agents.CLIENT_TIMEOUT, context
    assert not result['bad'].get('5xx other than 503'), context
    assert not result['bad'].get('non-standard error body'), context
    assert '500' not in table['non-2xx by code'], context
    for name, (answer, _seconds) in run.probes.items():
        assert answer == 503 or fault_agents.ok(answer), (
            f'{name}: {answer}\n{context}')


def test_tally_sees_lost_doubled_and_500():
    """The counts above can fail: a lost signal, one applied twice, a
    second signal applied and a 500 are each counted."""
    def item(index, answers, duplicate=None):
        signal_ = fault_agents.Signal(
            index, f's{index}', f'd{index}', 'url', f'v{index}',
            [fault_agents.Attempt(code, 0.1) for code in answers])
        signal_.duplicate_value = duplicate
        return signal_

    def row(result, applied=1, results=('COMPLETE',)):
        return {'status': 'COMPLETE', 'result': result,
                'applied events': applied,
                'inbox': [{'result': r} for r in results]}

    signals = [item(0, [200]), item(1, [500, 200]), item(2, [200]),
               item(3, [200], duplicate='x'), item(4, ['timeout', 503])]
    rows = {'d0': row('v0'), 'd1': row('other'),
            'd2': row('v2', applied=2, results=('COMPLETE', 'COMPLETE')),
            'd3': row('x'), 'd4': dict(row(None), status='IN_PROGRESS')}
    table = fault_agents.tally(signals, rows)['table']
    assert (table['accepted'], table['applied']) == (4, 2)
    assert table['lost'] == 2  # d1 (someone else's value) and d3
    assert table['applied twice'] == 1
    assert table['second signals applied'] == 1
    assert table['never accepted'] == 1
    assert table['timeouts'] == 1
    assert table['non-2xx by code'] == {'500': 1, '503': 1, 'timeout': 1}
