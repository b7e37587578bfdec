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

"""Creating a deployment with an ``Idempotency-Key``: a client that lost
the answer (a timeout, a 503 while the message bus restarted) sends the
request again and gets the deployment the first try made, never a second
one. On SQLite and on separate API and engine processes over MariaDB and
PostgreSQL."""

import concurrent.futures
from typing import Any
import uuid

from tests.functional.api import helpers
from tests.functional.api.helpers import assert_error

CONCURRENT = 8


def _create(api: Any, project: str, key: str | None, **body: Any) -> Any:
    headers = {'Idempotency-Key': key} if key is not None else None
    return api.post(helpers.url(project, 'software_deployments'), json=body,
                    headers=headers)


def _on_server(api: Any, project: str, server: str) -> list[dict]:
    return api.get(helpers.url(project, 'software_deployments',
                               f'?server_id={server}')
                   ).json['software_deployments']


def _body(config: dict, server: str, **extra: Any) -> dict:
    return {'config_id': config['id'], 'server_id': server,
            'signal_transport': 'HEAT_SIGNAL',
            'input_values': {'port': 80}, **extra}


def test_a_retried_creation_gets_the_first_deployment(api, project):
    config = helpers.create_config(api, project)
    server = f'{project}-srv'
    key = str(uuid.uuid4())
    first = _create(api, project, key, **_body(config, server))
    assert first.status == 200, first.text
    again = _create(api, project, key, **_body(config, server))
    assert again.status == 200, again.text
    assert again.json == first.json
    assert [row['id'] for row in _on_server(api, project, server)] == [
        first.json['software_deployment']['id']]
    # Without a key every request creates one, as in Heat.
    plain = [_create(api, project, None, **_body(config, server))
             for _ in range(2)]
    assert [reply.status for reply in plain] == [200, 200]
    assert len(_on_server(api, project, server)) == 3


def test_the_same_key_with_another_request_is_refused(api, project):
    config = helpers.create_config(api, project)
    server = f'{project}-srv'
    assert _create(api, project, 'k-1', **_body(config, server)).status == 200
    for other in (_body(config, server, input_values={'port': 81}),
                  _body(config, f'{project}-other')):
        error = assert_error(_create(api, project, 'k-1', **other), 422,
                             'IdempotencyKeyReused')
        assert 'k-1' in error['message']
    assert len(_on_server(api, project, server)) == 1
    assert _on_server(api, project, f'{project}-other') == []


def test_keys_belong_to_their_project(api, project):
    other_project = f'{project}-b'
    made = []
    for owner in (project, other_project):
        config = helpers.create_config(api, owner)
        reply = _create(api, owner, 'shared-key',
                        **_body(config, f'{owner}-srv'))
        assert reply.status == 200, reply.text
        made.append(reply.json['software_deployment'])
    assert made[0]['id'] != made[1]['id']
    for owner, row in zip((project, other_project), made, strict=True):
        assert [found['id'] for found in _on_server(
            api, owner, f'{owner}-srv')] == [row['id']]


def test_a_bad_key_is_refused_before_anything_is_made(api, project):
    config = helpers.create_config(api, project)
    server = f'{project}-srv'
    for key in ('', 'x' * 256, 'tab\there'):
        error = assert_error(_create(api, project, key,
                                     **_body(config, server)), 400)
        assert 'Idempotency-Key' in error['message']
    assert _on_server(api, project, server) == []


def test_concurrent_requests_with_one_key_make_one_deployment(api,
                                                              project):
    """The unique key decides: every request answers with the one
    deployment, whichever transaction stored the key first."""
    config = helpers.create_config(api, project)
    server = f'{project}-srv'
    body = _body(config, server)
    with concurrent.futures.ThreadPoolExecutor(CONCURRENT) as pool:
        replies = list(pool.map(
            lambda _: _create(api, project, 'burst', **body),
            range(CONCURRENT)))
    assert [reply.status for reply in replies] == [200] * CONCURRENT, [
        reply.text for reply in replies if reply.status != 200]
    ids = {reply.json['software_deployment']['id'] for reply in replies}
    assert len(ids) == 1
    assert [row['id'] for row in _on_server(api, project, server)] == list(
        ids)
    metadata = api.get(helpers.url(project, 'software_deployments',
                                   f'/metadata/{server}')).json['metadata']
    assert len(metadata) == 1
