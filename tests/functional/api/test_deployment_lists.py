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

"""Creating deployments from a list: POST software_deployments with a list
body, all or none, on SQLite in-process and on separate API and engine
processes over MariaDB and PostgreSQL. The quota is tested in-process
(where it can be lowered) and, on every backend, at the engine
(tests/unit/engine/test_deployment_batches.py)."""

import time
from typing import Any
import urllib.parse
import uuid

import pytest

from swconfig.conf import CONF
from tests.functional.api import helpers
from tests.functional.api.helpers import assert_error

SERVERS = 50
PER_SERVER = 10  # 500 deployments
# [api] max_batch_deployments of the stacks (the default).
MAX_ITEMS = 1000
SIGNAL_SECONDS = 30


def _post(api: Any, project: str, items: Any,
          key: str | None = None) -> Any:
    headers = {'Idempotency-Key': key} if key is not None else None
    return api.post(helpers.url(project, 'software_deployments'),
                    json=items, headers=headers)


def _deployments(api: Any, project: str) -> list[dict]:
    reply = api.get(helpers.url(project, 'software_deployments'))
    assert reply.status == 200, reply.text
    return reply.json['software_deployments']


def _servers(api: Any, project: str) -> list[str]:
    reply = api.get(helpers.url(project, 'servers'))
    return [server['id'] for server in reply.json['servers']]


def _configs(api: Any, project: str) -> list[dict]:
    return api.get(helpers.url(project, 'software_configs')).json[
        'software_configs']


def _item(config: dict, server: str, **extra: Any) -> dict:
    return {'config_id': config['id'], 'server_id': server,
            'signal_transport': 'HEAT_SIGNAL',
            'input_values': {'port': 80}, **extra}


def _config(api: Any, project: str) -> dict:
    return helpers.create_config(
        api, project, config='#!/bin/sh\necho $port',
        inputs=[{'name': 'port', 'type': 'Number'}],
        outputs=[{'name': 'result'}])


def test_500_deployments_in_one_list(api, project):
    config = _config(api, project)
    servers = [f'{project}-s{index}' for index in range(SERVERS)]
    items = [_item(config, servers[index % SERVERS], name=f'd{index}',
                   input_values={'port': index})
             for index in range(SERVERS * PER_SERVER)]
    reply = _post(api, project, items)
    assert reply.status == 200, reply.text[:2000]
    made = reply.json['software_deployments']
    # In the order of the list, each derived from the config for its
    # item, waiting for its signal.
    assert [(row['server_id'], row['name'], row['input_values'])
            for row in made] == [
        (item['server_id'], item['name'], item['input_values'])
        for item in items]
    assert {(row['source_config_id'], row['signal_transport'],
             row['action'], row['status'], row['status_reason'])
            for row in made} == {(config['id'], 'HEAT_SIGNAL', 'CREATE',
                                  'IN_PROGRESS', 'Deploy data available')}
    assert len({row['config_id'] for row in made} | {config['id']}) == (
        len(items) + 1)
    # Listed as the list gave them.
    assert [row['id'] for row in _deployments(api, project)] == [
        row['id'] for row in made]
    # Every server's document holds its deployments' derived configs.
    by_server: dict[str, set] = {}
    for row in made:
        by_server.setdefault(row['server_id'], set()).add(row['config_id'])
    for server in servers:
        document = api.get(helpers.url(
            project, 'software_deployments', f'/metadata/{server}')).json
        assert {entry['id'] for entry in document['metadata']} == (
            by_server[server]), server
    # A derived config as a single creation derives it: the item's input
    # value and the deployment's own signal URL.
    first, last = made[0], made[-1]
    for row, port in ((first, 0), (last, len(items) - 1)):
        derived = api.get(helpers.url(
            project, 'software_configs', f'/{row["config_id"]}')).json[
            'software_config']
        inputs = {entry['name']: entry.get('value')
                  for entry in derived['inputs']}
        assert inputs['port'] == port
        assert inputs['deploy_server_id'] == row['server_id']
        assert row['id'] in inputs['deploy_signal_id']
        events = api.get(helpers.url(
            project, 'software_deployments', f'/{row["id"]}/events')).json
        assert [(event['new_status'], event['reason'])
                for event in events['events']] == [
            ('IN_PROGRESS', 'Deploy data available')]


def test_both_forms_and_one_server_twice(api, project):
    """Heat's form is stored as given, beside server-side ones; a
    server named twice gets both deployments in its document."""
    config = _config(api, project)
    server = f'{project}-srv'
    raw = {'config_id': config['id'], 'server_id': server,
           'action': 'CREATE', 'status': 'IN_PROGRESS',
           'status_reason': 'Heat was here', 'input_values': {'port': 1}}
    reply = _post(api, project, [_item(config, server), raw])
    assert reply.status == 200, reply.text
    derived, stored = reply.json['software_deployments']
    assert derived['source_config_id'] == config['id']
    assert (stored['config_id'], stored['source_config_id'],
            stored['signal_transport'], stored['status_reason']) == (
        config['id'], None, None, 'Heat was here')
    document = api.get(helpers.url(
        project, 'software_deployments', f'/metadata/{server}')).json
    assert sorted(entry['id'] for entry in document['metadata']) == sorted(
        [derived['config_id'], config['id']])
    # The agent signals the listed deployment on its signed URL.
    derived_config = api.get(helpers.url(
        project, 'software_configs', f'/{derived["config_id"]}')).json[
        'software_config']
    url = urllib.parse.urlsplit(next(
        entry['value'] for entry in derived_config['inputs']
        if entry['name'] == 'deploy_signal_id'))
    reply = api.put(f'{url.path}?{url.query}',
                    json={'result': 'listed', 'deploy_status_code': 0})
    assert reply.status == 200, reply.text
    deadline = time.monotonic() + SIGNAL_SECONDS
    shown = derived
    while shown['status'] == 'IN_PROGRESS' and time.monotonic() < deadline:
        shown = api.get(helpers.url(
            project, 'software_deployments',
            f'/{derived["id"]}?wait=5')).json['software_deployment']
    assert (shown['status'], shown['output_values']['result']) == (
        'COMPLETE', 'listed')


