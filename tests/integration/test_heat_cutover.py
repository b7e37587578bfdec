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

"""``swconfig-manage heat-cutover`` of one server per metadata transport,
against a real Heat with Keystone, Swift and Zaqar (``heat_cloud``).

A stack of three ``OS::Heat::DeployedServer`` servers, polling Heat
(POLL_SERVER_HEAT), a Swift object (POLL_TEMP_URL) and a Zaqar queue
(ZAQAR_MESSAGE), each with a ``SoftwareComponent`` deployment that
signals Heat (HEAT_SIGNAL, TEMP_URL_SIGNAL, HEAT_SIGNAL). Each
server is a real os-collect-config + heat-agents in a directory of its
own, configured from the server's ``os_collect_config`` attribute
through heat-agents' os-apply-config templates; Heat completes every
deployment from the agents' signals.

Then import, verify and cut over all three: each agent's next
collections come from swconfig (the Swift and Zaqar agents read the same
object and queue, which swconfig now writes), a new deployment and the
component's BACKUP trigger made through swconfig, and a rollout to the
three, complete on every server, and no config runs twice. A revert
hands the Swift server back: Heat's document is in its object again, and
a deployment made in Heat completes there; imported while it runs, its
TEMP_URL_SIGNAL signal (to Heat's object) completes it in swconfig
too. The Zaqar agent's stack-user password is nowhere in swconfig's
files in clear.
"""

import json
import pathlib
import time
import uuid

import pytest
import requests

from tests.fixtures import agents
from tests.fixtures import keystone as keystone_fixture
from tests.fixtures import waiting

pytestmark = pytest.mark.integration

TIMEOUT = 180
#: Server resource -> (metadata transport, signal transport, collector).
SERVERS = {
    'heat_server': ('POLL_SERVER_HEAT', 'HEAT_SIGNAL', 'heat'),
    'swift_server': ('POLL_TEMP_URL', 'TEMP_URL_SIGNAL', 'request'),
    # Not ZAQAR_SIGNAL: heat-agents 13's heat-config-notify imports
    # zaqarclient.queues.v1, which python-zaqarclient 4 no longer has.
    'zaqar_server': ('ZAQAR_MESSAGE', 'HEAT_SIGNAL', 'zaqar'),
}
LATER = 'later'
USER, PROJECT = 'cutover_member', 'swconfig-cutover'


def _template() -> str:
    resources = {
        'component': {
            'type': 'OS::Heat::SoftwareComponent',
            'properties': {
                'inputs': [{'name': 'runlog'}],
                'outputs': [{'name': 'result'}],
                'configs': [
                    {'actions': ['CREATE'], 'tool': 'script',
                     'config': '#!/bin/sh\necho CREATE >> "$runlog"\n'},
                    {'actions': ['BACKUP'], 'tool': 'script',
                     'config': '#!/bin/sh\necho BACKUP >> "$runlog"\n'
                               'printf backed-up > '
                               '"$heat_outputs_path.result"\n'}]}},
        'heat_later': {
            'type': 'OS::Heat::SoftwareConfig',
            'properties': {
                'group': 'script', 'inputs': [{'name': 'runlog'}],
                'config': '#!/bin/sh\necho heat-later >> "$runlog"\n'}},
    }
    outputs = {}
    for name, (transport, signal, _collector) in SERVERS.items():
        runlog = {'list_join': ['/', [{'get_param': 'logdir'},
                                      f'{name}.log']]}
        resources[name] = {
            'type': 'OS::Heat::DeployedServer',
            'properties': {'software_config_transport': transport}}
        resources[f'{name}_deployment'] = {
            'type': 'OS::Heat::SoftwareDeployment',
            'properties': {'config': {'get_resource': 'component'},
                           'server': {'get_resource': name},
                           'signal_transport': signal,
                           'input_values': {'runlog': runlog}}}
        outputs[name] = {'value': {'get_attr': [name, 'os_collect_config']}}
    # A deployment made in Heat after the revert, on the Swift server.
    resources['swift_server_later'] = {
        'type': 'OS::Heat::SoftwareDeployment', 'condition': LATER,
        'properties': {
            'config': {'get_resource': 'heat_later'},
            'server': {'get_resource': 'swift_server'},
            'signal_transport': 'TEMP_URL_SIGNAL',
            'input_values': {'runlog': {'list_join': ['/', [
                {'get_param': 'logdir'}, 'swift_server.log']]}}}}
    return json.dumps({
        'heat_template_version': '2021-04-16',
        'parameters': {'logdir': {'type': 'string'},
                       LATER: {'type': 'boolean', 'default': False}},
        'conditions': {LATER: {'get_param': LATER}},
        'resources': resources, 'outputs': outputs})


