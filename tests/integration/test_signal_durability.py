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

"""Signals are durable before they are acknowledged, and only the signal
URL of the current action changes a deployment (doc/source/architecture.rst).

* An engine killed (SIGKILL) after the API accepted a signal and before
  any engine applied it: a new engine applies it, exactly once.
* RabbitMQ unavailable while an agent signals, stopped or frozen (open
  connections, no answers): the API still stores and promptly
  acknowledges the signal, and it is applied. These run on a private
  RabbitMQ node (the machine's shared broker is never touched).
* Replayed, forged, truncated, misdirected tokens and wrong revisions are
  refused and change nothing (on both backends).
"""

import json
import signal
import time
import uuid

import pytest
import requests

from tests.fixtures import agent_stacks
from tests.fixtures import agents

# The session fixture ``agent_stack`` (one stack per backend, shared by
# the agent-path modules): a plugin is registered once, so both modules
# get the same two stacks.
pytest_plugins = ['tests.fixtures.agent_stacks']

SCRIPT = '''#!/bin/sh
echo "hello $greeting"
printf '%s' "result-$greeting" > "$heat_outputs_path.result"
'''
INPUTS = [{'name': 'greeting', 'type': 'String', 'default': 'nobody'}]
OUTPUTS = [{'name': 'result', 'type': 'String'}]
# An agent's signal PUT must be answered within this many seconds.
PROMPT = 10


def dump(value):
    return json.dumps(value, indent=1, sort_keys=True, default=str)


def expected_outputs(greeting):
    return {'result': f'result-{greeting}',
            'deploy_stdout': f'hello {greeting}\n', 'deploy_stderr': '',
            'deploy_status_code': 0}


def transitions(events):
    return [(e['old_status'], e['new_status'], e['reason'])
            for e in events]


def deploy_greeting(stack, project, server, greeting):
    config = stack.create_config(project, SCRIPT, INPUTS, OUTPUTS,
                                 name='greeting')
    return stack.deploy(project, config['id'], server,
                        {'greeting': greeting})


def wait_for_log(process, text, context, timeout=15):
    deadline = time.monotonic() + timeout
    while text not in process.log_tail(1000):
        if time.monotonic() > deadline:
            raise AssertionError(f'{process.name} never logged {text!r}\n'
                                 f'{context}\n{process.log_tail()}')
        time.sleep(0.2)


def wait_processed(stack, deployment_id, count, timeout=15):
    """Wait until *count* stored signals have been handled."""
    deadline = time.monotonic() + timeout
    while True:
        rows = stack.inbox(deployment_id)
        if len(rows) >= count and all(r['processed_at'] for r in rows):
            return rows
        if time.monotonic() > deadline:
            raise AssertionError(f'stored signals not handled: {dump(rows)}'
                                 f'\n{stack.log_tail()}')
        time.sleep(0.2)


def assert_applied_once(stack, project, deployment, greeting, context):
    """COMPLETE with the outputs, one applied signal, one transition;
    still so after a few more sweeps."""
    final = stack.wait_for_deployment(project, deployment['id'])
    context = f'{context}\n--- final deployment ---\n{dump(final)}'
    assert final['status'] == 'COMPLETE', context
    assert final['status_reason'] == 'Outputs received', context
    assert final['output_values'] == expected_outputs(greeting), context
    # Once every stored signal is processed, none can be applied again.
    inbox = wait_processed(stack, deployment['id'], 1)
    events = stack.events(project, deployment['id'])
    context += (f'\n--- events ---\n{dump(events)}\n--- inbox ---\n'
                f'{dump(inbox)}\n{stack.log_tail()}')
    assert transitions(events) == [
        (None, 'IN_PROGRESS', 'Deploy data available'),
        ('IN_PROGRESS', 'COMPLETE', 'Outputs received')], context
    assert [row['result'] for row in inbox] == ['COMPLETE'], context
    assert inbox[0]['processed_at'] is not None, context
    assert stack.deployment(project, deployment['id']) == final, context
    return final


# -- (a) an engine dies between "accepted" and "applied" ------------------

def test_signal_survives_engine_killed_before_applying_it(tmp_path,
                                                          project):
    with agent_stacks.mariadb_stack(str(tmp_path / 'stack')) as stack:
        server = f'server-{uuid.uuid4().hex[:8]}'
        deployment = deploy_greeting(stack, project, server, 'durable')
        url = stack.metadata_url(project, server)
        agent = agents.Agent(tmp_path / 'agent')
        engine = stack.processes['engine-0']

        engine.signal(signal.SIGSTOP)
        try:
            run = agent.run_once(url)
            context = f'--- agent run (engine stopped) ---\n{run}'
            assert run.returncode == 0, context
            assert 'Response <Response [200]>' in run.output, context
            stored = stack.inbox(deployment['id'])
            assert [row['payload'] for row in stored] == [
                agent.notify_data(deployment['config_id'])], context
            # No engine can apply it: accepted, not applied.
            assert stored[0]['processed_at'] is None, context
            pending = stack.deployment(project, deployment['id'])
            assert pending['status'] == 'IN_PROGRESS', dump(pending)
        finally:
            engine.signal(signal.SIGKILL)
            engine.process.wait(30)
        assert engine.process.returncode == -signal.SIGKILL

        stack.start_engine()
        assert_applied_once(stack, project, deployment, 'durable', context)


