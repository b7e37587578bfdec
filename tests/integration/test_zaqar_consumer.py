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

"""ZAQAR_SIGNAL and ZAQAR_MESSAGE through the engine's own code, against a
real Zaqar.

The in-process stack provides the database and configuration; these tests
call the engine directly (``deployments.create``, one consumer round at a
time with ``run_round``), so that each step of the consumer can be
watched: claim, store, apply, delete. The in-process engine was started
before ``[zaqar]`` was set, so it runs no Zaqar task of its own that could
take the messages first.

A server signals the way the derived config tells it to: python-zaqarclient
v2 with the pre-signed URL from the ``deploy_*`` inputs and nothing else
(heat-agents' own Zaqar branch cannot with today's python-zaqarclient).
"""

import json
import uuid

from os_collect_config import zaqar as occ_zaqar
import pytest
import sqlalchemy as sa

from swconfig import transports
from swconfig.common import context as swconfig_context
from swconfig.common import deployment_request
from swconfig.common import exception
from swconfig.common import states
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import deployments
from swconfig.engine import signals
from swconfig.transports.zaqar import client as zaqar_api
from swconfig.transports.zaqar import consumer as zaqar_consumer
from swconfig.transports.zaqar import metadata as zaqar_message
from tests.fixtures.waiting import wait_for
from tests.fixtures.zaqar_service import post_as_agent as agent_post
from tests.fixtures.zaqar_service import queue_names
from tests.fixtures.zaqar_service import zaqar  # noqa: F401 - fixture

OUTPUTS = [{'name': 'result', 'type': 'String'}]
DONE = {'result': 'queued', 'deploy_status_code': 0, 'deploy_stdout': 'hi\n',
        'deploy_stderr': ''}
PROGRESS = {'deploy_status': 'IN_PROGRESS',
            'deploy_status_reason': 'step 1 of 2'}
#: Seconds a consumer gets to apply a signal posted to Zaqar.
APPLY_TIMEOUT = 20


@pytest.fixture
def zaqar_conf(inprocess_stack, zaqar):  # noqa: F811
    """``[zaqar]`` pointing at the test Zaqar, without Keystone."""
    options = {'endpoint': zaqar.endpoint, 'auth_type': 'none',
               'project_id': zaqar.project_id}
    for name, value in options.items():
        CONF.set_override(name, value, group='zaqar')
    zaqar_api.reset()
    yield zaqar
    for name in options:
        CONF.clear_override(name, group='zaqar')
    zaqar_api.reset()


@pytest.fixture
def ctx():
    return swconfig_context.RequestContext(
        project_id=f'p-{uuid.uuid4().hex[:12]}', user_id='u',
        roles=['member', 'reader'])


def create_deployment(ctx, server_id=None):
    config = db_api.software_config_create(ctx, {
        'id': str(uuid.uuid4()), 'name': 'cfg', 'group': 'script',
        'config': '#!/bin/sh\necho hi\n', 'inputs': [], 'outputs': OUTPUTS,
        'options': {}, 'tenant': ctx.project_id})
    return deployments.create(ctx, deployment_request.DeploymentRequest(
        server_id=server_id or f'server-{uuid.uuid4().hex[:12]}',
        config_id=config['id'], action='CREATE',
        signal_transport='ZAQAR_SIGNAL'))


def signal_inputs(ctx, deployment):
    derived = db_api.software_config_get(ctx, deployment['config_id'])
    return {item['name']: item.get('value') for item in derived['inputs']}


def messages_in(zaqar, queue):  # noqa: F811
    """The queue's unclaimed messages, oldest first."""
    reply = zaqar.request('GET', f'queues/{queue}/messages',
                          params={'echo': 'true', 'limit': 20})
    if reply.status_code == 204:
        return []
    assert reply.status_code == 200, reply.text
    return reply.json()['messages']


def message_count(zaqar, queue):  # noqa: F811
    """How many messages the queue holds, claimed or not."""
    reply = zaqar.request('GET', f'queues/{queue}/stats')
    assert reply.status_code == 200, reply.text
    return reply.json()['messages']['total']


def deployment_now(deployment):
    return db_api.software_deployment_get(
        swconfig_context.get_admin_context(), deployment['id'])


def inbox(deployment):
    """The deployment's stored signals, oldest first."""
    engine = sa.create_engine(CONF.database.connection)
    try:
        with engine.connect() as connection:
            return [dict(row._mapping) for row in connection.execute(
                sa.text('SELECT id, source_key, result FROM signal_inbox '
                        'WHERE deployment_id = :d ORDER BY id'),
                {'d': deployment['id']})]
    finally:
        engine.dispose()


