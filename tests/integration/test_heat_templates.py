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

"""Heat templates deploy through swconfig: a real Heat 27 (heat-api and
heat-engine from PyPI) with the OS::Swconfig::* plug-in loaded from
``swconfig-manage heat-plugin-path``, a real Keystone whose catalog has
swconfig under ``software-config``, and real os-collect-config +
heat-agents as the servers' agents (``tests.fixtures.heat_service``).
Nothing of Heat or swconfig is mocked: every stack is created through
Heat's API, every deployment runs on an agent and signals swconfig.
"""

import datetime
import json
import pathlib
import re
import time
import uuid

import pytest
import yaml

from tests.fixtures import stack_agents

pytestmark = pytest.mark.integration

ENVIRONMENT = (pathlib.Path(__file__).parents[2] / 'etc' / 'heat'
               / 'swconfig-environment.yaml')

#: A script config, a deployment of it and a component with an entry per
#: lifecycle action, deployed to one server. {ns} is OS::Swconfig or
#: OS::Heat (with the environment file). Every run appends a line to the
#: run log, so a test can count what ran on the server.
LIFECYCLE = '''
heat_template_version: 2021-04-16
parameters:
  server: {{type: string}}
  runlog: {{type: string}}
  name: {{type: string, default: world}}
resources:
  config:
    type: {ns}::SoftwareConfig
    properties:
      group: script
      inputs: [{{name: name}}, {{name: runlog}}]
      outputs: [{{name: greeting}}]
      config: |
        #!/bin/sh
        echo "script $deploy_action $name" >> "$runlog"
        printf 'hello %s' "$name" > "$heat_outputs_path.greeting"
        echo "stdout of $deploy_action"
  deployment:
    type: {ns}::SoftwareDeployment
    properties:
      config: {{get_resource: config}}
      server: {{get_param: server}}
      input_values:
        name: {{get_param: name}}
        runlog: {{get_param: runlog}}
  component:
    type: {ns}::SoftwareComponent
    properties:
      inputs: [{{name: runlog}}]
      outputs: [{{name: last_action}}]
      configs:
      - actions: [CREATE, UPDATE]
        tool: script
        config: &entry |
          #!/bin/sh
          echo "component $deploy_action" >> "$runlog"
          printf '%s' "$deploy_action" > "$heat_outputs_path.last_action"
      - {{actions: [SUSPEND], tool: script, config: *entry}}
      - {{actions: [RESUME], tool: script, config: *entry}}
      - {{actions: [DELETE], tool: script, config: *entry}}
  component_deployment:
    type: {ns}::SoftwareDeployment
    properties:
      config: {{get_resource: component}}
      server: {{get_param: server}}
      input_values: {{runlog: {{get_param: runlog}}}}
outputs:
  greeting: {{value: {{get_attr: [deployment, greeting]}}}}
  stdout: {{value: {{get_attr: [deployment, deploy_stdout]}}}}
  status_code: {{value: {{get_attr: [deployment, deploy_status_code]}}}}
  last_action: {{value: {{get_attr: [component_deployment, last_action]}}}}
  deployment_id: {{value: {{get_resource: deployment}}}}
  component_deployment_id: {{value: {{get_resource: component_deployment}}}}
'''


def _environment(ns: str) -> dict:
    """Nothing for the OS::Swconfig names; the shipped file for Heat's."""
    if ns == 'OS::Swconfig':
        return {}
    return yaml.safe_load(ENVIRONMENT.read_text())


def _outputs(stack) -> dict:
    return {item['output_key']: item['output_value']
            for item in stack.outputs or ()}


def _server() -> str:
    return f'heat-server-{uuid.uuid4().hex[:10]}'