def test_bad_items_are_named_and_nothing_is_created(api, project):
    config = _config(api, project)
    servers = [f'{project}-s{index}' for index in range(10)]
    items = [_item(config, server) for server in servers]
    items[3] = _item(config, servers[3], config_id=str(uuid.uuid4()))
    items[7] = _item(config, servers[7], signal_transport='CARRIER_PIGEON')
    error = assert_error(_post(api, project, items), 400, 'BatchInvalid')
    message = error['message']
    assert message.startswith('2 of the 10 items cannot be created, so '
                              'none was: items[3]: Software config with id ')
    assert f'items[3]: Software config with id {items[3]["config_id"]} ' \
           f'not found; items[7]: Unknown signal transport ' \
           f'CARRIER_PIGEON' in message
    assert [index for index in range(10)
            if f'items[{index}]' in message] == [3, 7]
    # One bad item alone, refused by the schema before the engine.
    items = [_item(config, server) for server in servers]
    del items[5]['server_id']
    error = assert_error(_post(api, project, items), 400, 'BatchInvalid')
    assert error['message'] == (
        '1 of the 10 items cannot be created, so none was: items[5]: '
        'Missing required field server_id.')
    assert _deployments(api, project) == []
    assert _servers(api, project) == []
    assert [row['id'] for row in _configs(api, project)] == [config['id']]


def test_a_server_of_another_project_refuses_the_list(api, project):
    config = _config(api, project)
    other = f'{project}-b'
    taken = f'{other}-srv'
    helpers.create_deployment(api, other, **_item(
        _config(api, other), taken))
    items = [_item(config, f'{project}-a'), _item(config, taken),
             _item(config, f'{project}-c')]
    error = assert_error(_post(api, project, items), 400, 'BatchInvalid')
    assert error['message'] == (
        f'1 of the 3 items cannot be created, so none was: items[1]: '
        f'Server {taken} belongs to another project; only that project '
        f'can deploy to it or read its metadata.')
    assert _deployments(api, project) == []
    assert _servers(api, project) == []
    assert len(_deployments(api, other)) == 1


def test_a_list_longer_than_the_limit_is_refused(api, project):
    config = _config(api, project)
    items = [_item(config, f'{project}-s{index % 5}')
             for index in range(MAX_ITEMS + 1)]
    error = assert_error(_post(api, project, items), 400,
                         'RequestLimitExceeded')
    assert f'The list holds {MAX_ITEMS + 1} items; at most {MAX_ITEMS} ' \
           f'may be created in one request.' in error['message']
    error = assert_error(_post(api, project, []), 400)
    assert 'empty list' in error['message']
    error = assert_error(_post(api, project, [_item(config, 'x'), 'y']),
                         400, 'BatchInvalid')
    assert error['message'].endswith(
        'items[1]: a JSON string; a JSON object is expected.')
    assert _deployments(api, project) == []


def test_a_repeated_list_gets_the_deployments_it_made(api, project):
    config = _config(api, project)
    items = [_item(config, f'{project}-s{index}') for index in range(3)]
    key = str(uuid.uuid4())
    first = _post(api, project, items, key)
    assert first.status == 200, first.text
    again = _post(api, project, items, key)
    assert again.status == 200, again.text
    assert again.json == first.json
    assert [row['id'] for row in _deployments(api, project)] == [
        row['id'] for row in first.json['software_deployments']]
    # The same key with another list, or a single creation: refused.
    for body in (items[:2], items[0]):
        error = assert_error(_post(api, project, body, key), 422,
                             'IdempotencyKeyReused')
        assert key in error['message']
    # A key a single creation used is refused for a list.
    single_key = str(uuid.uuid4())
    assert _post(api, project, items[0], single_key).status == 200
    assert_error(_post(api, project, [items[0]], single_key), 422,
                 'IdempotencyKeyReused')
    assert len(_deployments(api, project)) == 4
    # A deployment of the list deleted since: 404 naming it.
    gone = first.json['software_deployments'][1]['id']
    assert api.delete(helpers.url(project, 'software_deployments',
                                  f'/{gone}')).status == 204
    error = assert_error(_post(api, project, items, key), 404)
    assert gone in error['message']
    assert len(_deployments(api, project)) == 3


@pytest.fixture
def quota_of_5(inprocess_stack):
    CONF.set_override('max_software_deployments_per_tenant', 5)
    yield inprocess_stack
    CONF.clear_override('max_software_deployments_per_tenant')


def test_the_quota_counts_the_whole_list(quota_of_5, project):
    api = quota_of_5
    config = _config(api, project)
    items = [_item(config, f'{project}-s{index}') for index in range(6)]
    error = assert_error(_post(api, project, items), 400,
                         'RequestLimitExceeded')
    assert ('This request would make 6 software deployments, more than '
            'the maximum per tenant, 5; the project has 0.') in (
        error['message'])
    assert _post(api, project, items[:2]).status == 200
    error = assert_error(_post(api, project, items[2:6]), 400,
                         'RequestLimitExceeded')
    assert 'would make 6 software deployments' in error['message']
    assert _post(api, project, items[2:5]).status == 200
    error = assert_error(_post(api, project, items[5:]), 400,
                         'RequestLimitExceeded')
    assert 'You have reached the maximum software deployments per ' \
           'tenant, 5.' in error['message']
    assert len(_deployments(api, project)) == 5
