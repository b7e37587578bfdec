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
An agent that reads Swift or Zaqar gets swconfig's document where Heat
wrote it: a local HTTP server stands in for the object's TempURL here.
tests/integration/test_heat_import.py runs it with a real Heat, Swift,
Zaqar and agents."""

from http import server as http_server
import json
import threading

import pytest
import sqlalchemy as sa

from swconfig.common import sealed_document
from swconfig.common import sealing
from swconfig.engine import document_push
from swconfig.engine import heat_cutover
from swconfig.engine import heat_import
from swconfig.engine import metadata
from swconfig.engine import servers

pytestmark = pytest.mark.usefixtures('keyring', 'agent_base_url')

HEAT_BLOCK = {'collectors': ['ec2', 'heat', 'local'],
              'heat': {'auth_url': 'http://keystone/v3', 'user_id': 'u',
                       'password': 'stack-user-secret', 'project_id': 'p',
                       'stack_id': 's/1', 'resource_name': 'server'},
              'polling_interval': 30}


TEMP_URL_BLOCK = {'collectors': ['ec2', 'request', 'local'],
                  'request': {'metadata_url': 'http://swift/o?sig=get'},
                  'polling_interval': 30}
ZAQAR_BLOCK = {'collectors': ['ec2', 'zaqar', 'local'],
               # Port 9 (discard): refused at once, nothing to resolve.
               'zaqar': {'auth_url': 'http://127.0.0.1:9/v3', 'user_id': 'u',
                         'password': 'stack-user-secret', 'project_id': 'p',
                         'queue_id': 'q', 'region_name': 'RegionOne'},
               'polling_interval': 30}


@pytest.fixture
def swift_object():
    """A local HTTP server standing in for a Swift object's TempURL:
    ``url``, the ``bodies`` PUT to it (JSON values), and ``status``, what
    it answers."""
    class Handler(http_server.BaseHTTPRequestHandler):
        def do_PUT(self):  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers['Content-Length']))
            if target.status < 300:
                target.bodies.append(json.loads(body))
            self.send_response(target.status)
            self.send_header('Content-Length', '0')
            self.end_headers()

        def log_message(self, *args):
            pass

    class Target:
        bodies: list = []
        status = 201

    target = Target()
    target.bodies = []
    httpd = http_server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,),
                              daemon=True)
    thread.start()
    target.url = (f'http://127.0.0.1:{httpd.server_address[1]}'
                  f'/v1/AUTH_p/c/o?temp_url_sig=put&temp_url_expires=9')
    yield target
    httpd.shutdown()
    httpd.server_close()


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
        def server(server_id, block, status='COMPLETE', put_url=None):
            with engine.begin() as connection:
                resource_id = connection.execute(
                    sa.insert(heat_import.RESOURCE_TABLE), {
                        'nova_instance': server_id, 'action': 'CREATE',
                        'atomic_key': None, 'rsrc_metadata': json.dumps(
                            {'deployments': [{'id': 'c1'}],
                             'os-collect-config': block})}
                ).inserted_primary_key[0]
                if put_url:
                    connection.execute(
                        sa.insert(heat_import.RESOURCE_DATA_TABLE), {
                            'resource_id': resource_id, 'redact': False,
                            'key': 'metadata_put_url', 'value': put_url})
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
    heat.server('s-url', TEMP_URL_BLOCK)
    heat.server('s-queue', {**ZAQAR_BLOCK, 'zaqar': {
        **ZAQAR_BLOCK['zaqar'], 'password': None}})
    heat.server('s-local', {'collectors': ['local']})
    heat.server('s-new', HEAT_BLOCK)
    heat.server('s-busy', HEAT_BLOCK, status='IN_PROGRESS')
    for server_id in ('s-url', 's-queue', 's-local', 's-busy'):
        servers.register(ctx, server_id)

    said = _said(heat_cutover.run(heat.url, None))

    assert said == {
        's-url': (False, 'Heat keeps no metadata_put_url for the '
                         'server\'s object'),
        's-queue': (False, 'the agent\'s zaqar settings lack password'),
        's-local': (False, 'its os-collect-config block in Heat names no '
                           'collector of heat, cfn, request or zaqar: '
                           'nothing to switch'),
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
    stored_document = db.server_document_get(admin, 's-1')
    assert 'stack-user-secret' not in stored_document
    document = json.loads(sealed_document.opened(stored_document))
    assert document['os-collect-config'] == HEAT_BLOCK
    # Its bootstrap settings stay swconfig's own.
    assert 'heat' not in servers.agent_config(ctx, 's-1')['os-collect-config']
    assert _said(heat_cutover.run(heat.url, ['s-1'], revert=True))[
        's-1'] == (False, 'not cut over')

    heat_cutover.run(heat.url, ['s-1'])

    assert db.server_get(admin, 's-1')['collect_config_override'] is None
    document = json.loads(db.server_document_get(admin, 's-1'))
    assert document['os-collect-config']['collectors'] == ['request']


def test_a_temp_url_agent_reads_swconfigs_document_where_heat_wrote_it(
        heat, db, ctx, admin, swift_object):
    heat.server('s-1', TEMP_URL_BLOCK, put_url=swift_object.url)
    servers.register(ctx, 's-1')

    [outcome] = heat_cutover.run(heat.url, ['s-1'])

    assert (outcome.transport, outcome.done) == ('POLL_TEMP_URL', True)
    assert outcome.said.startswith('switched to swconfig: its document '
                                   '(revision ')
    assert outcome.said.endswith('written to Heat\'s Swift object, where '
                                 'the agent reads it')
    [written] = swift_object.bodies
    # Heat's block: the agent keeps reading the same object.
    assert written['os-collect-config'] == TEMP_URL_BLOCK
    assert written == json.loads(sealed_document.opened(
        db.server_document_get(admin, 's-1')))
    row = db.server_get(admin, 's-1')
    assert (row['config_transport'], row['push_pending']) == (
        'POLL_TEMP_URL', False)
    assert 'temp_url_sig' not in row['heat_channel']
    # Heat's metadata is left as it was.
    assert heat.metadata('s-1')['os-collect-config'] == TEMP_URL_BLOCK
    assert heat.atomic_key('s-1') is None


def test_the_engines_push_each_later_document_into_heats_channel(
        heat, db, ctx, admin, swift_object):
    heat.server('s-1', TEMP_URL_BLOCK, put_url=swift_object.url)
    servers.register(ctx, 's-1')
    heat_cutover.run(heat.url, ['s-1'])
    before = db.server_get(admin, 's-1')['document_revision']

    # A document change as a new deployment makes it.
    db.server_heat_settings_set(
        admin, 's-1', config_transport='POLL_TEMP_URL',
        collect_config_override=sealing.seal(
            {**TEMP_URL_BLOCK, 'polling_interval': 5}),
        heat_channel=db.server_get(admin, 's-1')['heat_channel'])
    metadata.render('s-1')
    [pending] = list(document_push.pending_servers())
    document_push.push(pending)

    assert pending['document_revision'] == before + 1
    assert swift_object.bodies[-1]['os-collect-config'][
        'polling_interval'] == 5
    assert list(document_push.pending_servers()) == []


def test_a_revert_writes_heats_document_back_and_stops_swconfigs_writes(
        heat, db, ctx, admin, swift_object):
    heat.server('s-1', TEMP_URL_BLOCK, put_url=swift_object.url)
    servers.register(ctx, 's-1')
    heat_cutover.run(heat.url, ['s-1'])

    [outcome] = heat_cutover.run(heat.url, ['s-1'], revert=True)

    assert (outcome.done, outcome.said) == (
        True, 'back on Heat: Heat\'s document written back where the agent '
              'reads it, and swconfig writes there no more')
    assert swift_object.bodies[-1] == heat.metadata('s-1')
    row = db.server_get(admin, 's-1')
    assert (row['heat_channel'], row['collect_config_override'],
            row['config_transport'], row['push_pending']) == (
                None, None, None, False)
    assert _said(heat_cutover.run(heat.url, ['s-1'], revert=True))[
        's-1'] == (False, 'not cut over')


def test_a_revert_that_cannot_write_heats_document_leaves_swconfig_on(
        heat, db, ctx, admin, swift_object):
    heat.server('s-1', TEMP_URL_BLOCK, put_url=swift_object.url)
    servers.register(ctx, 's-1')
    heat_cutover.run(heat.url, ['s-1'])
    cut_over = db.server_get(admin, 's-1')
    swift_object.status = 503

    [outcome] = heat_cutover.run(heat.url, ['s-1'], revert=True)

    assert not outcome.done
    assert outcome.said.startswith('still on swconfig: Heat\'s document '
                                   'could not be written back (')
    row = db.server_get(admin, 's-1')
    assert sealing.unseal(row['heat_channel']) == sealing.unseal(
        cut_over['heat_channel'])
    assert row['config_transport'] == 'POLL_TEMP_URL'
    assert json.loads(sealed_document.opened(db.server_document_get(
        admin, 's-1')))['os-collect-config'] == TEMP_URL_BLOCK


def test_a_swift_outage_at_cutover_leaves_the_push_to_the_engines(
        heat, db, ctx, admin, swift_object):
    heat.server('s-1', TEMP_URL_BLOCK, put_url=swift_object.url)
    servers.register(ctx, 's-1')
    swift_object.status = 503

    [outcome] = heat_cutover.run(heat.url, ['s-1'])

    assert outcome.done
    assert outcome.said.startswith(
        'switched to swconfig, whose engines write its document to Heat\'s '
        'Swift object once they can: ')
    assert [server['id'] for server in document_push.pending_servers()] == [
        's-1']


def test_a_zaqar_agents_channel_is_sealed_with_its_password(
        heat, db, ctx, admin):
    """The post itself needs Keystone: the integration test makes it."""
    heat.server('s-1', ZAQAR_BLOCK)
    servers.register(ctx, 's-1')

    [outcome] = heat_cutover.run(heat.url, ['s-1'])

    assert (outcome.transport, outcome.done) == ('ZAQAR_MESSAGE', True)
    assert 'Heat\'s Zaqar queue once they can' in outcome.said
    row = db.server_get(admin, 's-1')
    assert 'stack-user-secret' not in row['heat_channel']
    assert 'stack-user-secret' not in row['collect_config_override']
    assert 'stack-user-secret' not in db.server_document_get(admin, 's-1')
    assert sealing.unseal(row['heat_channel']) == ZAQAR_BLOCK['zaqar']