# -- (b) RabbitMQ unavailable while an agent signals ----------------------

@pytest.fixture(scope='module')
def private_rabbit(tmp_path_factory):
    """A private RabbitMQ node and a MariaDB stack that uses it."""
    workdir = tmp_path_factory.mktemp('private-rabbitmq')
    broker = agent_stacks.PrivateRabbitMQ(workdir / 'rabbitmq')
    try:
        broker.start()
        with agent_stacks.mariadb_stack(str(workdir / 'stack'),
                                        transport_url=broker.url) as stack:
            yield broker, stack
    finally:
        broker.stop()


def test_signal_is_accepted_and_applied_while_rabbitmq_is_stopped(
        private_rabbit, project, tmp_path):
    broker, stack = private_rabbit
    server = f'server-{uuid.uuid4().hex[:8]}'
    deployment = deploy_greeting(stack, project, server, 'offline')
    url = stack.metadata_url(project, server)  # an RPC call: broker up
    agent = agents.Agent(tmp_path / 'agent')

    broker.stop_app()
    try:
        run = agent.run_once(url, timeout=90)
        context = f'--- agent run (RabbitMQ stopped) ---\n{run}'
        assert run.returncode == 0, context
        assert 'Response <Response [200]>' in run.output, context
        stored = stack.inbox(deployment['id'])
        assert [row['payload'] for row in stored] == [
            agent.notify_data(deployment['config_id'])], context
        # The cast really failed: the API fell back on the sweep.
        wait_for_log(stack.processes['api'],
                     f'Could not hand stored signal {stored[0]["id"]} ',
                     context)
    finally:
        broker.start_app()
    assert_applied_once(stack, project, deployment, 'offline', context)


def test_signal_is_answered_promptly_while_rabbitmq_is_unresponsive(
        private_rabbit, project):
    """A broker that keeps its TCP connections but answers nothing (frozen
    or overloaded node, VM paused, packets dropped by a partition). The
    signal is stored before the cast, so the agent must get its answer
    without waiting for the broker: heat-config-notify has no timeout at
    all, so a hanging PUT stalls the whole agent (and every stuck request
    holds one of the API's threads)."""
    broker, stack = private_rabbit
    server = f'server-{uuid.uuid4().hex[:8]}'
    deployment = deploy_greeting(stack, project, server, 'frozen')
    signal_url = stack.signal_url(project, deployment)
    metadata_url = stack.metadata_url(project, server)
    payload = expected_outputs('frozen')

    broker.freeze()
    try:
        # The agent's hot path needs no broker at all.
        assert requests.get(metadata_url, timeout=PROMPT).status_code == 200
        started = time.monotonic()
        try:
            reply = requests.put(signal_url, json=payload, timeout=PROMPT)
        except requests.Timeout:
            reply = None
        elapsed = time.monotonic() - started
        stored = stack.inbox(deployment['id'])
        context = (f'signal PUT answered '
                   f'{"nothing" if reply is None else reply.status_code} '
                   f'after {elapsed:.1f}s while RabbitMQ was unresponsive; '
                   f'stored signals: {dump(stored)}\n{stack.log_tail()}')
        assert reply is not None, context
        assert reply.status_code == 200, f'{reply.text}\n{context}'
        assert [row['payload'] for row in stored] == [payload], context
    finally:
        broker.thaw()
    assert_applied_once(stack, project, deployment, 'frozen', context)


# -- (c) only the current action's signed URL changes anything ------------

@pytest.fixture
def stack(agent_stack):
    """The shared stack of this test's backend (embedded-sqlite or
    separate-mariadb)."""
    return agent_stack


def split_signal_url(url):
    """(base URL without query, revision, token)."""
    base, _, query = url.partition('?')
    params = dict(part.split('=', 1) for part in query.split('&'))
    return base, params['revision'], params['token']


def snapshot(stack, project, deployment_id):
    return {'deployment': stack.deployment(project, deployment_id),
            'events': stack.events(project, deployment_id),
            'inbox': stack.inbox(deployment_id)}


