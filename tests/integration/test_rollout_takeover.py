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

"""Two engines share rollouts through tooz (Redis): the owner of a
rollout is SIGKILLed mid-rollout and the other carries it on within
``[coordination] member_timeout``; every target runs exactly once.

A separate ``swconfig-api`` and two ``swconfig-engine`` processes on
MariaDB, RabbitMQ and the machine's Redis; the deployments are signalled
through the API's signal route, as agents with HEAT_SIGNAL do.
"""

import re
import signal
import time
import uuid

import pytest

from tests.fixtures import agent_stacks
from tests.fixtures import services
from tests.fixtures.waiting import wait_for

TARGETS = 30
MEMBER_TIMEOUT = 6
TIMEOUT = 90


@pytest.fixture(scope='module')
def stack(tmp_path_factory):
    services.ensure_redis()
    workdir = str(tmp_path_factory.mktemp('rollout-takeover'))
    with services.scratch_database('mysql') as url:
        with agent_stacks.separate_stack(
                workdir, url, services.RABBIT_URL, name='two-engines',
                sections={'coordination': {
                    'backend_url': 'redis://127.0.0.1:6379',
                    'member_timeout': MEMBER_TIMEOUT,
                    'group': f'swconfig-test-{uuid.uuid4().hex[:8]}'}},
        ) as stack:
            stack.start_engine().wait_for_log('listening on topic')
            yield stack


def _get(stack, path: str) -> dict:
    reply = stack.request('GET', path)
    assert reply.status_code == 200, reply.text
    return reply.json()


def _running(stack, project: str, rollout_id: str) -> list[dict]:
    return _get(stack, f'/v1/{project}/rollouts/{rollout_id}/targets'
                       f'?state=IN_PROGRESS')['targets']


def _signal(stack, project: str, deployment_id: str) -> None:
    reply = stack.request(
        'POST', f'/v1/{project}/software_deployments/{deployment_id}/signal',
        json={'deploy_status_code': 0})
    assert reply.status_code == 200, reply.text


def test_the_survivor_carries_the_rollout_on(stack):
    engines = [process for name, process in stack.processes.items()
               if name.startswith('engine')]
    assert len(engines) == 2
    project = f'project-{uuid.uuid4().hex[:8]}'
    config = stack.create_config(project, '#!/bin/sh\necho hi\n')
    servers = [f'{project}-s{index:02d}' for index in range(TARGETS)]
    reply = stack.request('POST', f'/v1/{project}/rollouts', json={
        'servers': servers, 'config_id': config['id'],
        'signal_transport': 'HEAT_SIGNAL', 'max_concurrency': '10%'})
    assert reply.status_code == 200, reply.text
    rollout_id = reply.json()['rollout']['id']

    # The second wave is started by the rollout's owner (the engine that
    # took the creation call started the first).
    for target in _running(stack, project, rollout_id):
        _signal(stack, project, target['deployment_id'])
    second_wave = re.compile(
        rf'Rollout {rollout_id}: started \d+ targets from position 3')
    owner = wait_for(
        lambda: next((engine for engine in engines
                      if second_wave.search(engine.log_tail(lines=5000))),
                     None), 30, 'the owner to start the second wave')
    owner.signal(signal.SIGKILL)
    owner.process.wait(10)
    killed_at = time.monotonic()

    signalled: set[str] = set()
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        for target in _running(stack, project, rollout_id):
            if target['deployment_id'] not in signalled:
                signalled.add(target['deployment_id'])
                _signal(stack, project, target['deployment_id'])
        shown = _get(stack, f'/v1/{project}/rollouts/{rollout_id}')[
            'rollout']
        if shown['finished_time']:
            break
        time.sleep(0.2)
    print(f'rollout over {time.monotonic() - killed_at:.1f} s after the '
          f'owner was killed (member_timeout {MEMBER_TIMEOUT} s)')
    assert shown['status'] == 'COMPLETE', (shown, stack.log_tail())
    assert shown['targets']['COMPLETE'] == TARGETS

    # Exactly once: one deployment per server, each the target's own.
    deployments = _get(stack, f'/v1/{project}/software_deployments')[
        'software_deployments']
    assert sorted(d['server_id'] for d in deployments) == servers
    targets = _get(stack, f'/v1/{project}/rollouts/{rollout_id}/targets')[
        'targets']
    assert sorted(t['deployment_id'] for t in targets) == sorted(
        d['id'] for d in deployments)
    waves = [event for event in _get(
        stack, f'/v1/{project}/rollouts/{rollout_id}/events')['events']
        if event['event'] == 'wave_started']
    assert sum(int(event['reason'].split()[1]) for event in waves) == (
        TARGETS)
