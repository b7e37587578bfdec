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

"""ZAQAR_SIGNAL and ZAQAR_MESSAGE against a real Zaqar.

A separate ``swconfig-api`` + ``swconfig-engine`` on MariaDB and the real
RabbitMQ whose defaults are the Zaqar transports, with a Zaqar without
Keystone (the ``zaqar`` fixture). A server signals the way the derived
config tells it to: python-zaqarclient v2 with the pre-signed URL from
the ``deploy_*`` inputs and nothing else (heat-agents 13.0.0's own Zaqar
branch imports a module today's python-zaqarclient no longer has, so it
cannot; doc/source/user/transports.rst says so).
"""

import json

import pytest

from tests.fixtures import agent_stacks
from tests.fixtures import services
from tests.fixtures.waiting import wait_for
from tests.fixtures.zaqar_service import post_as_agent as agent_post
from tests.fixtures.zaqar_service import queue_names

SCRIPT = '#!/bin/sh\necho hi\n'
OUTPUTS = [{'name': 'result', 'type': 'String'}]


@pytest.fixture(scope='module')
def stack(zaqar, tmp_path_factory):
    workdir = str(tmp_path_factory.mktemp('zaqar-stack'))
    with services.scratch_database('mysql') as url:
        with agent_stacks.separate_stack(
                workdir, url, services.RABBIT_URL, name='zaqar-mariadb',
                default={
                    'default_deployment_signal_transport': 'ZAQAR_SIGNAL',
                    'default_software_config_transport': 'ZAQAR_MESSAGE'},
                agent={'document_push_interval': 0.2},
                sections={'zaqar': {
                    'endpoint': zaqar.endpoint, 'auth_type': 'none',
                    'project_id': zaqar.project_id,
                    'signal_poll_interval': 0.5,
                    'max_retry_interval': 2}}) as stack:
            yield stack


def inputs_of(stack, project, deployment):
    derived = stack.derived_config(project, deployment['config_id'])
    return {item['name']: item.get('value') for item in derived['inputs']}


def test_signal_posted_to_the_queue_completes_the_deployment(
        stack, zaqar, project, server):
    config = stack.create_config(project, SCRIPT, outputs=OUTPUTS)
    deployment = stack.deploy(project, config['id'], server,
                              signal_transport='default')
    inputs = inputs_of(stack, project, deployment)
    assert inputs['deploy_signal_transport'] == 'ZAQAR_SIGNAL'
    assert inputs['deploy_zaqar_endpoint'] == zaqar.endpoint
    assert json.loads(inputs['deploy_queue_methods']) == ['POST']
    assert 'deploy_signal_id' not in inputs
    assert inputs['deploy_queue_id'] in queue_names(zaqar)

    agent_post(inputs, {'result': 'queued', 'deploy_status_code': 0,
                        'deploy_stdout': 'hi\n'})
    final = stack.wait_for_deployment(project, deployment['id'])
    assert final['status'] == 'COMPLETE', (final, stack.log_tail())
    assert final['output_values']['result'] == 'queued'
    inbox = stack.inbox(deployment['id'])
    assert [row['result'] for row in inbox] == ['COMPLETE'], inbox
    assert inbox[0]['source_key'].startswith('zaqar:')

    # Every message was deleted once stored.
    claim = zaqar.request('POST',
                          f'queues/{inputs["deploy_queue_id"]}/claims',
                          json={'ttl': 60, 'grace': 60})
    assert claim.status_code == 204, claim.text

    # A new action gets a new queue: a copy of the old signal posted to the
    # old one afterwards is never taken for the new action's.
    updated = stack._json(
        'PUT', f'/v1/{project}/software_deployments/{deployment["id"]}',
        json={'input_values': {'round': 2}})['software_deployment']
    assert updated['status'] == 'IN_PROGRESS', updated
    new_inputs = inputs_of(stack, project, updated)
    assert new_inputs['deploy_queue_id'] != inputs['deploy_queue_id']
    assert inputs['deploy_queue_id'] not in queue_names(zaqar)
    agent_post(inputs, {'result': 'stale', 'deploy_status_code': 0})
    agent_post(new_inputs, {'result': 'second', 'deploy_status_code': 0})
    final = stack.wait_for_deployment(project, deployment['id'])
    assert final['output_values']['result'] == 'second', final
    assert [(row['action_revision'], row['result'])
            for row in stack.inbox(deployment['id'])] == [
        (1, 'COMPLETE'), (2, 'COMPLETE')]
    inputs = new_inputs

    reply = stack.request(
        'DELETE', f'/v1/{project}/software_deployments/{deployment["id"]}')
    assert reply.status_code == 204, reply.text
    assert inputs['deploy_queue_id'] not in queue_names(zaqar)