class Server:
    """One stack server and the real agent that stands for it."""

    def __init__(self, name: str, root, cloud) -> None:
        self.name = name
        self.transport, self.signal, self.collector = SERVERS[name]
        self.agent = agents.Agent(root / name)
        self.runlog = root / f'{name}.log'
        self.cloud = cloud
        self.server_id = ''

    def configure(self, block: dict) -> None:
        """os-collect-config.conf from an os-collect-config block, as
        os-apply-config renders it on the server."""
        self.agent.occ_config.write_text(self.agent.render_collector_config(
            {'os-collect-config': block}))

    def collect(self, collector: str | None = None) -> str:
        """One collection (and run, if the document changed); what the
        agent printed."""
        return self.agent.run_once(
            None, collector=collector or self.collector).check().output

    def runs(self) -> list[str]:
        return (self.runlog.read_text().splitlines()
                if self.runlog.exists() else [])


def _agents_until(servers, done, what: str) -> None:
    """Every agent collects (and runs what is new), round after round,
    until ``done()``: each round is the agents' own poll, so no sleep
    comes between them."""
    outputs: list[str] = []
    deadline = time.monotonic() + TIMEOUT
    while True:
        for server in servers:
            outputs.append(f'{server.name}: {server.collect()}')
        if done():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f'{what}: not within {TIMEOUT} s; the '
                                 f'agents\' last runs:\n'
                                 + '\n'.join(outputs[-6:]))


def _deployment_ids(document: dict) -> list[str]:
    return [item['id'] for item in document.get('deployments') or []]


def _project_of_its_own(cloud) -> str:
    """A member of a project only this module uses: what heat-import
    reads of that project is this test's stack alone."""
    keystone = cloud.keystone
    if USER not in keystone.user_projects:
        project = keystone.admin_client().projects.create(
            PROJECT, domain=keystone_fixture.DOMAIN)
        keystone.project_ids[PROJECT] = project.id
        keystone.add_user(USER, PROJECT, ['member'])
    return USER


def _stack_with_agents(cloud, root):
    """The stack, created while the three agents run its deployments
    (Heat waits for their signals); the servers by resource name."""
    name = f'cutover-3-{uuid.uuid4().hex[:8]}'
    servers = {key: Server(key, root, cloud) for key in SERVERS}
    client = cloud.heat_client(USER)
    cloud.create_stack(name, _template(), parameters={'logdir': str(root)},
                       user=USER, wait=False)

    def servers_made() -> bool:
        for server in servers.values():
            resource = client.resources.get(name, server.name)
            if resource.resource_status != 'CREATE_COMPLETE':
                return False
            server.server_id = resource.physical_resource_id
        return True

    waiting.wait_for(servers_made, TIMEOUT, 'the three servers')
    for server in servers.values():
        block = client.resources.get(name, server.name).attributes[
            'os_collect_config']
        server.configure(block)
    _agents_until(servers.values(), lambda: client.stacks.get(
        name).stack_status != 'CREATE_IN_PROGRESS', 'the stack to complete')
    stack = cloud.wait_for_stack(name, user=USER)
    assert stack.stack_status == 'CREATE_COMPLETE', (
        stack.stack_status_reason, cloud.describe_events(name, USER))
    return name, stack, servers