def test_bad_signal_tokens_are_refused_and_change_nothing(stack, project):
    server = f'server-{uuid.uuid4().hex[:8]}'
    target = deploy_greeting(stack, project, server, 'target')
    bystander = deploy_greeting(stack, project, server, 'bystander')
    url = stack.signal_url(project, target)
    base, revision, token = split_signal_url(url)
    other_base, other_revision, other_token = split_signal_url(
        stack.signal_url(project, bystander))
    key_id, _, mac = token.partition('.')
    # The tokens below are made the way the server makes them.
    assert stack.sign('signal', target['id'], revision) == token
    # Right key id and message, wrong secret.
    forged = agent_stacks.make_token(key_id, b'forged-' + b'x' * 32,
                                     'signal', target['id'], revision)
    before = {d['id']: snapshot(stack, project, d['id'])
              for d in (target, bystander)}
    payload = {'result': 'evil', 'deploy_stdout': 'pwned\n',
               'deploy_stderr': '', 'deploy_status_code': 0}
    attempts = {
        'no token': f'{base}?revision={revision}',
        'empty token': f'{base}?revision={revision}&token=',
        'no revision': f'{base}?token={token}',
        'truncated token': f'{base}?revision={revision}&token={token[:-6]}',
        'key id only': f'{base}?revision={revision}&token={key_id}.',
        'token plus a byte': f'{base}?revision={revision}&token={token}A',
        'forged with another secret':
            f'{base}?revision={revision}&token={forged}',
        'unknown key id':
            f'{base}?revision={revision}&token=other-key.{mac}',
        'bystander token on target URL':
            f'{base}?revision={other_revision}&token={other_token}',
        'target token on bystander URL':
            f'{other_base}?revision={revision}&token={token}',
        'wrong revision': f'{base}?revision={int(revision) + 1}'
                          f'&token={token}',
        'revision not a number': f'{base}?revision=one&token={token}',
    }
    answers = {}
    for name, bad_url in attempts.items():
        reply = requests.put(bad_url, json=payload, timeout=30)
        answers[name] = (reply.status_code, reply.text)
    unknown = requests.put(
        base.replace(target['id'], str(uuid.uuid4())) +
        f'?revision={revision}&token={token}', json=payload, timeout=30)
    answers['unknown deployment'] = (unknown.status_code, unknown.text)
    context = f'--- answers ---\n{dump(answers)}'

    for name, (status, _text) in answers.items():
        expected = (404,) if name == 'unknown deployment' else (401, 403)
        assert status in expected, f'{name}: {status}\n{context}'
    for deployment_id, was in before.items():
        now = snapshot(stack, project, deployment_id)
        assert now == was, (f'{deployment_id} changed:\n{dump(was)}\n'
                            f'{dump(now)}\n{context}')
        assert now['deployment']['status'] == 'IN_PROGRESS'

    # The genuine URL still works: the refusals were not for lack of a
    # live deployment.
    genuine = requests.put(url, json=expected_outputs('target'), timeout=30)
    assert genuine.status_code == 200, genuine.text
    done = stack.wait_for_deployment(project, target['id'])
    assert done['output_values'] == expected_outputs('target'), dump(done)
    assert snapshot(stack, project, bystander['id']) == before[
        bystander['id']]


def test_replayed_and_stale_signals_are_recorded_not_applied(stack,
                                                             project):
    server = f'server-{uuid.uuid4().hex[:8]}'
    deployment = deploy_greeting(stack, project, server, 'replay')
    url = stack.signal_url(project, deployment)
    base, revision, _token = split_signal_url(url)

    # A correctly signed URL for another action revision of this
    # deployment (what an agent holds after the action moved on).
    stale_revision = int(revision) + 1
    stale_token = stack.sign('signal', deployment['id'], stale_revision)
    before = snapshot(stack, project, deployment['id'])
    stale = requests.put(f'{base}?revision={stale_revision}'
                         f'&token={stale_token}',
                         json={'result': 'stale', 'deploy_status_code': 0},
                         timeout=30)
    assert stale.status_code in (401, 403, 409), stale.text
    inbox = wait_processed(stack, deployment['id'], 1)
    after = snapshot(stack, project, deployment['id'])
    context = f'{dump(before)}\n{dump(after)}'
    assert [r['result'] for r in inbox] == ['STALE'], context
    assert after['deployment'] == before['deployment'], context
    assert after['events'][:-1] == before['events'], context
    assert after['events'][-1]['new_status'] == 'IN_PROGRESS', context
    assert after['events'][-1]['old_status'] == 'IN_PROGRESS', context

    accepted = requests.put(url, json=expected_outputs('replay'),
                            timeout=30)
    assert accepted.status_code == 200, accepted.text
    done = stack.wait_for_deployment(project, deployment['id'])
    assert done['status'] == 'COMPLETE', dump(done)
    wait_processed(stack, deployment['id'], 2)
    before = snapshot(stack, project, deployment['id'])

    # The same URL again (a replay), with other outputs and a failure.
    replay = requests.put(url, timeout=30, json={
        'result': 'replayed', 'deploy_stdout': 'again\n',
        'deploy_stderr': 'boom\n', 'deploy_status_code': 1})
    assert replay.status_code in (401, 403, 409), replay.text
    inbox = wait_processed(stack, deployment['id'], 3)
    after = snapshot(stack, project, deployment['id'])
    context = f'{dump(before)}\n{dump(after)}\n{stack.log_tail()}'
    assert [r['result'] for r in inbox] == ['STALE', 'COMPLETE',
                                            'DUPLICATE'], context
    assert after['deployment'] == before['deployment'], context
    assert after['deployment']['status'] == 'COMPLETE', context
    assert after['deployment']['output_values'] == expected_outputs(
        'replay'), context
    assert after['events'][:-1] == before['events'], context
    assert (after['events'][-1]['old_status'],
            after['events'][-1]['new_status']) == ('COMPLETE',
                                                   'COMPLETE'), context
