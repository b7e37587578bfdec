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

"""The agent path's reads on every real backend: what API workers serve
polls from and warm their metadata caches with (``db/agent_path.py``, its
own engine and compiled statements, beside the facade's)."""

from swconfig.common import context as swconfig_context
from swconfig.db import api as db_api
from tests.unit.db import backends
from tests.unit.db import rows


def _store(ctx, server_id, document, etag):
    """Register the server for ``ctx``'s project and store a document."""
    with db_api.writer.using(ctx):
        server = db_api.server_claim(ctx, server_id, None)
        assert db_api.server_document_store(
            ctx, server_id, server['document_revision'], document, etag)


@backends.on_every_backend
def test_warm_up_pages_every_server_in_id_order(facade):
    ctx = rows.context_for(rows.new_project())
    names = [f'server-{n:02d}' for n in (7, 1, 4, 3, 9, 2, 8)]
    for name in names:
        _store(ctx, name, f'{{"name":"{name}"}}', f'etag-{name}')
    pages, after = [], None
    while True:
        page = db_api.agent_server_documents(after, 3)
        pages.append([row['id'] for row in page])
        if len(page) < 3:
            break
        after = page[-1]['id']
    ordered = sorted(names)
    assert pages == [ordered[0:3], ordered[3:6], ordered[6:]]
    first = db_api.agent_server_documents(None, 1)[0]
    assert first['document'] == '{"name":"server-01"}'
    assert first['etag'] == 'etag-server-01'
    assert first['tenant'] == ctx.project_id
    # the same validators a poll reads for that server
    polled = db_api.agent_server_document('server-01')
    assert {key: first[key] for key in polled} == polled


@backends.on_every_backend
def test_a_poll_reads_the_document_unless_the_agent_has_it(facade):
    ctx = rows.context_for(rows.new_project())
    _store(ctx, 'polled', '{"deployments":[]}', 'etag-1')
    assert db_api.agent_server_document('polled')['document'] == (
        '{"deployments":[]}')
    assert db_api.agent_server_document(
        'polled', with_document=False)['etag'] == 'etag-1'
    # a 304: the validators, not the document
    unchanged = db_api.agent_server_document('polled', unless_etag='etag-1')
    assert unchanged['etag'] == 'etag-1' and unchanged['document'] is None
    stale = db_api.agent_server_document('polled', unless_etag='etag-0')
    assert stale['document'] == '{"deployments":[]}'
    assert db_api.agent_server_document('unknown') is None


@backends.on_every_backend
def test_every_stored_document_is_logged_for_the_caches(facade):
    ctx = rows.context_for(rows.new_project())
    _store(ctx, 'first', '{}', 'etag-a')
    (start, server), = db_api.agent_server_changes(None)
    assert server == 'first'
    admin = swconfig_context.get_admin_context()
    with db_api.writer.using(admin):
        current = db_api.server_get(admin, 'first')
        assert db_api.server_document_store(
            admin, 'first', current['document_revision'], '[]', 'etag-b')
        # a store from a stale revision is refused and logs nothing
        assert not db_api.server_document_store(
            admin, 'first', current['document_revision'], '[1]', 'etag-c')
    _store(ctx, 'second', '{}', 'etag-d')
    changes = db_api.agent_server_changes(start)
    assert [server for _id, server in changes] == ['first', 'second']
    assert [change_id for change_id, _server in changes] == sorted(
        change_id for change_id, _server in changes)
    assert all(change_id > start for change_id, _server in changes)
    assert db_api.agent_server_document('first')['etag'] == 'etag-b'