def _reads_swconfig(api, server: Server) -> bool:
    """Whether the agent's last collection is swconfig's document (with
    the os-collect-config block Heat gave the agent: it reads on)."""
    collected = server.agent.collected(server.collector)
    listed = api.get(f'/software_deployments/metadata/{server.server_id}')
    swconfig_ids = [item['id'] for item in listed.json()['metadata']]
    return (_deployment_ids(collected) == swconfig_ids
            and server.transport == _transport_of(collected))


def _transport_of(document: dict) -> str:
    collectors = document['os-collect-config']['collectors']
    return next(transport for transport, _signal, collector
                in SERVERS.values() if collector in collectors)


def _swconfig_deployment(api, deployment_id):
    return api.get(f'/software_deployments/{deployment_id}').json()[
        'software_deployment']


def test_three_transports_cut_over_run_swconfigs_work_and_revert(
        heat_cloud, tmp_path):
    cloud = heat_cloud
    project = cloud.project_id(_project_of_its_own(cloud))
    name, stack, servers = _stack_with_agents(cloud, tmp_path)
    for server in servers.values():
        assert server.runs() == ['CREATE'], server.name
    client = cloud.heat_client(USER)
    heat_deployments = {
        server.name: client.software_deployments.list(
            server_id=server.server_id)[0] for server in servers.values()}
    for deployment in heat_deployments.values():
        assert deployment.status == 'COMPLETE', deployment.to_dict()

    dry = cloud.manage('heat-import', '--project', project, '--dry-run')
    imported = cloud.manage('heat-import', '--project', project)
    verified = cloud.manage('heat-verify', '--project', project)
    ids = [server.server_id for server in servers.values()]
    switched = cloud.manage('heat-cutover', *[
        arg for server_id in ids for arg in ('--server', server_id)])
    print(f'$ swconfig-manage heat-import --project {project} --dry-run\n'
          f'{dry}'
          f'$ swconfig-manage heat-import --project {project}\n{imported}'
          f'$ swconfig-manage heat-verify --project {project}\n{verified}'
          f'$ swconfig-manage heat-cutover --server ...\n{switched}')

    for server in servers.values():
        assert f'with {server.transport}: {server.server_id}' in dry, dry
        assert f'server {server.server_id} ({server.transport}): ' \
               f'switched to swconfig' in switched, switched
        assert server.server_id in verified
    heat_agent = servers['heat_server']
    heat_agent.collect()
    heat_agent.configure(heat_agent.agent.collected('heat')[
        'os-collect-config'])
    heat_agent.collector = 'request'
    api = cloud.swconfig_session(USER)
    # What each agent reads now is swconfig's document.
    swift_agent, zaqar_agent = servers['swift_server'], servers[
        'zaqar_server']
    # One collection each: Heat's older messages are gone from the
    # queue, and the object holds swconfig's document.
    for server in (swift_agent, zaqar_agent):
        server.collect()
        assert _reads_swconfig(api, server), server.agent.collected(
            server.collector)

    # A new deployment, and the component's BACKUP, through swconfig.
    config = api.post('/software_configs', json={
        'name': 'z-from-swconfig', 'group': 'script',
        'inputs': [{'name': 'runlog'}],
        'config': '#!/bin/sh\necho from-swconfig >> "$runlog"\n'}).json()[
            'software_config']
    made = []
    for server in servers.values():
        created = api.post('/software_deployments', json={
            'config_id': config['id'], 'server_id': server.server_id,
            'input_values': {'runlog': str(server.runlog)},
            'signal_transport': 'HEAT_SIGNAL'})
        assert created.status_code == 200, created.text
        made.append(created.json()['software_deployment']['id'])
        triggered = api.post(
            f'/software_deployments/{heat_deployments[server.name].id}'
            f'/trigger', json={'action': 'BACKUP',
                               'signal_transport': 'HEAT_SIGNAL'})
        assert triggered.status_code == 201, triggered.text
        made.append(triggered.json()['software_deployment']['id'])
    # And a rollout to the three, each appending its id to one file.
    rollout_log = tmp_path / 'rollout.log'
    wave = api.post('/software_configs', json={
        'name': 'z-rollout', 'group': 'script',
        'inputs': [{'name': 'rolloutlog'}],
        'config': '#!/bin/sh\necho "$deploy_server_id" >> "$rolloutlog"\n'
    }).json()['software_config']
    rollout = api.post('/rollouts', json={
        'servers': ids, 'config_id': wave['id'], 'max_concurrency': 3,
        'input_values': {'rolloutlog': str(rollout_log)},
        'signal_transport': 'HEAT_SIGNAL'})
    assert rollout.status_code == 200, rollout.text
    rollout_id = rollout.json()['rollout']['id']
    _agents_until(servers.values(), lambda: all(
        _swconfig_deployment(api, deployment_id)['status'] == 'COMPLETE'
        for deployment_id in made) and api.get(
            f'/rollouts/{rollout_id}').json()['rollout']['status']
        == 'COMPLETE', 'swconfig\'s deployments and rollout to complete')
    assert sorted(rollout_log.read_text().split()) == sorted(ids)
    for server in servers.values():
        assert sorted(server.runs()) == ['BACKUP', 'CREATE',
                                         'from-swconfig'], server.name
    backups = [_swconfig_deployment(api, deployment_id)
               for deployment_id in made[1::2]]
    assert {item['output_values']['result'] for item in backups} == {
        'backed-up'}

    # Back to Heat: the Swift server.
    back = cloud.manage('heat-cutover', '--revert', '--server',
                        swift_agent.server_id)
    print(f'$ swconfig-manage heat-cutover --revert --server '
          f'{swift_agent.server_id}\n{back}')
    assert 'back on Heat' in back, back
    heat_metadata = client.software_deployments.metadata(
        server_id=swift_agent.server_id)
    url = swift_agent.agent.collected('request')['os-collect-config'][
        'request']['metadata_url']
    assert _deployment_ids(requests.get(url, timeout=30).json()) == [
        item['id'] for item in heat_metadata]
    client.stacks.update(stack.id, template=_template(), parameters={
        'logdir': str(tmp_path), LATER: True})
    # Imported while it runs: its agent's signal, to the object Heat made
    # for it, reaches swconfig too (read when the user shows it).
    later = waiting.wait_for(lambda: [
        item for item in client.software_deployments.list(
            server_id=swift_agent.server_id)
        if item.id != heat_deployments['swift_server'].id], TIMEOUT,
        'Heat to make the later deployment')[0]
    assert later.status == 'IN_PROGRESS'
    cloud.manage('heat-import', '--project', project)
    assert _swconfig_deployment(api, later.id)['status'] == 'IN_PROGRESS'
    skipped = cloud.manage('heat-cutover', '--server', swift_agent.server_id,
                           expected=1)
    assert skipped == (f'server {swift_agent.server_id} (POLL_TEMP_URL): '
                       f'deployment {later.id} IN_PROGRESS: run again once '
                       f'it has finished (--force switches now: its signal '
                       f'may then reach Heat only)\n')
    _agents_until([swift_agent], lambda: _swconfig_deployment(
        api, later.id)['status'] == 'COMPLETE' and client.stacks.get(
            name).stack_status != 'UPDATE_IN_PROGRESS',
        'the later deployment to complete in swconfig and Heat')
    updated = cloud.wait_for_stack(name, user=USER)
    assert updated.stack_status == 'UPDATE_COMPLETE', (
        updated.stack_status_reason, cloud.describe_events(name, USER))
    assert sorted(swift_agent.runs()) == [
        'BACKUP', 'CREATE', 'from-swconfig', 'heat-later']
    for server in (heat_agent, zaqar_agent):
        assert sorted(server.runs()) == ['BACKUP', 'CREATE',
                                         'from-swconfig'], server.name
    assert sorted(rollout_log.read_text().split()) == sorted(ids)
    # The stack user's password of the Zaqar agent (swconfig posts with
    # it) is nowhere in swconfig's database or logs in clear.
    password = zaqar_agent.agent.collected('zaqar')['os-collect-config'][
        'zaqar']['password']
    workdir = pathlib.Path(cloud.swconfig.config_file).parent
    for path in workdir.iterdir():
        if path.is_file():
            assert password.encode() not in path.read_bytes(), path
