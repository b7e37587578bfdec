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

"""Server-side derivation (doc/source/reference/derivation.rst):
``deriving.derive`` builds the config an agent receives from a source
config, the input values and the signal transport."""

import copy
import urllib.parse

from oslo_utils import uuidutils
import pytest

from swconfig import transports
from swconfig.common import exception
from swconfig.common import signing
from swconfig.engine import deriving
from tests.unit.engine.derivation_sources import RecordingTransport
from tests.unit.engine.derivation_sources import source_config

SERVER = {'id': 'srv-1'}
DEPLOYMENT_ID = '0b1c2d3e-0000-4000-8000-000000000001'
DEPLOY_NAMES = ['deploy_server_id', 'deploy_action',
                'deploy_signal_transport']


def derive(source=None, input_values=None, transport=None, action='CREATE',
           revision=1, name=None):
    return deriving.derive(source or source_config(), SERVER, DEPLOYMENT_ID,
                           revision, action, input_values or {},
                           transport or transports.get('NO_SIGNAL'),
                           name=name)


def names(derived):
    return [item['name'] for item in derived['inputs']]


def by_name(derived):
    return {item['name']: item for item in derived['inputs']}


# -- inputs -------------------------------------------------------------------

def test_input_order_declared_undeclared_then_deploy():
    derived = derive(input_values={'zeta': 'z', 'bar': 2, 'alpha': 'a'},
                     transport=RecordingTransport())
    assert names(derived) == (['foo', 'bar', 'baz', 'zeta', 'alpha']
                              + DEPLOY_NAMES + ['deploy_recorded'])


def test_declared_inputs_get_value_or_default():
    source = source_config()
    derived = derive(source, input_values={'bar': 7})
    assert derived['inputs'][:3] == [
        dict(source['inputs'][0], value='foo-default'),
        dict(source['inputs'][1], value=7),
        dict(source['inputs'][2], value={'k': 'v'}),
    ]


def test_declared_input_without_default_or_value_is_null():
    source = source_config(inputs=[{'name': 'bare', 'type': 'String'}])
    assert derive(source)['inputs'][0] == {'name': 'bare', 'type': 'String',
                                           'value': None}


def test_an_explicit_null_value_beats_the_default():
    derived = derive(input_values={'foo': None})
    assert by_name(derived)['foo']['value'] is None


def test_falsy_values_are_kept():
    derived = derive(input_values={'foo': '', 'bar': 0, 'baz': {}})
    values = [item['value'] for item in derived['inputs'][:3]]
    assert values == ['', 0, {}]


def test_undeclared_values_become_string_inputs():
    derived = derive(input_values={'extra': {'nested': [1]}, 'n': 5})
    assert derived['inputs'][3:5] == [
        {'name': 'extra', 'type': 'String', 'value': {'nested': [1]}},
        {'name': 'n', 'type': 'String', 'value': 5},
    ]


def test_deploy_inputs():
    derived = derive(action='BACKUP', transport=transports.get('NO_SIGNAL'))
    deploy = derived['inputs'][3:]
    assert [item['name'] for item in deploy] == DEPLOY_NAMES
    assert [item['value'] for item in deploy] == ['srv-1', 'BACKUP',
                                                  'NO_SIGNAL']
    for item in deploy:
        assert item['type'] == 'String'
        assert set(item) == {'name', 'type', 'value', 'description'}
        assert item['description']


def test_transport_inputs_come_last_and_see_server_and_revision():
    derived = derive(transport=RecordingTransport(), revision=4)
    assert derived['inputs'][-1]['value'] == f'srv-1/{DEPLOYMENT_ID}/4'
    assert by_name(derived)['deploy_signal_transport']['value'] == (
        'RECORDING')


def test_heat_signal_inputs(keyring, agent_base_url):
    derived = derive(transport=transports.get('HEAT_SIGNAL'), revision=3)
    assert names(derived)[-5:] == DEPLOY_NAMES + ['deploy_signal_id',
                                                  'deploy_signal_verb']
    inputs = by_name(derived)
    assert inputs['deploy_signal_transport']['value'] == 'HEAT_SIGNAL'
    assert inputs['deploy_signal_verb']['value'] == 'PUT'
    url = urllib.parse.urlsplit(inputs['deploy_signal_id']['value'])
    assert f'{url.scheme}://{url.netloc}' == agent_base_url
    assert url.path == f'/agent/deployments/{DEPLOYMENT_ID}/signal'
    query = urllib.parse.parse_qs(url.query)
    assert query['revision'] == ['3']
    (token,) = query['token']
    assert signing.verify_signal(token, DEPLOYMENT_ID, 3)
    assert not signing.verify_signal(token, DEPLOYMENT_ID, 2)
    for name in ('deploy_signal_id', 'deploy_signal_verb'):
        assert inputs[name]['type'] == 'String'


def test_each_action_revision_gets_its_own_signal_url(keyring):
    heat = transports.get('HEAT_SIGNAL')
    first = by_name(derive(transport=heat, revision=1))['deploy_signal_id']
    second = by_name(derive(transport=heat, revision=2))['deploy_signal_id']
    assert first['value'] != second['value']


