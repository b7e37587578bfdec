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

"""Concurrent first deployments to one new server, as a Heat stack with
several deployments on a server makes them, all succeed (on MariaDB six
of eight used to fail with a deadlock while the server was registered).
"""

import concurrent.futures

import pytest

from tests.functional.api import helpers

CONCURRENT = 8
ROUNDS = 5


@pytest.mark.parametrize('round_', range(ROUNDS))
def test_concurrent_first_deployments_to_a_new_server(api, project, round_):
    config = helpers.create_config(api, project)
    server = f'{project}-new'
    body = {'config_id': config['id'], 'server_id': server,
            'signal_transport': 'HEAT_SIGNAL'}
    with concurrent.futures.ThreadPoolExecutor(CONCURRENT) as pool:
        replies = list(pool.map(
            lambda _: api.post(helpers.url(project, 'software_deployments'),
                               json=body), range(CONCURRENT)))
    assert [reply.status for reply in replies] == [200] * CONCURRENT, [
        reply.text for reply in replies if reply.status != 200]
    listed = api.get(helpers.url(project, 'software_deployments',
                                 f'?server_id={server}')).json
    assert len(listed['software_deployments']) == CONCURRENT
    # Every one of them is in the server's document.
    metadata = api.get(helpers.url(project, 'software_deployments',
                                   f'/metadata/{server}')).json['metadata']
    assert sorted(item['id'] for item in metadata) == sorted(
        reply.json['software_deployment']['config_id'] for reply in replies)
