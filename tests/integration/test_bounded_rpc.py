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

"""Every RPC wait is bounded, and agents are served during an outage.

``swconfig-api`` and ``swconfig-engine`` run as real processes on a
private RabbitMQ node (so the test may stop it) and a scratch MariaDB
database. While the broker is stopped (``rabbitmqctl stop_app``):

* a request that needs an engine answers 503 with Retry-After within
  ``[engine] rpc_response_timeout`` (plus a margin), never hangs until the
  broker returns; once one has failed, the next ones are answered at
  once (the broker refuses connections);

while the broker is frozen (SIGSTOP: it accepts connections and answers
nothing, so requests do wait):

* with 40 such requests in flight, the agents' metadata polls and signals
  still answer promptly: at most ``[api] max_concurrent_project_requests``
  project requests hold a request thread, the others are refused at once;
* an API started while the broker is down (its first call must open the
  reply queue, which oslo.messaging retries forever) answers 503 in time
  too;

and once the broker is back (``start_app``) requests work again.

On a private MariaDB server, stopped while the engine needs it: the
engine's outage reaches the client as 503 DatabaseUnavailable, not as a
RemoteError's 500.
"""

from collections.abc import Callable
from collections.abc import Iterator
import concurrent.futures
import configparser
import contextlib
import os
import subprocess
import time
import uuid

import pytest
import requests

from tests.fixtures import agent_stacks
from tests.fixtures import private_db
from tests.fixtures import processes
from tests.fixtures import services

pytestmark = pytest.mark.integration

TIMEOUT = 8  # [engine] rpc_response_timeout
MARGIN = 5  # process scheduling on a busy test machine
THREADS = 16  # [api] threads; 0 limit -> 12 project requests at once
PROMPT = 3  # an agent's request, while project requests hang
CREATIONS = 40
HTTP_TIMEOUT = TIMEOUT + 30  # a hang shows as a failure, not a stuck test


def _write_config(workdir: str, db_url: str, transport_url: str,
                  topic: str, port: int) -> str:
    return processes.write_config(
        os.path.join(workdir, f'swconfig-{port}.conf'), {
            'DEFAULT': {'auth_strategy': 'noauth',
                        'transport_url': transport_url,
                        'state_path': os.path.join(workdir, 'state')},
            'agent': dict(agent_stacks.AGENT_OPTIONS, signing_keys=(
                f'{agent_stacks.SIGNING_KEY_ID}:'
                f'{agent_stacks.SIGNING_SECRET}')),
            'database': {'connection': db_url},
            'api': {'bind_host': processes.HOST, 'bind_port': port,
                    'threads': THREADS},
            # More send retries than the timeout allows: the timeout must
            # bound the call by itself.
            'engine': {'topic': topic, 'rpc_response_timeout': TIMEOUT,
                       'rpc_send_retries': 4},
        })


def _start_api(stack: agent_stacks.Stack, config_file: str, port: int,
               name: str) -> str:
    api = processes.SwconfigProcess('swconfig-api', config_file,
                                    stack.workdir)
    stack.processes[name] = api.start()
    base_url = f'http://{processes.HOST}:{port}'
    processes.wait_for_http(base_url + '/', api)
    return base_url


@contextlib.contextmanager
def _stack(workdir: str, db_url: str, transport_url: str
           ) -> Iterator[agent_stacks.Stack]:
    """swconfig-api and one swconfig-engine on *db_url* (schema created
    here) and *transport_url*, with the short RPC timeout."""
    port = processes.free_port()
    topic = f'swconfig-bounded-{uuid.uuid4().hex}'
    config_file = _write_config(workdir, db_url, transport_url, topic, port)
    subprocess.run([processes.script('swconfig-manage'), '--config-file',
                    config_file, 'db', 'sync'],
                   check=True, capture_output=True, timeout=120)
    stack = agent_stacks.Stack('bounded-rpc',
                               f'http://{processes.HOST}:{port}', db_url,
                               workdir, config_file, {})
    try:
        engine = stack.start_engine()
        _start_api(stack, config_file, port, 'api')
        engine.wait_for_log(processes.ENGINE_READY)
        yield stack
    finally:
        stack.stop()
        stack.close()