def test_no_signal_adds_no_signal_inputs():
    derived = derive(transport=transports.get('NO_SIGNAL'))
    assert names(derived)[-3:] == DEPLOY_NAMES
    assert not {'deploy_signal_id', 'deploy_signal_verb'} & set(
        names(derived))


def test_nothing_given_is_mutated():
    source = source_config()
    input_values = {'foo': 'f', 'extra': 'e'}
    snapshot = copy.deepcopy((source, input_values))
    derive(source, input_values=input_values)
    assert (source, input_values) == snapshot


# -- the other fields ---------------------------------------------------------

def test_fields_copied_from_the_source():
    source = source_config()
    derived = derive(source)
    assert derived['outputs'] == source['outputs']
    assert derived['options'] == source['options']
    assert derived['config'] == source['config']
    assert derived['group'] == 'script'
    assert derived['tenant'] == 'project-1'
    assert set(derived) == {'id', 'name', 'group', 'config', 'inputs',
                            'outputs', 'options', 'tenant'}


def test_a_new_id_every_time():
    first, second = derive(), derive()
    assert uuidutils.is_uuid_like(first['id'])
    assert first['id'] != second['id']
    assert first['id'] != 'src-1'


@pytest.mark.parametrize('given, source_name, expected', [
    ('deployment-name', 'source', 'deployment-name'),
    (None, 'source', 'source'),
    ('', 'source', 'source'),
    (None, None, None),
])
def test_name(given, source_name, expected):
    derived = derive(source_config(name=source_name), name=given)
    assert derived['name'] == expected


@pytest.mark.parametrize('group, expected', [
    ('puppet', 'puppet'), (None, 'Heat::Ungrouped'),
    ('', 'Heat::Ungrouped')])
def test_group(group, expected):
    assert derive(source_config(group=group))['group'] == expected


@pytest.mark.parametrize('config, expected', [
    (None, ''), ('', ''), ('echo', 'echo'), ({'a': [1]}, {'a': [1]})])
def test_config(config, expected):
    assert derive(source_config(config=config))['config'] == expected


@pytest.mark.parametrize('options, expected', [
    (None, {}), ({}, {}), ({'x': True}, {'x': True})])
def test_options(options, expected):
    assert derive(source_config(options=options))['options'] == expected


COMPONENT = {'configs': [
    {'tool': 'script', 'config': 'create'},
    {'actions': ['BACKUP'], 'tool': 'ansible', 'config': 'backup'},
]}


@pytest.mark.parametrize('action, group, config', [
    ('CREATE', 'script', 'create'), ('UPDATE', 'script', 'create'),
    ('BACKUP', 'ansible', 'backup')])
def test_a_component_is_derived_from_the_entry_of_the_action(
        action, group, config):
    source = source_config(group='component', config=COMPONENT)
    derived = derive(source=source, action=action)
    assert (derived['group'], derived['config']) == (group, config)
    assert derived['outputs'] == source['outputs']
    assert [i['name'] for i in derived['inputs']][:3] == ['foo', 'bar',
                                                          'baz']
    assert deriving.serves(source, action)


def test_a_lifecycle_action_no_entry_serves_keeps_the_component():
    source = source_config(group='component', config=COMPONENT)
    derived = derive(source=source, action='SUSPEND')
    assert (derived['group'], derived['config']) == ('component', COMPONENT)
    assert not deriving.serves(source, 'SUSPEND')
    assert deriving.serves(source_config(), 'SUSPEND')


def test_a_custom_action_no_entry_serves_is_refused():
    """Refused before anything is derived (or written)."""
    source = source_config(group='component', config=COMPONENT)
    with pytest.raises(exception.UndefinedAction) as raised:
        derive(source=source, action='RESTORE')
    assert raised.value.code == 400
    assert 'CREATE, UPDATE, BACKUP' in raised.value.message
    # Not a component: any action runs the config (deploy_action says it).
    assert derive(source=source_config(), action='RESTORE')['inputs']


@pytest.mark.parametrize('source, action, words', [
    (source_config(group='component', config=COMPONENT), 'BACKUP',
     'BACKUP of component source, its entry configs[1] (tool ansible)'),
    (source_config(group='component', config=COMPONENT), 'UPDATE',
     'UPDATE of component source, its entry configs[0] (tool script)'),
    (source_config(group='component', config=COMPONENT), 'RESUME',
     'nothing (component source has no entry for RESUME)'),
    (source_config(), 'BACKUP',
     'script config source again with deploy_action=BACKUP (not a '
     'component: the config decides what BACKUP does)'),
    (source_config(name=None, group=None), 'BACKUP',
     'Heat::Ungrouped config src-1 again with deploy_action=BACKUP (not a '
     'component: the config decides what BACKUP does)'),
])
def test_what_runs_is_described(source, action, words):
    assert deriving.describe(source, action) == words
