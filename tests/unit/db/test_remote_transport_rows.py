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

"""The rows the remote transports (Swift, Zaqar, pushed documents) read
and write, on every real backend: a fetched signal is stored and applied
once however often it is fetched, the deployments waiting on a
transport are found, and a push mark survives a change made while
pushing."""

import json

from swconfig.common import states
from swconfig.db import api as db_api
from swconfig.engine import signals
from tests.unit.db import backends
from tests.unit.db import rows
from tests.unit.db.signal_rows import DONE
from tests.unit.db.signal_rows import INBOX
from tests.unit.db.signal_rows import OUTPUTS
from tests.unit.db.signal_rows import deployment_row
from tests.unit.db.signal_rows import read_rows


def _inbox(facade):
    return read_rows(facade, INBOX, INBOX.c.id > 0)


def _waiting(ctx, transport='TEMP_URL_SIGNAL'):
    config = rows.make_config(ctx, outputs=OUTPUTS)
    return rows.make_deployment(ctx, config['id'], action_revision=1,
                                signal_transport=transport)


@backends.on_every_backend
def test_a_fetched_signal_is_stored_and_applied_once(
        facade, admin, ctx):
    deployment = _waiting(ctx)
    key = 'swift:1:' + 'a' * 32
    body = json.dumps(DONE).encode()
    assert signals.SINK.receive(deployment['id'], 1, key, body=body)
    # Fetched again (another engine, a restart): not stored, not applied.
    assert not signals.SINK.receive(deployment['id'], 1, key, body=body)
    assert [row['result'] for row in _inbox(facade)] == [states.COMPLETE]
    assert deployment_row(facade, deployment['id'])['status'] == (
        states.COMPLETE)


@backends.on_every_backend
def test_the_same_key_of_another_deployment_is_another_signal(
        facade, admin, ctx):
    first, second = _waiting(ctx), _waiting(ctx)
    assert db_api.signal_inbox_add_once(admin, first['id'], 1, DONE,
                                        'zaqar:m1') is not None
    assert db_api.signal_inbox_add_once(admin, second['id'], 1, DONE,
                                        'zaqar:m1') is not None
    assert db_api.signal_inbox_add_once(admin, first['id'], 1, DONE,
                                        'zaqar:m1') is None
    assert len(_inbox(facade)) == 2


@backends.on_every_backend
def test_waiting_deployments_of_a_transport(facade, admin, ctx):
    swift_one = _waiting(ctx)
    zaqar_one = _waiting(ctx, 'ZAQAR_SIGNAL')
    assert [row['id'] for row in db_api.software_deployments_waiting(
        admin, 'TEMP_URL_SIGNAL')] == [swift_one['id']]
    assert [row['id'] for row in db_api.software_deployments_waiting(
        admin, 'ZAQAR_SIGNAL', [zaqar_one['id'], swift_one['id']])] == [
        zaqar_one['id']]
    assert db_api.software_deployments_waiting(admin, 'ZAQAR_SIGNAL',
                                               []) == []


@backends.on_every_backend
def test_a_push_mark_survives_a_change_made_while_pushing(
        facade, admin, ctx):
    server_id = f'server-{rows.new_project()}'
    with db_api.writer.using(ctx):
        db_api.server_claim(ctx, server_id, None,
                            config_transport='POLL_TEMP_URL')
    assert db_api.server_document_store(admin, server_id, 0, '{"a":1}',
                                        'e1', push=True)
    (pending,) = [row for row in db_api.server_push_pending(admin, 100)
                  if row['id'] == server_id]
    assert pending['document'] == '{"a":1}'
    # Rendered again before the push finished: the mark stays.
    assert db_api.server_document_store(admin, server_id, 1, '{"a":2}',
                                        'e2', push=True)
    assert not db_api.server_push_done(admin, server_id,
                                       pending['document_revision'])
    (again,) = [row for row in db_api.server_push_pending(admin, 100)
                if row['id'] == server_id]
    assert again['document'] == '{"a":2}'
    assert db_api.server_push_done(admin, server_id,
                                   again['document_revision'])
    assert server_id not in {row['id'] for row in
                             db_api.server_push_pending(admin, 100)}