def reasons(deployment):
    return [event['reason'] for event in
            db_api.software_deployment_event_get_all(
                swconfig_context.get_admin_context(), deployment['id'])]


class OwnsAll:
    """The partition of an engine alone."""

    @staticmethod
    def owns(key):
        return True


def new_consumer():
    return zaqar_consumer.SignalConsumer('ZAQAR_SIGNAL', signals.SINK)


def run_round(consumer):
    """One round of the consumer; how many signals it stored."""
    consumer.run(OwnsAll())
    return consumer.stored


def consume_until(consumer, deployment, status, what):
    """Consumer rounds until the deployment has ``status``."""
    def done():
        run_round(consumer)
        row = deployment_now(deployment)
        return row if row['status'] == status else None
    return wait_for(done, APPLY_TIMEOUT, what)


def test_posted_signal_completes_the_deployment_once(zaqar_conf, ctx):
    deployment = create_deployment(ctx)
    assert deployment['status'] == states.IN_PROGRESS
    inputs = signal_inputs(ctx, deployment)
    queue = inputs['deploy_queue_id']
    assert inputs['deploy_signal_transport'] == 'ZAQAR_SIGNAL'
    assert inputs['deploy_zaqar_endpoint'] == zaqar_conf.endpoint
    assert inputs['deploy_project_id'] == zaqar_conf.project_id
    assert json.loads(inputs['deploy_queue_methods']) == ['POST']
    assert 'deploy_signal_id' not in inputs
    assert queue in queue_names(zaqar_conf)

    agent_post(inputs, DONE)
    consumer = new_consumer()
    final = consume_until(consumer, deployment, states.COMPLETE,
                          'deployment COMPLETE from its Zaqar signal')
    assert final['output_values']['result'] == 'queued'
    stored = inbox(deployment)
    assert [row['result'] for row in stored] == [states.COMPLETE]
    assert stored[0]['source_key'].startswith('zaqar:')
    assert message_count(zaqar_conf, queue) == 0  # deleted once stored

    # The agent posts the same body again: a new message. No round looks
    # at the queue of a finished deployment, so it stays there unapplied...
    agent_post(inputs, DONE | {'result': 'again'})
    assert run_round(consumer) == 0
    [copy] = messages_in(zaqar_conf, queue)
    assert deployment_now(deployment)['output_values']['result'] == 'queued'
    # ...and an engine that claims it anyway (its round listed the
    # deployment while it still waited) has it refused as finished.
    waiting_row = {'id': deployment['id'], 'action_revision': 1}
    assert consumer.consume(waiting_row) == 1
    assert [(row['source_key'], row['result'])
            for row in inbox(deployment)][1:] == [
        (f'zaqar:{copy["id"]}', states.DUPLICATE)]
    after = deployment_now(deployment)
    assert (after['status'], after['output_values']['result']) == (
        states.COMPLETE, 'queued')
    assert message_count(zaqar_conf, queue) == 0


def test_signal_stored_but_not_deleted_is_not_applied_twice(zaqar_conf,
                                                            ctx):
    """An engine stores a message's signal and dies before deleting the
    message: its claim lapses, another round claims the same message and
    must neither store nor apply it again."""
    deployment = create_deployment(ctx)
    inputs = signal_inputs(ctx, deployment)
    queue = inputs['deploy_queue_id']
    agent_post(inputs, PROGRESS)

    [message] = zaqar_api.claim(queue)
    key = f'zaqar:{message["id"]}'
    body = json.dumps(message['body']).encode()
    assert signals.SINK.receive(deployment['id'], 1, key, body=body)
    assert [row['result'] for row in inbox(deployment)] == ['PROGRESS']
    # The same key again (another engine, a retry): not stored again.
    assert not signals.SINK.receive(deployment['id'], 1, key, body=body)
    # Zaqar's claims last at least 60 s; releasing it is what its expiry
    # does after the crash.
    released = zaqar_conf.request(
        'DELETE', f'queues/{queue}/claims/{message["claim_id"]}')
    assert released.status_code == 204, released.text
    assert [m['id'] for m in messages_in(zaqar_conf, queue)] == [
        message['id']]

    agent_post(inputs, DONE)
    final = consume_until(new_consumer(), deployment,
                          states.COMPLETE, 'deployment COMPLETE')
    assert final['output_values']['result'] == 'queued'
    stored = inbox(deployment)
    assert [row['result'] for row in stored] == ['PROGRESS',
                                                 states.COMPLETE]
    assert stored[0]['source_key'] == key
    assert reasons(deployment).count('step 1 of 2') == 1
    assert message_count(zaqar_conf, queue) == 0  # both deleted