def _lines(path: pathlib.Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _assert_status(cloud, stack, status: str) -> None:
    assert stack.stack_status == status, (
        f'{stack.stack_status}: {stack.stack_status_reason}\n'
        f'{cloud.describe_events(stack.stack_name)}\n{cloud.log_tails()}')


@pytest.mark.parametrize('ns', ['OS::Swconfig', 'OS::Heat'])
def test_a_stack_lives_through_swconfig(heat_cloud, agent, tmp_path, ns):
    """Create, update, suspend, resume and delete a stack whose configs
    run on a real agent: each stack action runs once on the server, the
    outputs come back as attributes, and nothing is left in swconfig."""
    server = _server()
    runlog = tmp_path / 'runs.log'
    session = heat_cloud.swconfig_session()
    url = stack_agents.metadata_url(session, server)
    name = f'lifecycle-{uuid.uuid4().hex[:8]}'
    heat = heat_cloud.heat_client()
    template = LIFECYCLE.format(ns=ns)
    environment = _environment(ns)
    with stack_agents.PollingAgent(agent, url) as polling:
        stack = heat_cloud.create_stack(
            name, template, environment=environment,
            parameters={'server': server, 'runlog': str(runlog)})
        _assert_status(heat_cloud, stack, 'CREATE_COMPLETE')
        outputs = _outputs(stack)
        assert outputs['greeting'] == 'hello world'
        assert outputs['stdout'].strip() == 'stdout of CREATE'
        assert str(outputs['status_code']) == '0'
        assert outputs['last_action'] == 'CREATE'
        assert sorted(_lines(runlog)) == ['component CREATE',
                                          'script CREATE world']
        deployment_id = outputs['deployment_id']

        heat.stacks.update(stack.id, template=template,
                           environment=environment,
                           parameters={'server': server,
                                       'runlog': str(runlog),
                                       'name': 'you'})
        stack = heat_cloud.wait_for_stack(name)
        _assert_status(heat_cloud, stack, 'UPDATE_COMPLETE')
        outputs = _outputs(stack)
        assert outputs['greeting'] == 'hello you'
        # Updated in place: the same deployment ran UPDATE once.
        assert outputs['deployment_id'] == deployment_id
        assert _lines(runlog).count('script UPDATE you') == 1
        shown = session.get(f'/software_deployments/{deployment_id}').json()
        assert shown['software_deployment']['action'] == 'UPDATE'
        assert shown['software_deployment']['input_values']['name'] == 'you'

        for action, done in (('suspend', 'SUSPEND_COMPLETE'),
                             ('resume', 'RESUME_COMPLETE')):
            getattr(heat.actions, action)(stack.id)
            stack = heat_cloud.wait_for_stack(name)
            _assert_status(heat_cloud, stack, done)
            assert _outputs(stack)['last_action'] == done.split('_')[0]
        # The script's actions are CREATE and UPDATE only.
        assert not [line for line in _lines(runlog)
                    if line.startswith('script S')
                    or line.startswith('script R')]

        ids = _swconfig_ids(session, outputs)
        assert heat_cloud.delete_stack(name) is None, (
            heat_cloud.describe_events(name))
    assert _lines(runlog)[-1] == 'component DELETE', polling.output()
    for path in ids:
        reply = session.get(path)
        assert reply.status_code == 404, f'{path} left behind: {reply.text}'


def _swconfig_ids(session, outputs: dict) -> list[str]:
    """The paths of every config and deployment the stack made."""
    paths = []
    for key in ('deployment_id', 'component_deployment_id'):
        deployment = session.get(
            f'/software_deployments/{outputs[key]}').json()[
                'software_deployment']
        paths += [f'/software_deployments/{deployment["id"]}',
                  f'/software_configs/{deployment["config_id"]}',
                  f'/software_configs/{deployment["source_config_id"]}']
    return paths


FAILING = '''
heat_template_version: 2021-04-16
parameters:
  server: {type: string}
resources:
  config:
    type: OS::Swconfig::SoftwareConfig
    properties:
      group: script
      config: |
        #!/bin/sh
        echo "preparing" >&2
        echo "disk /dev/vdb is full" >&2
        exit 3
  deployment:
    type: OS::Swconfig::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_param: server}
'''


def test_a_failing_script_fails_the_stack_with_its_stderr(
        heat_cloud, agent):
    server = _server()
    url = stack_agents.metadata_url(heat_cloud.swconfig_session(), server)
    name = f'failing-{uuid.uuid4().hex[:8]}'
    with stack_agents.PollingAgent(agent, url):
        stack = heat_cloud.create_stack(name, FAILING,
                                        parameters={'server': server})
    _assert_status(heat_cloud, stack, 'CREATE_FAILED')
    reason = stack.stack_status_reason
    assert 'Deployment to server failed' in reason
    assert 'deploy_status_code 3' in reason
    assert reason.rstrip().endswith('disk /dev/vdb is full'), reason
    assert 'Traceback' not in reason
    heat_cloud.delete_stack(name)


ABANDON = '''
heat_template_version: 2021-04-16
parameters:
  server: {type: string}
  runlog: {type: string}
resources:
  config:
    type: OS::Swconfig::SoftwareConfig
    properties:
      group: script
      inputs: [{name: runlog}]
      outputs: [{name: result}]
      config: |
        #!/bin/sh
        echo "ran $deploy_action" >> "$runlog"
        printf done > "$heat_outputs_path.result"
  deployment:
    type: OS::Swconfig::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_param: server}
      input_values: {runlog: {get_param: runlog}}
outputs:
  result: {value: {get_attr: [deployment, result]}}
'''


def test_abandon_then_adopt_runs_nothing_again(heat_cloud, agent,
                                               tmp_path):
    server = _server()
    runlog = tmp_path / 'runs.log'
    session = heat_cloud.swconfig_session()
    url = stack_agents.metadata_url(session, server)
    name = f'abandon-{uuid.uuid4().hex[:8]}'
    parameters = {'server': server, 'runlog': str(runlog)}
    with stack_agents.PollingAgent(agent, url):
        stack = heat_cloud.create_stack(name, ABANDON,
                                        parameters=parameters)
    _assert_status(heat_cloud, stack, 'CREATE_COMPLETE')
    assert _lines(runlog) == ['ran CREATE']
    deployments = session.get('/software_deployments',
                              params={'server_id': server}).json()
    assert len(deployments['software_deployments']) == 1

    data_file = tmp_path / 'abandoned.json'
    heat_cloud.openstack('stack', 'abandon', name, '--output-file',
                         str(data_file))
    # Heat forgot the stack; swconfig kept the deployment.
    assert heat_cloud.openstack('stack', 'show', name,
                                check=False).returncode != 0
    after = session.get('/software_deployments',
                        params={'server_id': server}).json()
    assert after == deployments

    adopted = f'adopted-{uuid.uuid4().hex[:8]}'
    heat_cloud.openstack('stack', 'adopt', '--adopt-file', str(data_file),
                         '--wait', adopted)
    stack = heat_cloud.wait_for_stack(adopted)
    _assert_status(heat_cloud, stack, 'ADOPT_COMPLETE')
    assert _outputs(stack)['result'] == 'done'
    # The agent sees the same document and runs nothing.
    run = agent.run_once(url).check()
    assert _lines(runlog) == ['ran CREATE'], run
    assert session.get('/software_deployments', params={
        'server_id': server}).json() == deployments
    assert heat_cloud.delete_stack(adopted) is None
    assert session.get('/software_deployments', params={
        'server_id': server}).json() == {'software_deployments': []}


def _bad(heat_cloud, name: str, template: str, parameters: dict) -> str:
    stack = heat_cloud.create_stack(name, template, parameters=parameters)
    _assert_status(heat_cloud, stack, 'CREATE_FAILED')
    reason = stack.stack_status_reason
    assert 'Traceback' not in reason
    heat_cloud.delete_stack(name)
    return reason


def test_an_unknown_config_fails_with_swconfigs_404(heat_cloud):
    template = '''
heat_template_version: 2021-04-16
resources:
  deployment:
    type: OS::Swconfig::SoftwareDeployment
    properties:
      config: 0b5ad1f5-0000-4000-8000-000000000000
      server: anywhere
'''
    reason = _bad(heat_cloud, f'unknown-{uuid.uuid4().hex[:8]}', template,
                  {})
    assert 'HTTP 404' in reason
    assert '0b5ad1f5-0000-4000-8000-000000000000' in reason


def test_a_server_of_another_project_fails_with_swconfigs_403(heat_cloud):
    server = _server()
    # member_b's project registers the server first.
    stack_agents.metadata_url(heat_cloud.swconfig_session('member_b'),
                              server)
    reason = _bad(heat_cloud, f'foreign-{uuid.uuid4().hex[:8]}',
                  FAILING, {'server': server})
    assert 'HTTP 403' in reason
    assert server in reason


def test_a_bad_action_name_fails_with_swconfigs_400(heat_cloud):
    template = '''
heat_template_version: 2021-04-16
resources:
  component:
    type: OS::Swconfig::SoftwareComponent
    properties:
      configs:
      - {actions: [CREATE], tool: script, config: "true"}
      - {actions: ["BACK UP"], tool: script, config: "true"}
'''
    reason = _bad(heat_cloud, f'badaction-{uuid.uuid4().hex[:8]}',
                  template, {})
    assert 'HTTP 400' in reason
    assert 'BACK UP' in reason


GROUP = '''
heat_template_version: 2021-04-16
parameters:
  servers: {type: json}
  greeting: {type: string, default: hi}
resources:
  config:
    type: OS::Swconfig::SoftwareConfig
    properties:
      group: script
      inputs: [{name: greeting}]
      config: "#!/bin/sh\\necho $greeting"
  group:
    type: OS::Swconfig::SoftwareDeploymentGroup
    properties:
      config: {get_resource: config}
      servers: {get_param: servers}
      input_values: {greeting: {get_param: greeting}}
outputs:
  stdouts: {value: {get_attr: [group, deploy_stdouts]}}
'''


def _group_servers(heat_cloud, count: int) -> dict[str, str]:
    """name -> server id, each server registered with its signed URL."""
    session = heat_cloud.swconfig_session()
    servers = {f'node-{index:02d}': _server() for index in range(count)}
    return servers, {server: stack_agents.metadata_url(session, server)
                     for server in servers.values()}


def test_a_group_of_twenty_servers(heat_cloud, record_property):
    """The group completes, each member one deployment in swconfig; then
    an update that fails on one server fails the group, naming it."""
    servers, urls = _group_servers(heat_cloud, 20)
    failing = servers['node-13']

    def outputs(server_id: str, derived: dict) -> dict:
        inputs = {item['name']: item.get('value')
                  for item in derived.get('inputs') or ()}
        action = inputs.get('deploy_action')
        if server_id == failing and action == 'UPDATE':
            return {'deploy_stdout': '', 'deploy_stderr': 'no route',
                    'deploy_status_code': 2}
        return {'deploy_stdout': f'{action} on {server_id}',
                'deploy_stderr': '', 'deploy_status_code': 0}

    name = f'group-{uuid.uuid4().hex[:8]}'
    parameters = {'servers': json.dumps(servers)}
    log_start = pathlib.Path(heat_cloud.engine.log_path).stat().st_size
    with stack_agents.SimulatedAgents(urls, outputs) as simulated:
        started = time.monotonic()
        stack = heat_cloud.create_stack(name, GROUP, parameters=parameters)
        # (the fixture looks at the stack every half second)
        created = time.monotonic() - started
        _assert_status(heat_cloud, stack, 'CREATE_COMPLETE')
        calls, busy, waiting = swconfig_time(heat_cloud.engine.log_path,
                                             log_start)
        assert _outputs(stack)['stdouts'] == {
            node: f'CREATE on {server}' for node, server in servers.items()}
        # Every member is its own deployment in swconfig, created once.
        for server in servers.values():
            assert len(_deployments(heat_cloud, server)) == 1

        heat_cloud.heat_client().stacks.update(
            stack.id, template=GROUP, parameters={
                **parameters, 'greeting': 'hello again'})
        stack = heat_cloud.wait_for_stack(name)
    _assert_status(heat_cloud, stack, 'UPDATE_FAILED')
    assert 'node-13' in stack.stack_status_reason
    assert 'no route' in stack.stack_status_reason
    assert 'deploy_status_code 2' in stack.stack_status_reason
    assert not simulated.errors, simulated.errors
    record_property('group_of_20_create_seconds', round(created, 2))
    record_property('group_of_20_swconfig_share', round(busy / created, 3))
    print(f'\n20-server group: stack created in {created:.2f} s; '
          f'{calls} requests to swconfig, at least one of them (long '
          f'polls aside) in flight for {busy:.2f} s '
          f'({100 * busy / created:.0f}% of it); long polls for '
          f'{waiting:.2f} s')
    assert calls >= 20 * 2
    assert heat_cloud.delete_stack(name) is None


def test_batch_create_is_honoured(heat_cloud):
    """Heat's batch_create policy: three at a time, each batch handed to
    the agents only once the one before has signalled."""
    servers, urls = _group_servers(heat_cloud, 6)
    template = GROUP.replace(
        'type: OS::Swconfig::SoftwareDeploymentGroup\n',
        'type: OS::Swconfig::SoftwareDeploymentGroup\n'
        '    update_policy: {batch_create: {max_batch_size: 3}}\n')
    name = f'batched-{uuid.uuid4().hex[:8]}'
    with stack_agents.SimulatedAgents(urls) as simulated:
        stack = heat_cloud.create_stack(name, template, parameters={
            'servers': json.dumps(servers)})
    _assert_status(heat_cloud, stack, 'CREATE_COMPLETE')
    runs = simulated.batches('CREATE')
    assert len(runs) == 6
    assert stack_agents.started_after_previous_batch(runs, 3), runs
    assert heat_cloud.delete_stack(name) is None


def _deployments(heat_cloud, server: str) -> list[dict]:
    return heat_cloud.swconfig_session().get(
        '/software_deployments', params={'server_id': server}).json()[
            'software_deployments']


REQUEST_LOG = re.compile(
    r'^(\S+ \S+) .*swconfig (\w+) (\S+)( \{.*\})? answered \d+ in '
    r'([\d.]+) s')


def swconfig_time(log_path: str, offset: int) -> tuple[int, float, float]:
    """From the heat-engine log after ``offset``: how many requests the
    plug-in made to swconfig, for how long at least one request other
    than a long poll (``?wait``) was in flight, and for how long a long
    poll was (intervals merged, so parallel members count once)."""
    with open(log_path, errors='replace') as handle:
        handle.seek(offset)
        lines = handle.read().splitlines()
    plain, polls = [], []
    for line in lines:
        found = REQUEST_LOG.match(line)
        if not found:
            continue
        end = datetime.datetime.strptime(found.group(1),
                                         '%Y-%m-%d %H:%M:%S.%f')
        seconds = float(found.group(5))
        interval = (end.timestamp() - seconds, end.timestamp())
        (polls if "'wait'" in (found.group(4) or '') else plain).append(
            interval)
    return len(plain) + len(polls), _covered(plain), _covered(polls)


def _covered(intervals: list[tuple[float, float]]) -> float:
    total, reach = 0.0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


HEAT_FUNCTIONAL_TEST = 'heat_integrationtests/functional/' \
    'test_software_deployment_group.py'


def _heats_own_template(attribute: str) -> str:
    """A template of Heat's own functional tests, read from the installed
    openstack-heat (not imported: it is a test module of Heat's)."""
    import ast
    import importlib.util
    spec = importlib.util.find_spec('heat_integrationtests')
    path = pathlib.Path(spec.origin).parent.parent / HEAT_FUNCTIONAL_TEST
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], 'id', None) == attribute):
            return node.value.value
    raise AssertionError(f'{attribute} not found in {path}')


