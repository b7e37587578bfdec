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

"""``swconfig-manage heat-import`` and ``heat-verify`` against a real Heat
(``heat_cloud``): a stack of an ``OS::Heat::DeployedServer`` polling Heat
(POLL_SERVER_HEAT) with a SoftwareDeployment and a StructuredDeployment
that Heat completed, and one that waits for its HEAT_SIGNAL.

The dry run names what it would import, the server's transport and the
deployment in progress; the import keeps every id (swconfig's API shows
the deployments and configs under Heat's ids), leaves the deployment in
progress for later (its config holds a stack user's password), and
verify says how that server differs from Heat's own metadata answer.
Once Heat completed it, a re-run imports it without the password (found
neither in swconfig's database nor in its logs), verify finds every
server the same, and a change made in Heat afterwards is brought over by
the next run.
"""

import pathlib
import uuid

import pytest
import yaml

from tests.fixtures import waiting

pytestmark = pytest.mark.integration

TIMEOUT = 120
TEMPLATE = '''
heat_template_version: 2021-04-16
resources:
  server:
    type: OS::Heat::DeployedServer
    properties:
      software_config_transport: POLL_SERVER_HEAT
  hello:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: name}]
      outputs: [{name: greeting}]
      config: echo "hello $name" > $heat_outputs_path.greeting
  done:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: hello}
      server: {get_resource: server}
      signal_transport: NO_SIGNAL
      input_values: {name: done}
  settings:
    type: OS::Heat::StructuredConfig
    properties:
      group: apply-config
      config: {port: {get_input: port}}
  structured:
    type: OS::Heat::StructuredDeployment
    properties:
      config: {get_resource: settings}
      server: {get_resource: server}
      signal_transport: NO_SIGNAL
      input_values: {port: 8080}
  waiting:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: hello}
      server: {get_resource: server}
      signal_transport: HEAT_SIGNAL
      input_values: {name: waiting}
'''


def _deployments(client, server_id):
    """name of its input "name" or "port" -> Heat's deployment."""
    found = {}
    for deployment in client.software_deployments.list(server_id=server_id):
        values = deployment.input_values or {}
        found[str(values.get('name', values.get('port')))] = deployment
    return found


def test_a_heat_stack_is_imported_verified_and_kept_up_to_date(heat_cloud):
    cloud = heat_cloud
    name = f'import-{uuid.uuid4().hex[:8]}'
    project = cloud.project_id()
    client = cloud.heat_client()
    cloud.create_stack(name, TEMPLATE, wait=False)
    server_id = waiting.wait_for(
        lambda: client.resources.get(name, 'server').physical_resource_id,
        TIMEOUT, 'the DeployedServer to exist')
    found = waiting.wait_for(
        lambda: (lambda d: d if len(d) == 3 else None)(
            _deployments(client, server_id)),
        TIMEOUT, 'Heat to make the three deployments')
    done, structured, later = found['done'], found['8080'], found['waiting']
    assert (done.status, structured.status, later.status) == (
        'COMPLETE', 'COMPLETE', 'IN_PROGRESS')

    dry = cloud.manage('heat-import', '--project', project, '--dry-run')
    assert f'Project {project}: would import' in dry
    assert (f'1 server(s) polling Heat with POLL_SERVER_HEAT: {server_id}'
            in dry), dry
    assert 'left for a later run' in dry and later.id in dry, dry
    api = cloud.swconfig_session()
    assert api.get(f'/software_deployments/{done.id}').status_code == 404

    first = cloud.manage('heat-import', '--project', project)
    assert first.startswith(f'Imported project {project} from Heat: '), first
    assert '1 servers, 2 software_deployments' in first, first
    for deployment in (done, structured):
        shown = api.get(f'/software_deployments/{deployment.id}')
        assert shown.status_code == 200, shown.text
        body = shown.json()['software_deployment']
        assert (body['config_id'], body['server_id'], body['status']) == (
            deployment.config_id, server_id, 'COMPLETE')
        config = api.get(f'/software_configs/{deployment.config_id}')
        assert config.status_code == 200, config.text
    assert api.get(f'/software_deployments/{later.id}').status_code == 404
    differs = cloud.manage('heat-verify', '--project', project, expected=1)
    assert f'not in swconfig: {later.config_id}' in differs, differs

    client.software_deployments.update(
        later.id, status='COMPLETE', status_reason='Outputs received',
        output_values={'greeting': 'hello waiting'}, action='CREATE')
    stack = cloud.wait_for_stack(name)
    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    second = cloud.manage('heat-import', '--project', project)
    assert '1 software_deployments' in second.split(';')[0], second
    assert 'already imported: ' in second, second
    password = next(item['value'] for item in client.software_configs.get(
        later.config_id).inputs if item['name'] == 'deploy_password')
    assert password
    imported = api.get(f'/software_configs/{later.config_id}').json()[
        'software_config']
    assert {item['name']: item.get('value') for item in imported['inputs']}[
        'deploy_password'] is None
    database = cloud.swconfig.config_file.rsplit('/', 1)[0] + '/swconfig.db'
    for path in (database, cloud.swconfig.api.log_path,
                 cloud.swconfig.engine.log_path):
        with open(path, 'rb') as handle:
            assert password.encode() not in handle.read(), path

    same = cloud.manage('heat-verify', '--project', project)
    heat_ids = [entry['id'] for entry in client.software_deployments.metadata(
        server_id)]
    assert len(heat_ids) == 3
    assert f'{server_id}     3         3  same' in same, same
    document = api.get(f'/software_deployments/metadata/{server_id}').json()
    assert [entry['id'] for entry in document['metadata']] == heat_ids

    client.software_deployments.update(
        done.id, status='FAILED', status_reason='failed later',
        action='UPDATE')
    third = cloud.manage('heat-import', '--project', project)
    assert 'changed in Heat since: 1 software_deployments' in third, third
    body = api.get(f'/software_deployments/{done.id}').json()[
        'software_deployment']
    assert (body['action'], body['status'], body['status_reason']) == (
        'UPDATE', 'FAILED', 'failed later')


