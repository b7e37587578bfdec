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

"""``/healthcheck`` reports the database and the message bus, for real.

swconfig-api and an engine run on a private MariaDB server and a private
RabbitMQ node, which the test stops and starts again: a load balancer
must see the worker fail (503) while either is down and come back after.
"""

import configparser
import contextlib
import os
import time

import pytest
import requests

from tests.fixtures import agent_stacks
from tests.fixtures import private_db
from tests.fixtures import processes

#: Bound on how long the health check may take to see a change.
SEES_WITHIN = 30


@pytest.fixture(scope='module')
def outage_stack(tmp_path_factory):
    workdir = str(tmp_path_factory.mktemp('healthcheck'))
    with contextlib.ExitStack() as cleanup:
        broker = agent_stacks.PrivateRabbitMQ(os.path.join(workdir, 'mq'))
        broker.start()
        cleanup.callback(broker.stop)
        server, db_url = cleanup.enter_context(private_db.private_database(
            'mysql', os.path.join(workdir, 'mariadb')))
        stack = cleanup.enter_context(agent_stacks.separate_stack(
            os.path.join(workdir, 'stack'), db_url, broker.url,
            name='healthcheck'))
        yield stack, server, broker


def _health(stack) -> tuple[int, list[str]]:
    reply = requests.get(stack.base_url + '/healthcheck', timeout=10,
                         headers={'Accept': 'application/json'})
    assert reply.headers['x-openstack-request-id'].startswith('req-')
    assert 'reasons' in reply.json(), reply.text
    return reply.status_code, reply.json()['reasons']


def _wait_for(stack, status: int) -> list[str]:
    deadline = time.monotonic() + SEES_WITHIN
    while True:
        code, reasons = _health(stack)
        if code == status:
            return reasons
        if time.monotonic() > deadline:
            raise AssertionError(f'/healthcheck still answers {code} '
                                 f'({reasons}), not {status}\n'
                                 f'{stack.log_tail()}')
        time.sleep(0.2)


#: Every check's reason when all is well (no Swift or Zaqar configured).
HEALTHY = ['database OK', 'message bus OK', 'transports OK']


def test_healthy_without_a_token(outage_stack):
    stack, _server, _broker = outage_stack
    code, reasons = _health(stack)
    assert code == 200
    assert sorted(reasons) == HEALTHY
    head = requests.head(stack.base_url + '/healthcheck', timeout=10)
    assert head.status_code == 204


def test_database_down_is_unhealthy(outage_stack):
    stack, server, _broker = outage_stack
    server.stop()
    try:
        reasons = _wait_for(stack, 503)
        assert 'database unavailable' in reasons
        assert 'message bus OK' in reasons
    finally:
        server.start()
    assert sorted(_wait_for(stack, 200)) == HEALTHY


def test_message_bus_down_is_unhealthy(outage_stack):
    stack, _server, broker = outage_stack
    broker.stop_app()
    try:
        reasons = _wait_for(stack, 503)
        assert 'message bus unavailable' in reasons
        assert 'database OK' in reasons
    finally:
        broker.start_app()
    assert sorted(_wait_for(stack, 200)) == HEALTHY


def test_api_started_while_the_database_is_down_answers_503_at_once(
        outage_stack, tmp_path, project):
    """A worker started during the outage answers 503 with Retry-After
    at once (it used to retry connecting for 100 s per request), then
    serves once the database is back."""
    stack, server, _broker = outage_stack
    config = configparser.ConfigParser(interpolation=None)
    config.read(stack.config_file)
    port = processes.free_port()
    config['api']['bind_port'] = str(port)
    config_file = str(tmp_path / 'late-api.conf')
    with open(config_file, 'w') as handle:
        config.write(handle)
    server.stop()
    late = processes.SwconfigProcess('swconfig-api', config_file,
                                     str(tmp_path))
    try:
        late.start()
        base_url = f'http://{processes.HOST}:{port}'
        processes.wait_for_http(base_url + '/', late, timeout=60)
        started = time.monotonic()
        reply = requests.get(f'{base_url}/v1/{project}/software_configs',
                             timeout=30)
        elapsed = time.monotonic() - started
        assert reply.status_code == 503, reply.text
        assert reply.headers['Retry-After'].isdigit()
        assert reply.headers['x-openstack-request-id'].startswith('req-')
        assert reply.json()['error']['message'].startswith(
            'The database is unavailable')
        assert elapsed < 10, elapsed
    finally:
        server.start()
    try:
        deadline = time.monotonic() + SEES_WITHIN
        while True:
            reply = requests.get(
                f'{base_url}/v1/{project}/software_configs', timeout=30)
            if reply.status_code == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert reply.status_code == 200, reply.text
    finally:
        late.stop()
