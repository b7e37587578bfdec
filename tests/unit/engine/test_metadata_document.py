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

"""The pre-rendered agent document (swconfig.engine.metadata): which
deployments it holds, their order (doc/source/reference/metadata.rst, with null
names first), and byte-for-byte stable JSON so that its ETag only changes when
its content does."""

import datetime
import json
import urllib.parse

import pytest

from swconfig.common import representations
from swconfig.common import signing
from swconfig.conf import CONF
from swconfig.engine import metadata

pytestmark = pytest.mark.usefixtures('keyring')

SERVER = {'id': 'srv-1', 'token_revision': 1}
CREATED = datetime.datetime(2030, 1, 2, 3, 4, 5, 678901)
ENTRY_KEYS = {'id', 'name', 'group', 'creation_time', 'config', 'inputs',
              'outputs', 'options'}


def config_row(config_id, name, minute=0):
    return {'id': config_id, 'name': name, 'group': 'script',
            'config': f'echo {config_id}',
            'inputs': [{'name': 'deploy_action', 'type': 'String',
                        'value': 'CREATE'}],
            'outputs': [], 'options': {}, 'tenant': 'project-1',
            'created_at': CREATED + datetime.timedelta(minutes=minute)}


def deployment_row(action='CREATE', status='COMPLETE', **extra):
    return dict({'id': 'dep-7f3a', 'action': action, 'status': status,
                 'output_values': None, 'status_reason': None}, **extra)


def row(config_id, name=None, action='CREATE', status='COMPLETE'):
    return {'deployment': deployment_row(action, status),
            'config': config_row(config_id, name)}


def document(rows, server=SERVER):
    return json.loads(metadata.build_document(server, rows))


def ids(rows, server=SERVER):
    return [entry['id'] for entry in document(rows, server)['deployments']]


# -- which deployments stay ---------------------------------------------------

DESIRED = [None, 'INIT', 'CREATE', 'UPDATE', 'SUSPEND', 'RESUME']
ONE_OFF = ['BACKUP', 'DELETE', 'ACTION0', 'create']


@pytest.mark.parametrize('action', DESIRED + ONE_OFF)
def test_an_action_in_progress_stays(action):
    assert metadata.stays_in_document(deployment_row(action, 'IN_PROGRESS'))


@pytest.mark.parametrize('status', ['COMPLETE', 'FAILED', None, 'WAITING'])
@pytest.mark.parametrize('action', DESIRED)
def test_the_desired_state_stays_whatever_its_status(action, status):
    assert metadata.stays_in_document(deployment_row(action, status))


@pytest.mark.parametrize('status', ['COMPLETE', 'FAILED'])
@pytest.mark.parametrize('action', ONE_OFF)
def test_a_finished_one_off_action_leaves(action, status):
    assert not metadata.stays_in_document(deployment_row(action, status))


@pytest.mark.parametrize('status', [None, 'WAITING'])
def test_a_one_off_action_that_has_not_finished_stays(status):
    # doc/source/reference/signals.rst: only COMPLETE and FAILED are final; any
    # other value, null included, means "keep waiting", so the agent must still
    # see the config it has to run.
    assert metadata.stays_in_document(deployment_row('BACKUP', status))


def test_build_document_filters_by_those_rules():
    rows = [row('create', 'a'), row('backup-done', 'b', 'BACKUP'),
            row('backup-running', 'c', 'BACKUP', 'IN_PROGRESS'),
            row('update-failed', 'd', 'UPDATE', 'FAILED')]
    assert ids(rows) == ['create', 'backup-running', 'update-failed']


# -- order --------------------------------------------------------------------

def test_ordered_by_name_nulls_first_stable():
    rows = [row('n1', 'web'), row('n7', ''), row('n2', None),
            row('n3', 'app'), row('n4', 'web'), row('n5', None),
            row('n6', 'App')]
    # Plain string order (upper case before lower); equal names keep the
    # order of the rows (deployment creation); nulls before everything,
    # even before the empty name.
    assert ids(rows) == ['n2', 'n5', 'n7', 'n6', 'n3', 'n1', 'n4']


def test_representation_order_never_fails_on_null_names():
    configs = [config_row('x', None), config_row('y', 'b'),
               config_row('z', None), config_row('w', 'a')]
    assert [c['id'] for c in representations.metadata(configs)] == [
        'x', 'z', 'w', 'y']


def test_empty_server():
    doc = document([])
    assert doc['deployments'] == []
    assert set(doc) == {'deployments', 'os-collect-config'}


# -- the entries --------------------------------------------------------------

def test_each_entry_is_the_config_representation():
    (entry,) = document([row('c1', 'one')])['deployments']
    config = config_row('c1', 'one')
    assert set(entry) == ENTRY_KEYS
    assert entry == {'id': 'c1', 'name': 'one', 'group': 'script',
                     'creation_time': '2030-01-02T03:04:05Z',
                     'config': config['config'], 'inputs': config['inputs'],
                     'outputs': [], 'options': {}}


def test_no_deployment_state_in_the_document():
    rows = [{'deployment': deployment_row(
        status='COMPLETE', output_values={'secret_output': 'value'},
        status_reason='Outputs received', input_values={'i': 1}),
        'config': config_row('c1', 'one')}]
    text = metadata.build_document(SERVER, rows)
    for leaked in ('secret_output', 'Outputs received', 'dep-7f3a',
                   'COMPLETE', 'input_values'):
        assert leaked not in text


# -- the os-collect-config block ----------------------------------------------