def _deployment_of(session, server: str) -> dict:
    found = session.get('/software_deployments',
                        params={'server_id': server}).json()[
                            'software_deployments']
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize('attribute', ['sd_template',
                                       'sd_template_with_upd_policy'])
def test_heats_own_group_template_runs_unchanged(heat_cloud, attribute):
    """Heat's functional test of SoftwareDeploymentGroup, its template as
    Heat ships it, with only swconfig's environment file: four servers
    (plain ids, no Nova) signalled by their agents; an update of the
    input runs UPDATE on each (two at a time with rolling_update); the
    delete leaves nothing."""
    template = _heats_own_template(attribute)
    assert 'OS::Heat::SoftwareDeploymentGroup' in template
    session = heat_cloud.swconfig_session()
    servers = [f'dummy{index}' for index in range(4)]
    urls = {server: stack_agents.metadata_url(session, server)
            for server in servers}
    name = f'heats-own-{uuid.uuid4().hex[:8]}'
    environment = _environment('OS::Heat')
    heat = heat_cloud.heat_client()
    with stack_agents.SimulatedAgents(urls) as simulated:
        stack = heat_cloud.create_stack(name, template,
                                        environment=environment)
        _assert_status(heat_cloud, stack, 'CREATE_COMPLETE')
        for server in servers:
            deployment = _deployment_of(session, server)
            assert deployment['input_values'] == {'foo': 'foo_input'}
            assert deployment['status'] == 'COMPLETE'
        heat.stacks.update(stack.id, template=template,
                           environment=environment,
                           parameters={'input': 'input2'})
        stack = heat_cloud.wait_for_stack(name)
        _assert_status(heat_cloud, stack, 'UPDATE_COMPLETE')
    assert not simulated.errors, simulated.errors
    updates = []
    for server in servers:
        deployment = _deployment_of(session, server)
        assert deployment['input_values'] == {'foo': 'input2'}
        assert deployment['action'] == 'UPDATE'
        events = session.get(f'/software_deployments/{deployment["id"]}'
                             f'/events').json()['events']
        started = [e['time'] for e in events if e['action'] == 'UPDATE'
                   and e['new_status'] == 'IN_PROGRESS']
        done = [e['time'] for e in events if e['action'] == 'UPDATE'
                and e['new_status'] == 'COMPLETE']
        assert len(started) == 1 and len(done) == 1, events
        updates.append((started[0], done[0]))
    if attribute == 'sd_template_with_upd_policy':
        # max_batch_size 2: the second pair starts after the first ended.
        runs = simulated.batches('UPDATE')
        assert len(runs) == 4
        assert stack_agents.started_after_previous_batch(runs, 2), runs
    assert heat_cloud.delete_stack(name) is None
    for server in servers:
        assert session.get('/software_deployments', params={
            'server_id': server}).json() == {'software_deployments': []}


