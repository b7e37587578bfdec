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

"""``heat_cutover`` against a SQLite file laid out as Heat's tables: what
a cutover writes into a server resource's metadata (swconfig's block,
Heat's kept beside it, Heat's lock moved on), what it refuses (a
transport it cannot switch yet, a server not imported, a deployment in
progress unless forced), and a revert: Heat's block back in Heat, and
sealed in swconfig's server so its document hands it to the agent.
tests/integration/test_heat_import.py runs it with a real Heat and
agent."""

import json

import pytest
import sqlalchemy as sa

from swconfig.common import sealing
from swconfig.engine import heat_cutover
from swconfig.engine import heat_import
from swconfig.engine import servers

pytestmark = pytest.mark.usefixtures('keyring', 'agent_base_url')

HEAT_BLOCK = {'collectors': ['ec2', 'heat', 'local'],
              'heat': {'auth_url': 'http://keystone/v3', 'user_id': 'u',
                       'password': 'stack-user-secret', 'project_id': 'p',
                       'stack_id': 's/1', 'resource_name': 'server'},
              'polling_interval': 30}


@pytest.fixture
def heat(tmp_path):
    """A Heat database: ``heat.url``; ``heat.server(id, block, status)``
    adds a server resource (and a deployment of it); ``heat.metadata(id)``
    and ``heat.atomic_key(id)`` read it back."""
    engine = sa.create_engine(f'sqlite:///{tmp_path}/heat.sqlite')
    heat_import.HEAT_TABLES.create_all(engine)

    class Heat:
        url = str(engine.url)

        @staticmethod
        def server(server_id, block, status='COMPLETE'):
            with engine.begin() as connection:
                connection.execute(sa.insert(heat_import.RESOURCE_TABLE), {
                    'nova_instance': server_id, 'action': 'CREATE',
                    'atomic_key': None, 'rsrc_metadata': json.dumps(
                        {'deployments': [{'id': 'c1'}],
                         'os-collect-config': block})})
                connection.execute(sa.insert(heat_import.DEPLOYMENT_TABLE), {
                    'id': f'd-{server_id}', 'config_id': 'c1',
                    'server_id': server_id, 'status': status,
                    'tenant': 'p1'})

        @staticmethod
        def _row(server_id):
            with engine.connect() as connection:
                return connection.execute(sa.select(
                    heat_import.RESOURCE_TABLE).where(
                        heat_import.RESOURCE_TABLE.c.nova_instance
                        == server_id)).one()

        def metadata(self, server_id):
            return json.loads(self._row(server_id).rsrc_metadata)

        def atomic_key(self, server_id):
            return self._row(server_id).atomic_key

    yield Heat()
    engine.dispose()


def _said(outcomes):
    return {outcome.server_id: (outcome.done, outcome.said)
            for outcome in outcomes}


def test_a_cutover_points_heats_metadata_at_swconfig(heat, db, ctx):
    heat.server('s-1', HEAT_BLOCK)
    servers.register(ctx, 's-1')
    own = servers.agent_config(ctx, 's-1')['os-collect-config']

    [outcome] = heat_cutover.run(heat.url, ['s-1'])
    again = heat_cutover.run(heat.url, ['s-1'])

    assert (outcome.done, outcome.transport) == (True, 'POLL_SERVER_HEAT')
    written = heat.metadata('s-1')
    assert written['os-collect-config'] == own
    assert written[heat_import.SAVED_BLOCK] == HEAT_BLOCK
    assert written['deployments'] == [{'id': 'c1'}]  # Heat's, untouched
    assert heat.atomic_key('s-1') == 2
    assert _said(again)['s-1'] == (
        True, 'already on swconfig; its settings written again')
    # Heat's import still sees how the agent polled Heat.
    assert heat_import.transport_of(written) == 'POLL_SERVER_HEAT'


def test_what_a_cutover_leaves_as_it_was(heat, db, ctx):
    heat.server('s-url', {'collectors': ['request'],
                          'request': {'metadata_url': 'http://swift/o'}})
    heat.server('s-new', HEAT_BLOCK)
    heat.server('s-busy', HEAT_BLOCK, status='IN_PROGRESS')
    for server_id in ('s-url', 's-busy'):
        servers.register(ctx, server_id)

    said = _said(heat_cutover.run(heat.url, None))

    assert said == {
        's-url': (False, 'not available yet for POLL_TEMP_URL: the agent '
                         'keeps polling Heat'),
        's-new': (False, 'not in swconfig: run heat-import first'),
        's-busy': (False, 'deployment d-s-busy IN_PROGRESS: run again once '
                          'it has finished (--force switches now: its '
                          'signal may then reach Heat only)')}
    assert heat.metadata('s-busy')['os-collect-config'] == HEAT_BLOCK
    forced = _said(heat_cutover.run(heat.url, ['s-busy'], force=True))
    assert forced['s-busy'][0] is True
    assert 'forced while d-s-busy was IN_PROGRESS' in forced['s-busy'][1]


def test_a_revert_hands_heats_block_back_through_both(heat, db, ctx,
                                                      admin):
    heat.server('s-1', HEAT_BLOCK)
    servers.register(ctx, 's-1')
    heat_cutover.run(heat.url, ['s-1'])

    [outcome] = heat_cutover.run(heat.url, ['s-1'], revert=True)

    assert outcome.done, outcome.said
    assert heat.metadata('s-1')['os-collect-config'] == HEAT_BLOCK
    assert heat_import.SAVED_BLOCK not in heat.metadata('s-1')
    stored = db.server_get(admin, 's-1')['collect_config_override']
    assert 'stack-user-secret' not in stored
    assert sealing.unseal(stored) == HEAT_BLOCK
    document = json.loads(db.server_document_get(admin, 's-1'))
    assert document['os-collect-config'] == HEAT_BLOCK
    # Its bootstrap settings stay swconfig's own.
    assert 'heat' not in servers.agent_config(ctx, 's-1')['os-collect-config']
    assert _said(heat_cutover.run(heat.url, ['s-1'], revert=True))[
        's-1'] == (False, 'not cut over')

    heat_cutover.run(heat.url, ['s-1'])

    assert db.server_get(admin, 's-1')['collect_config_override'] is None
    document = json.loads(db.server_document_get(admin, 's-1'))
    assert document['os-collect-config']['collectors'] == ['request']