def latest_document(zaqar, queue):
    reply = zaqar.request('GET', f'queues/{queue}/messages',
                          params={'echo': 'true', 'limit': 10})
    if reply.status_code != 200:
        return None
    messages = reply.json()['messages']
    while len(messages) == 10:  # page to the newest
        marker = reply.json()['links'][0]['href'].split('marker=')[1]
        more = zaqar.request('GET', f'queues/{queue}/messages', params={
            'echo': 'true', 'limit': 10, 'marker': marker.split('&')[0]})
        if more.status_code != 200:
            break
        reply, messages = more, more.json()['messages']
    return messages[-1]['body'] if messages else None


def test_documents_reach_the_server_queue_and_follow_changes(
        stack, zaqar, project, server):
    config = stack.create_config(project, SCRIPT, outputs=OUTPUTS)
    first = stack.deploy(project, config['id'], server,
                         signal_transport='NO_SIGNAL')
    settings = stack.agent_config(project, server)
    occ = settings['os-collect-config']
    assert occ['collectors'] == ['zaqar'], occ
    queue = occ['zaqar']['queue_id']
    assert occ['zaqar']['project_id'] == zaqar.project_id
    assert '[zaqar]\n' in settings['os_collect_config_conf']
    assert f'queue_id = {queue}\n' in settings['os_collect_config_conf']

    def config_ids():
        document = latest_document(zaqar, queue)
        return document and {d['id'] for d in document['deployments']}

    wait_for(lambda: config_ids() == {first['config_id']}, 15,
             'first document in the queue')
    second = stack.deploy(project, config['id'], server,
                          signal_transport='NO_SIGNAL')
    wait_for(lambda: config_ids() == {first['config_id'],
                                      second['config_id']}, 15,
             'changed document in the queue')


def queued_bodies(zaqar, queue):
    """Every message in the queue, oldest first (without claiming)."""
    bodies, marker = [], None
    while True:
        params = {'echo': 'true', 'limit': 10,
                  **({'marker': marker} if marker else {})}
        reply = zaqar.request('GET', f'queues/{queue}/messages',
                              params=params)
        if reply.status_code != 200:
            return bodies
        messages = reply.json()['messages']
        bodies.extend(message['body'] for message in messages)
        if len(messages) < 10:
            return bodies
        marker = reply.json()['links'][0]['href'].split('marker=')[1].split(
            '&')[0]


def test_the_queue_holds_only_the_newest_document(stack, zaqar, project,
                                                  server):
    """os-collect-config's collector pops one message per collection:
    after three changes between two collections it must pop the newest
    document, so the queue holds nothing older."""
    config = stack.create_config(project, SCRIPT, outputs=OUTPUTS)
    queue = None
    made = []

    def newest_is_queued():
        bodies = queued_bodies(zaqar, queue)
        return bodies and {item['id'] for item in bodies[-1][
            'deployments']} >= set(made) and bodies

    for change in range(3):
        made.append(stack.deploy(project, config['id'], server,
                                 signal_transport='NO_SIGNAL')['config_id'])
        queue = queue or stack.agent_config(project, server)[
            'os-collect-config']['zaqar']['queue_id']
        # Each document is pushed before the next change is made.
        bodies = wait_for(newest_is_queued, 15, f'document {change} queued')

    assert len(bodies) == 1, [
        [item['id'] for item in body['deployments']] for body in bodies]


def test_zaqar_outage_loses_nothing(stack, zaqar, project, server):
    config = stack.create_config(project, SCRIPT, outputs=OUTPUTS)
    deployment = stack.deploy(project, config['id'], server,
                              signal_transport='ZAQAR_SIGNAL')
    inputs = inputs_of(stack, project, deployment)
    engine = [proc for name, proc in stack.processes.items()
              if name.startswith('engine')][-1]
    zaqar.stop()
    try:
        engine.wait_for_log('zaqar-signals: ', timeout=30)
        assert stack.request('GET', '/healthcheck').status_code == 503
    finally:
        zaqar.start()
    agent_post(inputs, {'result': 'after', 'deploy_status_code': 0})
    final = stack.wait_for_deployment(project, deployment['id'])
    assert final['status'] == 'COMPLETE', final
    assert final['output_values']['result'] == 'after'
    engine.wait_for_log('zaqar-signals: working again after', timeout=30)