@pytest.fixture(scope='module')
def outage(tmp_path_factory) -> Iterator[
        tuple[agent_stacks.PrivateRabbitMQ, agent_stacks.Stack]]:
    """A stack on a private RabbitMQ node (which the test stops) and a
    scratch database of the machine's MariaDB."""
    workdir = str(tmp_path_factory.mktemp('bounded-rpc'))
    broker = agent_stacks.PrivateRabbitMQ(os.path.join(workdir, 'rabbitmq'))
    try:
        broker.start()
        with services.scratch_database('mysql') as db_url:
            with _stack(workdir, db_url, broker.url) as stack:
                yield broker, stack
    finally:
        broker.stop()


def _create_config(base_url: str, project: str) -> tuple[
        requests.Response, float, float]:
    """POST a software config (the API calls an engine): the answer, and
    when the request started and ended."""
    started = time.monotonic()
    reply = requests.post(f'{base_url}/v1/{project}/software_configs',
                          json={'name': 'bounded', 'group': 'script',
                                'config': '#!/bin/sh\n', 'inputs': [],
                                'outputs': [], 'options': {}},
                          timeout=HTTP_TIMEOUT)
    return reply, started, time.monotonic()


def _assert_unavailable(reply: requests.Response, elapsed: float,
                        context: str) -> None:
    detail = (f'{reply.status_code} after {elapsed:.1f}s: {reply.text}\n'
              f'{context}')
    assert reply.status_code == 503, detail
    assert int(reply.headers['Retry-After']) > 0, detail
    body = reply.json()
    assert body['code'] == 503, detail
    assert body['error']['type'] == 'ServiceUnavailable', detail
    assert elapsed < TIMEOUT + MARGIN, detail


def _wait_until_created(base_url: str, project: str,
                        context: Callable[[], str]) -> None:
    """After the broker is back, creations succeed again (engines and
    the API reconnect by themselves); until then they fail cleanly."""
    deadline = time.monotonic() + 90
    while True:
        reply, started, ended = _create_config(base_url, project)
        if reply.status_code == 200:
            return
        _assert_unavailable(reply, ended - started, context())
        if time.monotonic() > deadline:
            raise AssertionError(f'creations still fail 90s after the '
                                 f'broker came back: {reply.text}\n'
                                 f'{context()}')
        time.sleep(0.5)


