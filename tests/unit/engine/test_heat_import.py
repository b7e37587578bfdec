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

"""Reading Heat's tables (``heat_import.read``) from a SQLite file laid out
as Heat lays them out: each server's transport from the os-collect-config
block Heat gave it, Heat's order of a server's deployments (by config
name, oldest first among equal names), a stack user's password dropped
from finished deployments' configs and an IN_PROGRESS deployment holding
one left for later, with its derived config. tests/integration/
test_heat_import.py runs the same against a real Heat on MariaDB."""

import datetime
import json

import pytest
import sqlalchemy as sa

from swconfig.engine import heat_import

T0 = datetime.datetime(2031, 1, 2, 3, 4, 5, 6)
PASSWORD = 'stack-user-secret'


def _config(config_id, name, tenant='p1', password=None, seconds=0):
    inputs = [{'name': 'name', 'type': 'String'}]
    if password is not None:
        inputs.append({'name': 'deploy_password', 'value': password})
    return {'id': config_id, 'name': name, 'group': 'script',
            'tenant': tenant, 'created_at': T0 + datetime.timedelta(
                seconds=seconds),
            'config': json.dumps({'config': 'echo hi', 'inputs': inputs,
                                  'outputs': [], 'options': {}})}


def _deployment(deployment_id, config_id, server_id, status='COMPLETE',
                tenant='p1', seconds=0):
    return {'id': deployment_id, 'config_id': config_id,
            'server_id': server_id, 'input_values': json.dumps({'a': 1}),
            'output_values': None, 'action': 'CREATE', 'status': status,
            'status_reason': 'r', 'tenant': tenant,
            'stack_user_project_id': 'sup',
            'created_at': T0 + datetime.timedelta(seconds=seconds),
            'updated_at': None}


def _metadata(*collectors, listed=True):
    block = {name: {'x': 1} for name in collectors}
    if listed:
        block['collectors'] = list(collectors)
    return json.dumps({'os-collect-config': block, 'deployments': []})


@pytest.fixture
def heat_database(tmp_path):
    url = f'sqlite:///{tmp_path}/heat.sqlite'
    engine = sa.create_engine(url)
    heat_import.HEAT_TABLES.create_all(engine)

    def fill(configs, deployments, resources):
        with engine.begin() as connection:
            for table, rows in ((heat_import.CONFIG_TABLE, configs),
                                (heat_import.DEPLOYMENT_TABLE, deployments),
                                (heat_import.RESOURCE_TABLE, resources)):
                if rows:
                    connection.execute(sa.insert(table), rows)
        return url

    yield fill
    engine.dispose()


def test_transports_order_and_passwords(heat_database):
    url = heat_database(
        [_config('c-b', 'b'), _config('c-a', 'a', seconds=1),
         _config('c-a2', 'a', seconds=2),
         _config('c-pw', 'b', password=PASSWORD, seconds=3),
         _config('c-late', 'c', password=PASSWORD, seconds=4),
         _config('c-other', 'x', tenant='p2')],
        [_deployment('d-1', 'c-b', 's-1', seconds=1),
         _deployment('d-2', 'c-a2', 's-1', seconds=2),
         _deployment('d-3', 'c-a', 's-1', seconds=3),
         _deployment('d-4', 'c-pw', 's-2', seconds=4),
         _deployment('d-5', 'c-late', 's-2', status='IN_PROGRESS',
                     seconds=5),
         _deployment('d-6', 'c-other', 's-3', tenant='p2')],
        [{'nova_instance': 's-1', 'rsrc_metadata': _metadata('ec2', 'heat'),
          'action': 'CREATE'},
         {'nova_instance': 's-2', 'rsrc_metadata': _metadata(
             'request', listed=False), 'action': 'CREATE'},
         {'nova_instance': 's-3', 'rsrc_metadata': _metadata('zaqar'),
          'action': 'CREATE'}])

    inventory = heat_import.read(url)

    assert inventory.transports == {
        'p1': {'POLL_SERVER_HEAT': ['s-1'], 'POLL_TEMP_URL': ['s-2']},
        'p2': {'ZAQAR_MESSAGE': ['s-3']}}
    # By config name; "a" twice: the older deployment first.
    assert inventory.heat_order['s-1'] == ['c-a2', 'c-a', 'c-b']
    assert inventory.deferred == {'p1': [('d-5', 'IN_PROGRESS')], 'p2': []}
    project = inventory.projects[0]
    assert project['project_id'] == 'p1'
    assert [row['id'] for row in project['software_deployments']] == [
        'd-1', 'd-2', 'd-3', 'd-4']
    configs = {row['id']: row for row in project['software_configs']}
    assert 'c-late' not in configs  # left with its deployment
    assert {'name': 'deploy_password', 'value': None} in configs['c-pw'][
        'inputs']
    assert PASSWORD not in json.dumps(heat_import.document(inventory))
    assert [row['id'] for row in project['servers']] == ['s-1', 's-2']
    assert project['servers'][0]['created_at'] == (
        '2031-01-02T03:04:06.000006Z')


