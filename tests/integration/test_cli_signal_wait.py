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

"""The readable lists of the ``swconfig`` command, run as the real
console script against a running ``swconfig-all``
(``test_swconfig_cli``'s fixtures)."""

import uuid

from tests.integration import test_swconfig_cli as swconfig_cli
from tests.integration.test_swconfig_cli import Cli
from tests.integration.test_swconfig_cli import hello_config

# The same fixtures: a swconfig-all for the module, a project per test.
service = swconfig_cli.service
project = swconfig_cli.project
cli = swconfig_cli.cli

BACKUP_COMPONENT = '''\
configs:
- actions: [CREATE]
  tool: script
  config: echo create
- actions: [BACKUP]
  tool: script
  config: echo backup
'''


def _deploy(cli: Cli, config_id: str, *args: str) -> dict:
    server = f'server-{uuid.uuid4().hex[:8]}'
    return cli('deployment', 'create', '--config', config_id, '--server',
               server, *args, '-f', 'json').ok().json()


# -- readable lists ----------------------------------------------------------

def test_deployments_show_name_source_transport_and_trigger(cli):
    (cli.workdir / 'component.yaml').write_text(BACKUP_COMPONENT)
    source = cli('config', 'create', 'db', '--group', 'component',
                 '--config-file', 'component.yaml', '-f',
                 'json').ok().json()
    original = _deploy(cli, source['id'], '--name', 'db-main',
                       '--signal-transport', 'HEAT_SIGNAL')
    trigger = cli('deployment', 'trigger', original['id'], '--action',
                  'BACKUP', '-f', 'json').ok().json()

    columns = ('name', 'source_config_id', 'signal_transport',
               'triggered_from')
    listed = cli('deployment', 'list', '-f', 'json').ok().json()
    assert [tuple(d[c] for c in ('id', *columns)) for d in listed] == [
        (original['id'], 'db-main', source['id'], 'HEAT_SIGNAL', None),
        (trigger['id'], 'db-BACKUP', source['id'], 'HEAT_SIGNAL',
         original['id'])]
    assert list(listed[0]) == ['id', 'name', 'server_id', 'action',
                               'status', *columns[1:], 'creation_time']
    shown = cli('deployment', 'show', trigger['id'], '-f', 'json').ok()
    assert {c: shown.json()[c] for c in columns} == {
        'name': 'db-BACKUP', 'source_config_id': source['id'],
        'signal_transport': 'HEAT_SIGNAL', 'triggered_from': original['id']}
    table = cli('deployment', 'list').ok().stdout
    assert 'triggered_from' in table and 'db-BACKUP' in table


def test_config_list_hides_derived_configs_unless_all(cli):
    config = hello_config(cli)
    deployment = _deploy(cli, config['id'])
    listed = cli('config', 'list', '-f', 'json').ok().json()
    assert [c['id'] for c in listed] == [config['id']]
    everything = cli('config', 'list', '--all', '-f', 'json').ok().json()
    assert [c['id'] for c in everything] == [deployment['config_id'],
                                             config['id']]