def test_outage_bounded_and_agents_served(outage, project):
    broker, stack = outage
    server = f'server-{uuid.uuid4().hex[:8]}'
    config = stack.create_config(project, '#!/bin/sh\necho hi\n')
    deployments = [stack.deploy(project, config['id'], server)
                   for _ in range(2)]
    metadata_url = stack.metadata_url(project, server)
    signal_urls = [stack.signal_url(project, deployment)
                   for deployment in deployments]

    broker.stop_app()
    try:
        # (1) One creation: 503 with Retry-After, in time; the next ones
        # at once, the bus being known down.
        reply, started, ended = _create_config(stack.base_url, project)
        _assert_unavailable(reply, ended - started, stack.log_tail())
        for _ in range(3):
            reply, started, ended = _create_config(stack.base_url, project)
            _assert_unavailable(reply, ended - started, stack.log_tail())
            assert ended - started < PROMPT, reply.text
            assert 'message bus is unavailable' in reply.text, reply.text
    finally:
        broker.start_app()
    _wait_until_created(stack.base_url, project, stack.log_tail)

    broker.freeze()
    try:
        # (2) Forty creations at once; as soon as one is refused by the
        # concurrency bound, the others fill every project slot.
        with concurrent.futures.ThreadPoolExecutor(CREATIONS) as pool:
            creations = [pool.submit(_create_config, stack.base_url,
                                     project) for _ in range(CREATIONS)]
            for done in concurrent.futures.as_completed(creations):
                first = done.result()[0]
                if 'project requests' in first.text:
                    break
            else:
                raise AssertionError('no creation was refused by the '
                                     'concurrency bound')
            agent_answers = []
            for number in range(10):
                sent = time.monotonic()
                if number in (3, 7):  # each deployment signals once
                    answer = requests.put(signal_urls[number // 4], json={
                        'deploy_status_code': 0, 'deploy_stdout': 'hi\n'},
                        timeout=PROMPT)
                else:
                    answer = requests.get(metadata_url, timeout=PROMPT)
                agent_answers.append((answer.request.method,
                                      answer.status_code,
                                      time.monotonic() - sent))
            agents_done = time.monotonic()
            results = [creation.result() for creation in creations]

        answered = [(r.status_code, round(e - s, 1)) for r, s, e in results]
        context = (f'agent answers: {agent_answers}\ncreations: '
                   f'{answered}\n{stack.log_tail()}')
        assert all(code == 200 and elapsed < PROMPT
                   for _, code, elapsed in agent_answers), context
        for reply, started, ended in results:
            _assert_unavailable(reply, ended - started, context)
        # The agents were served while creations still waited.
        assert max(ended for _, _, ended in results) > agents_done, context
        refused = sum('project requests' in r.text for r, _, _ in results)
        assert CREATIONS - THREADS <= refused < CREATIONS, context
    finally:
        broker.thaw()

    # (3) The broker is back: creations work again, and the signals
    # stored during the outage are applied.
    _wait_until_created(stack.base_url, project, stack.log_tail)
    for deployment in deployments:
        applied = stack.wait_for_deployment(project, deployment['id'],
                                            timeout=60)
        assert applied['status'] == 'COMPLETE', applied


def test_api_started_during_the_outage_answers_in_time(outage, project):
    """Its first call opens the reply queue's connection, which
    oslo.messaging retries for as long as the broker is down."""
    broker, stack = outage
    port = processes.free_port()
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(stack.config_file)
    config_file = _write_config(stack.workdir, stack.db_url, broker.url,
                                parser['engine']['topic'], port)
    broker.stop_app()
    try:
        base_url = _start_api(stack, config_file, port, 'late-api')
        for _ in range(2):
            reply, started, ended = _create_config(base_url, project)
            _assert_unavailable(reply, ended - started, stack.log_tail())
    finally:
        broker.start_app()
    _wait_until_created(base_url, project, stack.log_tail)


# -- the engine's database is down ------------------------------------------

@pytest.fixture(scope='module')
def database_outage(tmp_path_factory) -> Iterator[
        tuple[private_db.PrivateDatabaseServer, agent_stacks.Stack]]:
    """A stack on a private MariaDB server (which the test stops) and the
    machine's RabbitMQ."""
    services.ensure_rabbitmq()
    workdir = str(tmp_path_factory.mktemp('engine-db-outage'))
    with private_db.private_database(
            'mysql', os.path.join(workdir, 'mariadb')) as (server, db_url):
        with _stack(workdir, db_url, services.RABBIT_URL) as stack:
            yield server, stack


def test_engine_database_outage_is_503(database_outage, project):
    """Only swconfig's exceptions cross RPC with their class: the engine
    turns the outage into DatabaseUnavailable, else the API would answer
    a RemoteError with 500."""
    server, stack = database_outage
    stack.create_config(project, '#!/bin/sh\n')  # pools are warm
    (engine,) = [process for name, process in stack.processes.items()
                 if name.startswith('engine')]
    server.stop()
    try:
        reply, started, ended = _create_config(stack.base_url, project)
        context = f'{reply.text}\n{stack.log_tail()}'
        _assert_unavailable(reply, ended - started, context)
        assert reply.json()['error']['message'].startswith(
            'The database is unavailable'), context
        # The engine met the outage (the API does not read the database
        # to create a config).
        engine.wait_for_log('the database is unavailable', timeout=10)
    finally:
        server.start()
    _wait_until_created(stack.base_url, project, stack.log_tail)