CUTOVER_TEMPLATE = '''
heat_template_version: 2021-04-16
parameters:
  runlog: {type: string}
  later: {type: boolean, default: false}
conditions:
  later: {get_param: later}
resources:
  server:
    type: OS::Heat::DeployedServer
    properties:
      software_config_transport: POLL_SERVER_HEAT
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: runlog}, {name: name}]
      config: |
        #!/bin/sh
        echo "ran $name" >> "$runlog"
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      signal_transport: NO_SIGNAL
      input_values: {runlog: {get_param: runlog}, name: from-heat}
  again:
    type: OS::Heat::SoftwareDeployment
    condition: later
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      signal_transport: NO_SIGNAL
      input_values: {runlog: {get_param: runlog}, name: heat-again}
outputs:
  os_collect_config: {value: {get_attr: [server, os_collect_config]}}
'''


def _runs(path):
    return path.read_text().splitlines() if path.exists() else []


def _run_from_heat_and_import(cloud, agent, runlog, prefix):
    """A stack of CUTOVER_TEMPLATE whose agent, set up from its server's
    ``os_collect_config`` attribute through heat-agents' templates, ran
    its deployment from Heat; then imported. The stack's name, the stack,
    the server id and the attribute."""
    name = f'{prefix}-{uuid.uuid4().hex[:8]}'
    stack = cloud.create_stack(name, CUTOVER_TEMPLATE,
                               parameters={'runlog': str(runlog)})
    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    server_id = cloud.heat_client().resources.get(
        name, 'server').physical_resource_id
    block = {item['output_key']: item['output_value']
             for item in stack.outputs}['os_collect_config']
    agent.occ_config.write_text(
        agent.render_collector_config({'os-collect-config': block}))
    assert agent.run_once(None, collector='heat').check()
    assert _runs(runlog) == ['ran from-heat']
    cloud.manage('heat-import', '--project', cloud.project_id())
    return name, stack, server_id, block


