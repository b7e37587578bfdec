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

"""TEMP_URL_SIGNAL and POLL_TEMP_URL against a real Swift.

A separate ``swconfig-api`` + ``swconfig-engine`` on MariaDB and the real
RabbitMQ, whose defaults are the Swift transports
(doc/source/admin/transports.rst): the engine signs TempURLs in its own
Swift account (the ``swift`` fixture, tempauth), PUTs each server's
document there, and lists its signal containers in the background. The
real os-collect-config polls the document's GET TempURL and heat-agents'
heat-config-notify PUTs the signal to the PUT TempURL; nothing reaches
swconfig's own agent URLs.
"""

import os
import re
import subprocess

import pytest
import requests

from tests.fixtures import agent_stacks
from tests.fixtures import agents
from tests.fixtures import processes
from tests.fixtures import services
from tests.fixtures.waiting import wait_for

SCRIPT = '''#!/bin/sh
echo "hello $greeting"
printf '%s' "result-$greeting" > "$heat_outputs_path.result"
'''
INPUTS = [{'name': 'greeting', 'type': 'String', 'default': 'nobody'}]
OUTPUTS = [{'name': 'result', 'type': 'String'}]
POLL_INTERVAL = 0.5


def swift_options(swift) -> dict:
    return {'auth_url': swift.auth_url, 'auth_version': '1',
            'user': swift.user, 'key': swift.key,
            'temp_url_key': swift.temp_url_key,
            'signal_poll_interval': POLL_INTERVAL,
            'max_retry_interval': 2}


@pytest.fixture(scope='module')
def stack(swift, tmp_path_factory):
    workdir = str(tmp_path_factory.mktemp('swift-stack'))
    with services.scratch_database('mysql') as url:
        with agent_stacks.separate_stack(
                workdir, url, services.RABBIT_URL, name='swift-mariadb',
                default={
                    'default_deployment_signal_transport':
                        'TEMP_URL_SIGNAL',
                    'default_software_config_transport': 'POLL_TEMP_URL'},
                agent={'document_push_interval': 0.2},
                sections={'swift': swift_options(swift)}) as stack:
            yield stack


def live_engine(stack):
    """The engine started last (earlier ones may have been stopped)."""
    return [proc for name, proc in stack.processes.items()
            if name.startswith('engine')][-1]


def derived_inputs(stack, project, deployment):
    derived = stack.derived_config(project, deployment['config_id'])
    return {item['name']: item.get('value') for item in derived['inputs']}


def fetch(url):
    reply = requests.get(url, timeout=10)
    return reply if reply.status_code == 200 else None


def test_agent_polls_swift_and_signals_through_a_temp_url(
        stack, swift, project, server, tmp_path):
    config = stack.create_config(project, SCRIPT, INPUTS, OUTPUTS)
    deployment = stack.deploy(project, config['id'], server,
                              {'greeting': 'swift'},
                              signal_transport='default')
    assert deployment['status'] == 'IN_PROGRESS', deployment
    inputs = derived_inputs(stack, project, deployment)
    assert inputs['deploy_signal_transport'] == 'TEMP_URL_SIGNAL'
    assert inputs['deploy_signal_verb'] == 'PUT'
    assert inputs['deploy_signal_id'].startswith(swift.proxy_url + '/v1/')
    # sha256: a 64-hex-digit signature.
    assert re.search(r'[?&]temp_url_sig=[0-9a-f]{64}(&|$)',
                     inputs['deploy_signal_id'])

    settings = stack.agent_config(project, server)['os-collect-config']
    metadata_url = settings['request']['metadata_url']
    assert metadata_url.startswith(swift.proxy_url + '/v1/'), settings
    assert not metadata_url.startswith(stack.base_url)
    # The engine pushes the document; the agent reads it from Swift.
    document = wait_for(lambda: fetch(metadata_url), 15,
                        'document pushed to Swift').json()
    assert [d['id'] for d in document['deployments']] == [
        deployment['config_id']]

    agent = agents.Agent(tmp_path / 'agent')
    run = agent.run_once(metadata_url)
    assert run.returncode == 0, run
    assert agent.deployed_ids() == {deployment['config_id']}, run
    final = stack.wait_for_deployment(project, deployment['id'])
    assert final['status'] == 'COMPLETE', (final, stack.log_tail())
    assert final['output_values']['result'] == 'result-swift'
    assert final['output_values']['deploy_stdout'] == 'hello swift\n'
    inbox = stack.inbox(deployment['id'])
    assert [(row['payload'], row['result']) for row in inbox] == [
        (agent.notify_data(deployment['config_id']), 'COMPLETE')], inbox
    assert inbox[0]['source_key'].startswith('swift:1:')
    # Nothing waits for the object any more: the engine removes it.
    container, name = swift_object(inputs['deploy_signal_id'])
    wait_for(lambda: not swift.object_exists(container, name), 15,
             'applied signal object removed')


def swift_object(temp_url):
    path = requests.utils.urlparse(temp_url).path.split('/')
    return path[-3], f'{path[-2]}/{path[-1]}'


def test_signal_written_at_once_is_not_missed(stack, project, server):
    config = stack.create_config(project, SCRIPT, INPUTS, OUTPUTS)
    deployment = stack.deploy(project, config['id'], server,
                              signal_transport='TEMP_URL_SIGNAL')
    url = derived_inputs(stack, project, deployment)['deploy_signal_id']
    # In the same second as the action started.
    reply = requests.put(url, json={'result': 'quick',
                                    'deploy_status_code': 0}, timeout=10)
    assert reply.status_code == 201, reply.text
    final = stack.wait_for_deployment(project, deployment['id'])
    assert final['status'] == 'COMPLETE', final
    assert final['output_values']['result'] == 'quick'