STRUCTURED = '''
heat_template_version: 2021-04-16
parameters:
  server: {type: string}
  validate: {type: string, default: LAX}
resources:
  config:
    type: OS::Heat::StructuredConfig
    properties:
      config:
        config_value_foo: {get_input: foo}
        nested: [{get_input: bar}, {get_input: deploy_action}]
        missing: {get_input: baz}
  deployment:
    type: OS::Heat::StructuredDeployment
    properties:
      signal_transport: NO_SIGNAL
      config: {get_resource: config}
      server: {get_param: server}
      input_values_validate: {get_param: validate}
      input_values: {foo: fooooo, bar: baaaaa}
'''


def test_a_structured_deployment_is_substituted_by_swconfig(heat_cloud):
    """Heat's get_input substitution, done by swconfig's engine: the
    server's document has the values; STRICT with an input missing fails
    the resource with swconfig's 400."""
    server = _server()
    session = heat_cloud.swconfig_session()
    stack_agents.metadata_url(session, server)
    environment = _environment('OS::Heat')
    name = f'structured-{uuid.uuid4().hex[:8]}'
    stack = heat_cloud.create_stack(name, STRUCTURED,
                                    environment=environment,
                                    parameters={'server': server})
    _assert_status(heat_cloud, stack, 'CREATE_COMPLETE')
    document = session.get(f'/software_deployments/metadata/{server}'
                           ).json()['metadata']
    assert [item['config'] for item in document] == [{
        'config_value_foo': 'fooooo', 'nested': ['baaaaa', 'CREATE'],
        'missing': None}]
    assert heat_cloud.delete_stack(name) is None

    strict = f'structured-strict-{uuid.uuid4().hex[:8]}'
    stack = heat_cloud.create_stack(strict, STRUCTURED,
                                    environment=environment,
                                    parameters={'server': server,
                                                'validate': 'STRICT'})
    _assert_status(heat_cloud, stack, 'CREATE_FAILED')
    assert 'HTTP 400' in stack.stack_status_reason
    assert 'baz' in stack.stack_status_reason
    heat_cloud.delete_stack(strict)


