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

"""``OS::Swconfig::Agent`` through a real Heat (``heat_cloud``): the
shipped example ``etc/heat/swconfig-server.yaml`` runs unchanged (its
Nova server mapped to ``OS::Heat::None``, as the fixtures have no Nova);
a real os-collect-config configured with exactly the file the agent's
cloud-init user data writes polls swconfig, heat-agents run the
component, and the stack completes with its output. Deleting the stack
unregisters the server.
"""

import pathlib
import uuid

import pytest
import yaml

from tests.fixtures import waiting

pytestmark = pytest.mark.integration

EXAMPLE = (pathlib.Path(__file__).parents[2] / 'etc' / 'heat'
           / 'swconfig-server.yaml')
#: Where the user data writes os-collect-config's settings (the plug-in
#: says so too; it imports Heat, which this process must not).
CONFIG_PATH = '/etc/os-collect-config.conf'
#: The fixtures have no Nova: the server is a placeholder; the test's
#: agent is the server.
NO_NOVA = {'resource_registry': {'OS::Nova::Server': 'OS::Heat::None'}}
TIMEOUT = 120


def test_the_example_servers_agent_polls_swconfig_from_its_user_data(
        heat_cloud, agent):
    name = f'agent-{uuid.uuid4().hex[:8]}'
    client = heat_cloud.heat_client()
    heat_cloud.create_stack(name, EXAMPLE.read_text(), environment=NO_NOVA,
                            parameters={'image': 'any', 'flavor': 'any',
                                        'name': 'agent'}, wait=False)
    resource = waiting.wait_for(
        lambda: (lambda found: found if found.resource_status ==
                 'CREATE_COMPLETE' else None)(
            client.resources.get(name, 'agent', with_attr=['user_data'])),
        TIMEOUT, 'the agent resource')
    server_id = resource.physical_resource_id
    user_data = resource.attributes['user_data']

    assert user_data.startswith('#cloud-config\n')
    [written] = yaml.safe_load(user_data)['write_files']
    assert (written['path'], written['permissions']) == (
        CONFIG_PATH, '0600')
    agent.occ_config.write_text(written['content'])
    run = agent.run_once(None)
    assert run.returncode == 0, run.output

    stack = heat_cloud.wait_for_stack(name)
    assert stack.stack_status == 'CREATE_COMPLETE', (
        stack.stack_status_reason, heat_cloud.describe_events(name),
        run.output)
    outputs = {item['output_key']: item['output_value']
               for item in stack.outputs}
    assert outputs['greeting'] == 'hello agent'
    assert outputs['server_id'] == server_id
    session = heat_cloud.swconfig_session()
    shown = session.get(f'/servers/{server_id}')
    assert shown.status_code == 200, shown.text
    assert shown.json()['server']['labels'] == {'role': 'web'}

    assert heat_cloud.delete_stack(name) is None, (
        heat_cloud.describe_events(name))
    assert session.get(f'/servers/{server_id}').status_code == 404