def test_same_signal_fetched_again_is_stored_once(stack, swift, project,
                                                  server):
    config = stack.create_config(project, SCRIPT, INPUTS, OUTPUTS)
    deployment = stack.deploy(project, config['id'], server,
                              signal_transport='TEMP_URL_SIGNAL')
    url = derived_inputs(stack, project, deployment)['deploy_signal_id']
    progress = {'deploy_status': 'IN_PROGRESS',
                'deploy_status_reason': 'half way'}
    assert requests.put(url, json=progress, timeout=10).status_code == 201
    stack.wait_for_inbox(deployment['id'], lambda rows: len(rows) == 1)

    # A new engine knows nothing of what the first fetched: it fetches
    # the same object again, and the database refuses it.
    live_engine(stack).stop()
    second = stack.start_engine()
    second.wait_for_log('was stored before; not stored again', timeout=30)

    done = {'result': 'done', 'deploy_status_code': 0}
    assert requests.put(url, json=done, timeout=10).status_code == 201
    final = stack.wait_for_deployment(project, deployment['id'])
    assert final['status'] == 'COMPLETE', final
    inbox = stack.inbox(deployment['id'])
    assert [row['result'] for row in inbox] == ['PROGRESS', 'COMPLETE'], \
        inbox
    # The same content once more, after the action finished: the object is
    # fetched-or-not, never applied twice, and removed.
    assert requests.put(url, json=done, timeout=10).status_code == 201
    container, name = swift_object(url)
    wait_for(lambda: not swift.object_exists(container, name), 15,
             'late copy removed')
    assert [row['result'] for row in stack.inbox(deployment['id'])] == [
        'PROGRESS', 'COMPLETE']


def test_deleting_the_deployment_removes_its_signal_object(
        stack, swift, project, server):
    config = stack.create_config(project, SCRIPT, INPUTS, OUTPUTS)
    deployment = stack.deploy(project, config['id'], server,
                              signal_transport='TEMP_URL_SIGNAL')
    url = derived_inputs(stack, project, deployment)['deploy_signal_id']
    progress = {'deploy_status': 'IN_PROGRESS'}
    assert requests.put(url, json=progress, timeout=10).status_code == 201
    container, name = swift_object(url)
    assert swift.object_exists(container, name)

    reply = stack.request(
        'DELETE', f'/v1/{project}/software_deployments/{deployment["id"]}')
    assert reply.status_code == 204, reply.text
    assert not swift.object_exists(container, name)


def test_document_changes_reach_swift(stack, project, server):
    config = stack.create_config(project, SCRIPT, INPUTS, OUTPUTS)
    first = stack.deploy(project, config['id'], server,
                         signal_transport='NO_SIGNAL')
    url = stack.agent_config(project, server)['os-collect-config'][
        'request']['metadata_url']

    def config_ids():
        reply = fetch(url)
        return reply and {d['id'] for d in reply.json()['deployments']}

    wait_for(lambda: config_ids() == {first['config_id']}, 15,
             'first document in Swift')
    second = stack.deploy(project, config['id'], server,
                          signal_transport='NO_SIGNAL')
    wait_for(lambda: config_ids() == {first['config_id'],
                                      second['config_id']}, 15,
             'second deployment in the Swift document')
    stack.request('DELETE',
                  f'/v1/{project}/software_deployments/{first["id"]}')
    wait_for(lambda: config_ids() == {second['config_id']}, 15,
             'deleted deployment gone from the Swift document')


def test_swift_outage_loses_nothing(stack, swift, project, server):
    config = stack.create_config(project, SCRIPT, INPUTS, OUTPUTS)
    deployment = stack.deploy(project, config['id'], server,
                              signal_transport='TEMP_URL_SIGNAL')
    engine = live_engine(stack)
    swift.stop_proxy()
    try:
        engine.wait_for_log('retrying with backoff', timeout=30)
        health = stack.request('GET', '/healthcheck')
        assert health.status_code == 503, health.text
        # Created while Swift is down: the TempURL is signed locally.
        during = stack.deploy(project, config['id'], server,
                              signal_transport='TEMP_URL_SIGNAL')
    finally:
        swift.start_proxy()
    engine.wait_for_log('working again after', timeout=30)
    assert stack.request('GET', '/healthcheck').status_code == 200
    for item in (deployment, during):
        signal_url = derived_inputs(stack, project, item)['deploy_signal_id']
        reply = requests.put(signal_url, json={'result': 'after',
                                               'deploy_status_code': 0},
                             timeout=10)
        assert reply.status_code == 201, reply.text
    for item in (deployment, during):
        final = stack.wait_for_deployment(project, item['id'])
        assert final['status'] == 'COMPLETE', final
        assert final['output_values']['result'] == 'after'


def test_default_naming_an_unconfigured_transport_refuses_to_start(
        tmp_path):
    config_file = processes.write_config(str(tmp_path / 'swconfig.conf'), {
        'DEFAULT': {'default_deployment_signal_transport': 'TEMP_URL_SIGNAL',
                    'transport_url': services.RABBIT_URL,
                    'state_path': str(tmp_path)},
        'agent': {'signing_keys': 'k:' + 's' * 32},
        'database': {'connection': 'sqlite:///' + os.path.join(
            str(tmp_path), 'x.sqlite')},
    })
    result = subprocess.run(
        [processes.script('swconfig-engine'), '--config-file', config_file],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [
        'swconfig-engine: error: Configuration error: '
        'default_deployment_signal_transport = TEMP_URL_SIGNAL but the '
        '[swift] section has no auth_url'], result.stderr