def test_a_deployment_a_stack_made_is_kept_as_one_swconfig_derives(
        tmp_path, heat_database):
    """Its source config, from its resource's ``config`` property (not
    when Heat encrypted the properties), and the signal transport its
    derived config names (swconfig's default for CFN_SIGNAL)."""
    def derived(config_id, transport):
        row = _config(config_id, 'd')
        body = json.loads(row['config'])
        body['inputs'].append({'name': 'deploy_signal_transport',
                               'value': transport})
        return dict(row, config=json.dumps(body))

    url = heat_database(
        [_config('source', 's'), derived('dc-1', 'TEMP_URL_SIGNAL'),
         derived('dc-2', 'CFN_SIGNAL'), derived('dc-3', 'HEAT_SIGNAL'),
         derived('dc-4', 'NO_SIGNAL'), derived('dc-5', 'TEMP_URL_SIGNAL')],
        [_deployment('d-1', 'dc-1', 's-1'), _deployment('d-2', 'dc-2', 's-1'),
         _deployment('d-3', 'dc-3', 's-1'), _deployment('d-4', 'dc-4', 's-1'),
         _deployment('d-5', 'dc-5', 's-1', status='IN_PROGRESS')],
        [])
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        for number, (deployment_id, encrypted) in enumerate(
                [('d-1', False), ('d-2', None), ('d-3', True),
                 ('d-5', False)], 1):
            connection.execute(sa.insert(heat_import.PROPERTIES_TABLE), {
                'id': number, 'encrypted': encrypted,
                'data': json.dumps({'config': 'source', 'server': 's-1'})})
            connection.execute(sa.insert(heat_import.RESOURCE_TABLE), {
                'nova_instance': deployment_id, 'action': 'CREATE',
                'rsrc_prop_data_id': number})
    engine.dispose()

    [project] = heat_import.read(url).projects

    rows = {row['id']: (row['source_config_id'], row['signal_transport'])
            for row in project['software_deployments']}
    assert rows == {'d-1': ('source', 'TEMP_URL_SIGNAL'),
                    'd-2': ('source', 'HEAT_SIGNAL'),  # the default
                    'd-3': (None, None),  # encrypted: not read
                    'd-4': (None, None),  # no resource: Heat's API made it
                    # Running, signalling to Heat's object: read on a GET
                    # as heatclient's are, until it has finished.
                    'd-5': (None, None)}


def test_only_the_projects_named(heat_database):
    url = heat_database(
        [_config('c-1', 'a'), _config('c-2', 'a', tenant='p2')],
        [_deployment('d-1', 'c-1', 's-1'),
         _deployment('d-2', 'c-2', 's-2', tenant='p2')], [])

    inventory = heat_import.read(url, ['p2'])

    assert [p['project_id'] for p in inventory.projects] == ['p2']
    assert inventory.transports == {'p2': {'unknown': ['s-2']}}
