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

"""The fault suite's outages, as clients see the answers: on the rig of
fault_rig.py (private RabbitMQ node, private database server,
``swconfig-api`` with two workers, two ``swconfig-engine`` processes).

* During a RabbitMQ outage with a write storm, agents' signals (which
  need no message bus) are all answered 2xx within 5 s, and the writes
  are answered 503 with Retry-After, promptly: none holds a request
  thread while it waits for the broker.
* With every engine stopped (one SIGTERMed, one SIGKILLed), a creation
  is answered 503 with Retry-After at once, naming that no engine runs,
  instead of after ``[engine] rpc_response_timeout`` (60 s here).
"""

import concurrent.futures
import json
import multiprocessing
import signal
import threading
import time
import uuid

import requests

from tests.fixtures import fault_agents
from tests.integration.faults.fault_rig import SETTLE_TIMEOUT

#: Every agent signal must be answered within this, outage or not.
SIGNAL_WITHIN = 5.0
#: A write refused because the bus or every engine is down must be
#: answered within this (the RPC timeout is 60 s).
REFUSED_WITHIN = 5.0
#: Clients hammering the API with creations, per storm process.
STORM_THREADS = 60
STORM_PROCESSES = 2
STORM_SECONDS = 10.0
SIGNALS = 20
#: When a killed engine no longer counts: three heartbeat intervals (5 s
#: by default), plus the API's one-second cache, plus margin.
ENGINE_GONE_AFTER = 3 * 5 + 1 + 2


def storm(url: str, body: dict, seconds: float, threads: int) -> list:
    """POST ``body`` to ``url`` from ``threads`` clients for ``seconds``,
    each again as soon as it is answered (after 0.1 s on a 503): in a
    process of its own, so the clients' threads do not slow the test's
    agents down. Returns (status, seconds, Retry-After, error type) per
    request."""
    answers: list = []
    stop_at = time.monotonic() + seconds

    def client() -> None:
        while time.monotonic() < stop_at:
            started = time.monotonic()
            try:
                reply = requests.post(url, json=body, timeout=90)
            except requests.RequestException as exc:
                answers.append((type(exc).__name__,
                                time.monotonic() - started, None, None))
                continue
            try:
                error_type = reply.json()['error']['type']
            except (ValueError, KeyError, TypeError):
                error_type = None
            answers.append((reply.status_code, time.monotonic() - started,
                            reply.headers.get('Retry-After'), error_type))
            if reply.status_code == 503:
                time.sleep(0.1)

    workers = [threading.Thread(target=client) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return answers


def _put_once(url: str, value: str) -> tuple[int | str, float]:
    started = time.monotonic()
    try:
        code = requests.put(url, json=fault_agents.payload(value),
                            timeout=fault_agents.CLIENT_TIMEOUT).status_code
    except requests.RequestException as exc:
        code = type(exc).__name__
    return code, time.monotonic() - started


def _summary(answers: list) -> dict:
    """Answers by (status, error type), and the slowest."""
    counts: dict[str, int] = {}
    for status, _seconds, _retry, error_type in answers:
        key = f'{status} {error_type or ""}'.strip()
        counts[key] = counts.get(key, 0) + 1
    return {'answers': counts,
            'slowest': round(max(a[1] for a in answers), 2)}


def test_bus_outage_write_storm_signals_answered(rig):
    signals = rig.deploy(SIGNALS, 'storm')
    creation = {'config_id': rig.config_id, 'server_id': 'storm-server',
                'input_values': {}, 'signal_transport': 'HEAT_SIGNAL'}
    url = f'{rig.stack.base_url}/v1/{rig.project}/software_deployments'
    rig.broker.stop_app()
    try:
        spawn = multiprocessing.get_context('spawn')
        with concurrent.futures.ProcessPoolExecutor(
                STORM_PROCESSES, mp_context=spawn) as pool:
            storms = [pool.submit(storm, url, creation, STORM_SECONDS,
                                  STORM_THREADS)
                      for _ in range(STORM_PROCESSES)]
            time.sleep(2)  # the storm is on (the processes start in ~1 s)
            # Agents signal over the storm's next seconds, each once.
            with concurrent.futures.ThreadPoolExecutor(SIGNALS) as agents:
                answered = list(agents.map(
                    lambda item: (time.sleep(item.index * 0.3),
                                  _put_once(item.url, item.value))[1],
                    signals))
            writes = [a for done in storms for a in done.result()]
    finally:
        rig.broker.start_app()
        rig.restore()
    report = json.dumps({'signals': answered, 'writes': _summary(writes)},
                        indent=1)
    assert all(fault_agents.ok(code) for code, _ in answered), report
    assert max(seconds for _, seconds in answered) < SIGNAL_WITHIN, report
    assert len(writes) > STORM_THREADS * STORM_PROCESSES, report
    for status, seconds, retry_after, error_type in writes:
        assert status == 503, report
        assert error_type == 'ServiceUnavailable', report
        assert retry_after is not None and retry_after.isdigit(), report
        assert seconds < REFUSED_WITHIN, report
    # The stored signals are applied once the bus is back.
    ids = [item.deployment_id for item in signals]
    settled, _ = rig.wait_settled(ids, SETTLE_TIMEOUT)
    assert settled, rig.rows(ids)
    assert {row['result'] for row in rig.rows(ids).values()} == {
        item.value for item in signals}


def test_no_engine_creation_is_503_at_once(rig):
    engines = rig.engines()
    assert len(engines) == 2
    configs = f'/v1/{rig.project}/software_configs'
    deployments = f'/v1/{rig.project}/software_deployments'
    creations = [
        (configs, {'name': 'n', 'group': 'script', 'config': 'true'}),
        (deployments, {'config_id': rig.config_id,
                       'server_id': f'no-engine-{uuid.uuid4().hex[:6]}'}),
    ]
    try:
        engines[0].signal(signal.SIGTERM)  # stops cleanly
        engines[1].signal(signal.SIGKILL)  # leaves its heartbeat behind
        for engine in engines:
            engine.process.wait(30)
        time.sleep(ENGINE_GONE_AFTER)
        for path, body in creations:
            started = time.monotonic()
            reply = rig.stack.request('POST', path, json=body, timeout=90)
            seconds = time.monotonic() - started
            assert reply.status_code == 503, reply.text
            assert seconds < REFUSED_WITHIN, (seconds, reply.text)
            assert reply.headers['Retry-After'].isdigit()
            error = reply.json()['error']
            assert error['type'] == 'ServiceUnavailable'
            assert error['message'].startswith('No engine is running'), (
                reply.text)
        # Reads and agents do not need an engine.
        listed = rig.stack.request('GET', configs)
        assert listed.status_code == 200, listed.text
    finally:
        rig.restore()
    # An engine again: creations work (after the API's one-second look).
    for path, body in creations:
        rig.stack._json('POST', path, json=body)
