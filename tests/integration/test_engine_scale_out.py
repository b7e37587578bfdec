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

"""Two engines share the Swift signal containers through tooz (Redis).

A separate ``swconfig-api`` and two ``swconfig-engine`` processes on
MariaDB, RabbitMQ, the real Swift and the machine's Redis as the
coordination backend. Each engine logs the signal containers it lists;
together they cover every container, and no container twice. After one
engine is SIGKILLed the survivor takes its containers over within
``[coordination] member_timeout``, every deployment completes, and none
has its signal applied twice.
"""

from concurrent import futures
import re
import signal
import time
import uuid

import pytest
import requests

from tests.fixtures import agent_stacks
from tests.fixtures import services
from tests.fixtures.waiting import wait_for

DEPLOYMENTS = 200
MEMBER_TIMEOUT = 6
OWNED = re.compile(r'Signal containers this engine lists: (\d+) of (\d+) '
                   r'\(([\d,]*|none)\)')


@pytest.fixture(scope='module')
def stack(swift, tmp_path_factory):
    services.ensure_redis()
    workdir = str(tmp_path_factory.mktemp('scale-out'))
    with services.scratch_database('mysql') as url:
        with agent_stacks.separate_stack(
                workdir, url, services.RABBIT_URL, name='two-engines',
                default={'default_deployment_signal_transport':
                         'TEMP_URL_SIGNAL'},
                sections={
                    'swift': {'auth_url': swift.auth_url,
                              'user': swift.user, 'key': swift.key,
                              'temp_url_key': swift.temp_url_key,
                              'signal_poll_interval': 0.5},
                    'coordination': {
                        'backend_url': 'redis://127.0.0.1:6379',
                        'member_timeout': MEMBER_TIMEOUT,
                        'group': f'swconfig-test-{uuid.uuid4().hex[:8]}'},
                }) as stack:
            stack.start_engine().wait_for_log('listening on topic')
            yield stack


def owned_by(engine) -> set[int] | None:
    """The containers the engine's last ownership line names."""
    matches = OWNED.findall(engine.log_tail(lines=5000))
    if not matches:
        return None
    _count, _total, shards = matches[-1]
    return set() if shards == 'none' else {int(s) for s in shards.split(',')}


def engines(stack):
    return [proc for name, proc in stack.processes.items()
            if name.startswith('engine')]


def signal_url(stack, project, deployment):
    return stack.signal_url(project, deployment)


def test_two_engines_split_the_work_and_survive_a_kill(stack):
    first, second = engines(stack)

    def split():
        a, b = owned_by(first), owned_by(second)
        return (a is not None and b is not None and a and b
                and not a & b and a | b == set(range(32))) and (a, b)

    owned_a, owned_b = wait_for(split, 3 * MEMBER_TIMEOUT,
                                'containers split between two engines')

    project = f'project-{uuid.uuid4().hex[:8]}'
    config = stack.create_config(project, '#!/bin/sh\necho hi\n')
    with futures.ThreadPoolExecutor(8) as pool:
        deployments = list(pool.map(
            lambda i: stack.deploy(project, config['id'],
                                   f'server-{uuid.uuid4().hex[:10]}',
                                   signal_transport='TEMP_URL_SIGNAL'),
            range(DEPLOYMENTS)))
        urls = list(pool.map(lambda d: signal_url(stack, project, d),
                             deployments))

    def put(url):
        reply = requests.put(url, json={'deploy_status_code': 0,
                                        'deploy_stdout': 'hi'}, timeout=10)
        assert reply.status_code == 201, reply.text

    half = DEPLOYMENTS // 2
    with futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(put, urls[:half]))
    for deployment in deployments[:half]:
        stack.wait_for_deployment(project, deployment['id'], timeout=60)

    killed_at = time.monotonic()
    second.signal(signal.SIGKILL)
    second.process.wait(10)
    with futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(put, urls[half:]))
    wait_for(lambda: owned_by(first) == set(range(32)),
             MEMBER_TIMEOUT + 10, 'survivor owns every container')
    takeover = time.monotonic() - killed_at
    assert takeover <= MEMBER_TIMEOUT + 5, takeover
    print(f'takeover after SIGKILL: {takeover:.1f} s '
          f'(member_timeout {MEMBER_TIMEOUT} s)')

    for deployment in deployments:
        final = stack.wait_for_deployment(project, deployment['id'],
                                          timeout=60)
        assert final['status'] == 'COMPLETE', final
    duplicates = 0
    for deployment in deployments:
        inbox = stack.inbox(deployment['id'])
        applied = [row for row in inbox if row['result'] == 'COMPLETE']
        duplicates += len(applied) - 1
        assert len(inbox) == 1, inbox
        events = stack.events(project, deployment['id'])
        assert [(e['old_status'], e['new_status']) for e in events] == [
            (None, 'IN_PROGRESS'), ('IN_PROGRESS', 'COMPLETE')], events
    assert duplicates == 0
    assert owned_a and owned_b
