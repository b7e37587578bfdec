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

"""A rollout over a server group of 1,000 servers, each answered by a
simulated agent that polls its signed metadata URL and POSTs the signal
to the signed ``deploy_signal_id`` it finds there
(tests/fixtures/stack_agents.py), on the production-like agent-path
stack: a separate API and engine on MariaDB and RabbitMQ. (The waves'
bounds on every backend, SQLite and PostgreSQL too, are the rollout API
tests' in tests/functional/api/test_rollouts.py, with 30 targets: a
thousand agents on each backend would cost the suite a minute more.)

``max_concurrency`` 10% must never let more than 100 deployments be
IN_PROGRESS at once: checked from the deployments' events in the
database (the API shows their times in whole seconds, as Heat does; the
rows keep microseconds), i.e. from when each deployment was created and
when its signal completed it, not from the engine's own bookkeeping.
"""

import concurrent.futures
import time
import uuid

import pytest
import sqlalchemy as sa

from tests.fixtures import stack_agents
from tests.fixtures.agent_stacks import agent_stack  # noqa: F401

SERVERS = 1000
MOST = 100  # 10% of SERVERS
TIMEOUT = 180


def _metadata_url(stack, project: str, server_id: str) -> str:
    """Register the server to the project (as its first agent-config
    read does) and return its signed metadata URL."""
    return stack.metadata_url(project, server_id)


def _lifetimes(stack, deployment_ids: list[str]) -> dict[str, list]:
    """Each deployment's event times and statuses, oldest first."""
    query = sa.text(
        'SELECT deployment_id, created_at, new_status FROM deployment_event '
        'WHERE deployment_id IN :ids ORDER BY id'
    ).bindparams(sa.bindparam('ids', expanding=True))
    events: dict[str, list] = {ident: [] for ident in deployment_ids}
    with stack.db.connect() as connection:
        for start in range(0, len(deployment_ids), 500):
            chunk = deployment_ids[start:start + 500]
            for row in connection.execute(query, {'ids': chunk}):
                events[row.deployment_id].append(
                    (row.created_at, row.new_status))
    return events


def peak_in_progress(events: dict[str, list]) -> int:
    """The most deployments IN_PROGRESS at one instant, from each one's
    IN_PROGRESS event to its first final one. At equal times an end
    counts before a start: the engine starts a target only once it has
    seen another end."""
    changes = []
    for ident, timeline in events.items():
        started = next(moment for moment, status in timeline
                       if status == 'IN_PROGRESS')
        ended = next(moment for moment, status in timeline
                     if status in ('COMPLETE', 'FAILED'))
        assert ended >= started, (ident, timeline)
        changes += [(started, 1), (ended, -1)]
    running = peak = 0
    for _moment, change in sorted(changes):
        running += change
        peak = max(peak, running)
    return peak


@pytest.mark.parametrize('agent_stack', ['separate-mariadb'], indirect=True)
def test_a_thousand_agents_in_waves_of_ten_percent(agent_stack):  # noqa: F811
    stack = agent_stack
    project = f'fleet-{uuid.uuid4().hex[:8]}'
    config = stack.create_config(project, '#!/bin/sh\necho deployed\n')
    names = [f'{project}-{index:04d}' for index in range(SERVERS)]
    registering = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        urls = dict(zip(names, pool.map(
            lambda name: _metadata_url(stack, project, name), names),
            strict=True))
    print(f'registered in {time.monotonic() - registering:.1f} s')
    reply = stack.request('POST', f'/v1/{project}/server_groups',
                          json={'name': 'fleet', 'servers': names})
    assert reply.status_code == 200, reply.text
    group = reply.json()['server_group']

    with stack_agents.SimulatedAgents(urls, workers=16) as agents:
        began = time.monotonic()
        reply = stack.request('POST', f'/v1/{project}/rollouts', json={
            'server_group': group['id'], 'config_id': config['id'],
            'max_concurrency': '10%', 'max_errors': 0})
        assert reply.status_code == 200, reply.text
        rollout = reply.json()['rollout']
        deadline = time.monotonic() + TIMEOUT
        while rollout['finished_time'] is None:
            assert time.monotonic() < deadline, (rollout, stack.log_tail())
            reply = stack.request(
                'GET', f'/v1/{project}/rollouts/{rollout["id"]}?wait=10')
            assert reply.status_code == 200, reply.text
            rollout = reply.json()['rollout']
        took = time.monotonic() - began
    print(f'{stack.name}: {SERVERS} servers in waves of {MOST}: '
          f'{rollout["status"]} in {took:.1f} s')

    assert rollout['status'] == 'COMPLETE', (rollout, stack.log_tail())
    assert rollout['targets']['COMPLETE'] == SERVERS, rollout
    assert agents.errors == []
    # Every agent ran its deployment, once.
    assert all(len(ids) == 1 for ids in agents.answered.values())

    targets = []
    marker = ''
    while True:
        page = stack.request(
            'GET', f'/v1/{project}/rollouts/{rollout["id"]}/targets'
                   f'?limit=500{marker}').json()['targets']
        if not page:
            break
        targets += page
        marker = f'&marker={page[-1]["position"]}'
    # By server id (a group), each its server's ordinary deployment.
    assert [target['server_id'] for target in targets] == names
    events = _lifetimes(stack, [t['deployment_id'] for t in targets])
    peak = peak_in_progress(events)
    print(f'{stack.name}: at most {peak} deployments IN_PROGRESS at once')
    assert peak <= MOST
    # The waves were as wide as allowed, not one target at a time.
    assert peak > MOST // 2