def test_collect_config_settings_point_at_the_signed_url(agent_base_url):
    settings = document([])['os-collect-config']
    assert settings['collectors'] == ['request']
    assert settings['polling_interval'] == CONF.agent.polling_interval
    url = urllib.parse.urlsplit(settings['request']['metadata_url'])
    assert f'{url.scheme}://{url.netloc}' == agent_base_url
    assert url.path == '/agent/servers/srv-1/metadata'
    (token,) = urllib.parse.parse_qs(url.query)['token']
    assert signing.verify_metadata(token, 'srv-1', 1)
    assert not signing.verify_metadata(token, 'srv-1', 2)


def test_server_ids_are_quoted_in_the_url(agent_base_url):
    server = dict(SERVER, id='a b/c?d')
    url = document([], server)['os-collect-config']['request'][
        'metadata_url']
    assert url.startswith(
        f'{agent_base_url}/agent/servers/a%20b%2Fc%3Fd/metadata?')
    token = url.partition('?token=')[2]
    assert signing.verify_metadata(token, 'a b/c?d', 1)


def test_a_new_token_revision_changes_the_url():
    first = document([])['os-collect-config']['request']['metadata_url']
    second = document([], dict(SERVER, token_revision=2))[
        'os-collect-config']['request']['metadata_url']
    assert first != second


def test_agent_config_matches_the_document():
    config = metadata.agent_config(SERVER)
    settings = document([])['os-collect-config']
    assert config['server_id'] == 'srv-1'
    assert config['os-collect-config'] == settings
    text = config['os_collect_config_conf']
    assert 'collectors = request\n' in text
    assert f'polling_interval = {CONF.agent.polling_interval}\n' in text
    assert (f'[request]\nmetadata_url = '
            f'{settings["request"]["metadata_url"]}\n') in text


# -- stable bytes -------------------------------------------------------------

def _reordered(value):
    """The same JSON value with every object's keys inserted in reverse."""
    if isinstance(value, dict):
        return {key: _reordered(value[key]) for key in reversed(value)}
    if isinstance(value, list):
        return [_reordered(item) for item in value]
    return value


def test_the_json_is_canonical():
    rows = [row('c1', 'one'), row('c2', None)]
    text = metadata.build_document(SERVER, rows)
    assert text == json.dumps(json.loads(text), sort_keys=True,
                              separators=(',', ':'))


def test_same_content_same_bytes_whatever_the_key_order():
    rows = [row('c1', 'one'), row('c2', 'two')]
    reordered = [{'deployment': _reordered(r['deployment']),
                  'config': _reordered(r['config'])} for r in rows]
    assert metadata.build_document(SERVER, rows) == (
        metadata.build_document(SERVER, reordered))
    assert metadata.build_document(SERVER, rows) == (
        metadata.build_document(dict(reversed(SERVER.items())), rows))


def test_signals_to_desired_state_deployments_do_not_change_the_bytes():
    before = [row('c1', 'one', 'CREATE', 'IN_PROGRESS')]
    after = [{'deployment': deployment_row(
        'CREATE', 'COMPLETE', output_values={'deploy_stdout': 'x'},
        status_reason='Outputs received'), 'config': config_row('c1', 'one')}]
    assert metadata.build_document(SERVER, before) == (
        metadata.build_document(SERVER, after))


def test_changes_change_the_bytes():
    base = [row('c1', 'one')]
    text = metadata.build_document(SERVER, base)
    variants = [
        base + [row('c2', 'two')],                       # added
        [],                                              # deleted
        [row('c1', 'one'), row('c3', 'b', 'BACKUP', 'IN_PROGRESS')],
        [{'deployment': deployment_row(),
          'config': dict(config_row('c1', 'one'), inputs=[])}],
    ]
    for variant in variants:
        assert metadata.build_document(SERVER, variant) != text
    # ... but a finished one-off action is as if it were not there.
    assert metadata.build_document(
        SERVER, base + [row('c3', 'b', 'BACKUP', 'COMPLETE')]) == text


def _tricky_row(config_id, name):
    """A config whose inputs hold the collector key and the exact byte
    sequence that ends the deployments list, nested and in strings."""
    tricky = config_row(config_id, name)
    tricky['inputs'] = [
        {'name': 'nested', 'type': 'Json',
         'value': {'os-collect-config': {'collectors': ['x']}, 'a': 1}},
        {'name': 'text', 'type': 'String',
         'value': ',"os-collect-config":{"collectors":[]}}'}]
    return {'deployment': deployment_row(), 'config': tricky}


@pytest.mark.parametrize('rows', [
    [],
    [row('c1', 'one')],
    [row('c1', 'b'), row('c2', 'a'), row('c3')],
    [_tricky_row('c9', 'x'), row('c1', 'y')],
], ids=['empty', 'one', 'several', 'collector-key-in-inputs'])
def test_tenant_view_is_cut_from_the_document_exactly(rows):
    """The tenant view cut out of the document's bytes is the document's
    deployments list as the compact JSON the engine writes, whatever the
    deployments hold."""
    built = metadata.build_document(SERVER, rows).encode()
    assert built.startswith(representations.DOCUMENT_HEAD)
    view = representations.tenant_view(built)
    expected = {'metadata': json.loads(built)['deployments']}
    assert json.loads(view) == expected
    assert view == json.dumps(expected, separators=(',', ':'),
                              sort_keys=True).encode()


def test_tenant_view_of_no_document_or_another_form_is_parsed():
    assert representations.tenant_view(None) == b'{"metadata":[]}'
    spaced = json.dumps({'deployments': [{'id': 'c1', 'name': 'n'}],
                         'os-collect-config': {}}).encode()
    assert json.loads(representations.tenant_view(spaced)) == {
        'metadata': [{'id': 'c1', 'name': 'n'}]}