def test_deleting_the_deployment_deletes_its_queue(zaqar_conf, ctx):
    deployment = create_deployment(ctx)
    queue = signal_inputs(ctx, deployment)['deploy_queue_id']
    agent_post(signal_inputs(ctx, deployment), PROGRESS)
    assert queue in queue_names(zaqar_conf)
    deployments.delete(ctx, deployment['id'])
    assert queue not in queue_names(zaqar_conf)


def test_former_queue_goes_only_once_the_new_action_committed(
        zaqar_conf, ctx, monkeypatch):
    """A new action whose transaction fails leaves the current action's
    queue, so its agent can still signal; one that commits deletes it."""
    deployment = create_deployment(ctx)
    first_queue = signal_inputs(ctx, deployment)['deploy_queue_id']

    def collides(*args, **kwargs):
        raise exception.ConcurrentUpdate(deployment_id=deployment['id'])

    with monkeypatch.context() as patch:
        patch.setattr(db_api, 'software_deployment_update', collides)
        with pytest.raises(exception.ConcurrentUpdate):
            deployments.new_action(ctx, deployment_now(deployment),
                                   {'input_values': {'round': 2}})
    assert first_queue in queue_names(zaqar_conf)
    assert deployment_now(deployment)['action_revision'] == 1

    changed = deployments.new_action(ctx, deployment_now(deployment),
                                     {'input_values': {'round': 2}})
    assert changed['action_revision'] == 2
    second_queue = signal_inputs(ctx, changed)['deploy_queue_id']
    assert second_queue in queue_names(zaqar_conf)
    assert first_queue not in queue_names(zaqar_conf)


def test_zaqar_outage_is_retried_and_loses_nothing(zaqar_conf, ctx):
    deployment = create_deployment(ctx)
    inputs = signal_inputs(ctx, deployment)
    agent_post(inputs, PROGRESS)  # before the outage, not consumed yet
    consumer = new_consumer()
    zaqar_conf.stop()
    try:
        with pytest.raises(exception.BackendUnavailable) as caught:
            run_round(consumer)
        assert 'Zaqar' in str(caught.value)
        assert deployment_now(deployment)['status'] == states.IN_PROGRESS
    finally:
        zaqar_conf.start()
    agent_post(inputs, DONE)  # after the outage
    final = consume_until(consumer, deployment, states.COMPLETE,
                          'deployment COMPLETE after the outage')
    assert final['output_values']['result'] == 'queued'
    assert [row['result'] for row in inbox(deployment)] == [
        'PROGRESS', states.COMPLETE]
    assert 'step 1 of 2' in reasons(deployment)


def newest_body(zaqar, queue):  # noqa: F811
    messages = messages_in(zaqar, queue)
    return messages[-1]['body'] if messages else None


def test_pushed_document_is_the_newest_message_of_the_server_queue(
        zaqar_conf):
    transport = transports.get_metadata('ZAQAR_MESSAGE')
    server = {'id': f'server-{uuid.uuid4().hex[:12]}'}
    queue = zaqar_message.queue_for(server['id'])
    settings = transport.collector_settings(server)
    assert settings['collectors'] == ['zaqar']
    assert settings['zaqar']['queue_id'] == queue
    assert settings['zaqar']['project_id'] == zaqar_conf.project_id
    # Every key is an option os-collect-config's zaqar collector reads.
    known = {opt.dest for opt in occ_zaqar.opts}
    assert set(settings['zaqar']) <= known, settings

    first = {'deployments': [{'id': 'c-1', 'inputs': []}]}
    transport.push(server, json.dumps(first))
    assert newest_body(zaqar_conf, queue) == first
    second = {'deployments': [{'id': 'c-1', 'inputs': []},
                              {'id': 'c-2', 'inputs': []}]}
    transport.push(server, json.dumps(second))
    assert newest_body(zaqar_conf, queue) == second
    # The only one: the agent pops one message per collection.
    assert len(messages_in(zaqar_conf, queue)) == 1

    transport.forget(server['id'])
    assert queue not in queue_names(zaqar_conf)