def test_cutover_moves_a_polling_agent_and_revert_moves_it_back(
        heat_cloud, agent, tmp_path):
    """A real os-collect-config polling Heat (POLL_SERVER_HEAT), whose
    settings the real os-apply-config renders from each collection with
    heat-agents' templates, as on a server."""
    cloud = heat_cloud
    runlog = tmp_path / 'runs.log'
    client = cloud.heat_client()
    name, stack, server_id, block = _run_from_heat_and_import(
        cloud, agent, runlog, 'cutover')
    heat_conf = agent.occ_config.read_text()
    assert '[heat]' in heat_conf

    switched = cloud.manage('heat-cutover', '--server', server_id)

    assert switched == (f'server {server_id} (POLL_SERVER_HEAT): switched '
                        f'to swconfig: its next collection from Heat points '
                        f'it at its signed swconfig URL\n')
    assert agent.run_once(None, collector='heat').check()
    swconfig_conf = agent.render_collector_config(agent.collected('heat'))
    assert '[request]' in swconfig_conf and '[heat]' not in swconfig_conf
    agent.occ_config.write_text(swconfig_conf)
    api = cloud.swconfig_session()
    config = api.post('/software_configs', json={
        'name': 'z-swconfig', 'group': 'script',
        'inputs': [{'name': 'runlog'}, {'name': 'name'}],
        'config': '#!/bin/sh\necho "ran $name" >> "$runlog"\n'}).json()[
            'software_config']
    created = api.post('/software_deployments', json={
        'config_id': config['id'], 'server_id': server_id,
        'input_values': {'runlog': str(runlog), 'name': 'from-swconfig'},
        'signal_transport': 'HEAT_SIGNAL'})
    assert created.status_code == 200, created.text
    deployment_id = created.json()['software_deployment']['id']
    run = agent.run_once(None).check()
    waiting.wait_for(lambda: api.get(
        f'/software_deployments/{deployment_id}').json()[
            'software_deployment']['status'] == 'COMPLETE', TIMEOUT,
        f'the deployment made in swconfig to complete:\n{swconfig_conf}\n'
        f'{run.output}')
    # What ran from Heat did not run again.
    assert _runs(runlog) == ['ran from-heat', 'ran from-swconfig']

    back = cloud.manage('heat-cutover', '--revert', '--server', server_id)

    assert 'back on Heat' in back, back
    assert agent.run_once(None).check()
    returned = agent.render_collector_config(agent.collected('request'))
    assert returned == heat_conf
    agent.occ_config.write_text(returned)
    client.stacks.update(stack.id, template=CUTOVER_TEMPLATE, parameters={
        'runlog': str(runlog), 'later': True})
    updated = cloud.wait_for_stack(name)
    assert updated.stack_status == 'UPDATE_COMPLETE', (
        updated.stack_status_reason)
    assert agent.run_once(None, collector='heat').check()
    assert _runs(runlog) == ['ran from-heat', 'ran from-swconfig',
                             'ran heat-again']
    # Nowhere in swconfig's files: the database, its write-ahead log
    # (where the latest rows may still be), the logs.
    workdir = pathlib.Path(cloud.swconfig.config_file).parent
    for path in workdir.iterdir():
        if path.is_file():
            assert block['heat']['password'].encode() not in (
                path.read_bytes()), path


ENVIRONMENT = (pathlib.Path(__file__).parents[2] / 'etc' / 'heat'
               / 'swconfig-environment.yaml')


def test_an_imported_stack_is_adopted_through_the_swconfig_types(
        heat_cloud, agent, tmp_path):
    """Import, cut over, abandon the stack, adopt its data again with
    swconfig-environment.yaml: Heat manages the stack through the
    OS::Swconfig:: types, finds every config and deployment under Heat's
    ids, and nothing runs again on the server."""
    cloud = heat_cloud
    runlog = tmp_path / 'runs.log'
    client = cloud.heat_client()
    name, _stack, server_id, _block = _run_from_heat_and_import(
        cloud, agent, runlog, 'adopt')
    cloud.manage('heat-cutover', '--server', server_id)
    assert agent.run_once(None, collector='heat').check()
    agent.occ_config.write_text(
        agent.render_collector_config(agent.collected('heat')))
    api = cloud.swconfig_session()
    before = api.get('/software_deployments',
                     params={'server_id': server_id}).json()
    assert len(before['software_deployments']) == 1

    data_file = tmp_path / 'abandoned.json'
    cloud.openstack('stack', 'abandon', name, '--output-file',
                    str(data_file))
    adopted = f'adopted-{uuid.uuid4().hex[:8]}'
    cloud.openstack('stack', 'adopt', '--adopt-file', str(data_file),
                    '-e', str(ENVIRONMENT), '--wait', adopted)

    stack = cloud.wait_for_stack(adopted)
    assert stack.stack_status == 'ADOPT_COMPLETE', (
        stack.stack_status_reason, cloud.describe_events(adopted))
    assert agent.run_once(None).check()
    assert _runs(runlog) == ['ran from-heat']
    assert api.get('/software_deployments',
                   params={'server_id': server_id}).json() == before

    # Managed through swconfig now: an update runs UPDATE there.
    moved = tmp_path / 'after-adopt.log'
    client.stacks.update(stack.id, template=CUTOVER_TEMPLATE,
                         environment=yaml.safe_load(ENVIRONMENT.read_text()),
                         parameters={'runlog': str(moved)})
    deployment_id = before['software_deployments'][0]['id']
    waiting.wait_for(lambda: api.get(
        f'/software_deployments/{deployment_id}').json()[
            'software_deployment']['action'] == 'UPDATE', TIMEOUT,
        'the stack update to reach swconfig')
    run = agent.run_once(None).check()
    updated = cloud.wait_for_stack(adopted)
    assert updated.stack_status == 'UPDATE_COMPLETE', (
        updated.stack_status_reason, cloud.describe_events(adopted))
    shown = api.get(f'/software_deployments/{deployment_id}').json()
    assert _runs(moved) == ['ran from-heat'], (
        run.output, _runs(runlog), shown,
        api.get(f'/software_configs/'
                f'{shown["software_deployment"]["config_id"]}').json())