REPLACING = '''
heat_template_version: 2021-04-16
parameters:
  server: {type: string}
  version: {type: string}
  note: {type: string}
resources:
  config:
    type: OS::Swconfig::SoftwareConfig
    properties:
      group: script
      inputs:
      - {name: version, replace_on_change: true}
      - {name: note}
      config: "#!/bin/sh\\ntrue"
  deployment:
    type: OS::Swconfig::SoftwareDeployment
    properties:
      signal_transport: NO_SIGNAL
      config: {get_resource: config}
      server: {get_param: server}
      input_values:
        version: {get_param: version}
        note: {get_param: note}
outputs:
  deployment_id: {value: {get_resource: deployment}}
'''


def test_replace_on_change_replaces_the_deployment(heat_cloud):
    """Heat's rule: a changed input declared replace_on_change makes a new
    deployment (the old one is deleted); any other input updates it."""
    server = _server()
    session = heat_cloud.swconfig_session()
    stack_agents.metadata_url(session, server)
    heat = heat_cloud.heat_client()
    name = f'replacing-{uuid.uuid4().hex[:8]}'
    stack = heat_cloud.create_stack(name, REPLACING, parameters={
        'server': server, 'version': '1', 'note': 'a'})
    _assert_status(heat_cloud, stack, 'CREATE_COMPLETE')
    first = _outputs(stack)['deployment_id']

    heat.stacks.update(stack.id, template=REPLACING, parameters={
        'server': server, 'version': '1', 'note': 'b'})
    stack = heat_cloud.wait_for_stack(name)
    _assert_status(heat_cloud, stack, 'UPDATE_COMPLETE')
    assert _outputs(stack)['deployment_id'] == first

    heat.stacks.update(stack.id, template=REPLACING, parameters={
        'server': server, 'version': '2', 'note': 'b'})
    stack = heat_cloud.wait_for_stack(name)
    _assert_status(heat_cloud, stack, 'UPDATE_COMPLETE')
    second = _outputs(stack)['deployment_id']
    assert second != first
    assert [item['id'] for item in _deployments(heat_cloud, server)] == [
        second]
    assert heat_cloud.delete_stack(name) is None
