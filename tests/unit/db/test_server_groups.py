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

"""Resolving server groups and label selectors (swconfig.db.server_groups
and server_labels): what a rollout records as its targets when it starts.
The same members, in the same order, on every backend; nothing of a
refused write is kept."""

from oslo_utils import uuidutils
import pytest

from swconfig.common import exception
from swconfig.db import api as db_api
from tests.unit.db import backends
from tests.unit.db import rows

# Code point order, which no backend's collation gives on its own (MariaDB
# ignores case, PostgreSQL's locale orders "_" and case differently).
IDS = ['B-2', 'a-1', '_spare', 'b-1', 'A-3']


def _server(context, server_id: str, **labels: str) -> None:
    with db_api.writer.using(context):
        server = db_api.server_claim(context, server_id, None)
        db_api.server_labels_replace(context, server_id, server['tenant'],
                                     labels)


def _group(context, name: str, servers=(), selector=None) -> dict:
    return db_api.server_group_create(context, {
        'id': uuidutils.generate_uuid(), 'tenant': context.project_id,
        'name': name, 'selector': selector}, list(servers))


@backends.on_every_backend
def test_members_are_explicit_and_selected_once_in_code_point_order(
        facade, ctx, other_ctx):
    for server_id in IDS:
        _server(ctx, server_id, role='db' if server_id != '_spare' else 'x')
    _server(other_ctx, 'theirs', role='db')
    group = _group(ctx, 'dbs', servers=['_spare', 'a-1'],
                   selector={'role': 'db'})
    expected = sorted(IDS)
    assert expected == ['A-3', 'B-2', '_spare', 'a-1', 'b-1']
    assert db_api.server_group_resolve(ctx, group['id']) == expected
    assert db_api.servers_matching(ctx, {'role': 'db'}) == [
        'A-3', 'B-2', 'a-1', 'b-1']
    assert db_api.servers_matching(ctx, {'role': 'DB'}) == []
    assert db_api.servers_matching(other_ctx, {'role': 'db'}) == ['theirs']
    assert db_api.servers_matching(other_ctx, {'role': 'db'},
                                   project_id=ctx.project_id) == [
        'A-3', 'B-2', 'a-1', 'b-1']
    assert db_api.servers_matching(ctx, {}) == []


def test_a_selector_needs_every_label(db, ctx):
    _server(ctx, 's1', role='db', zone='a')
    _server(ctx, 's2', role='db', zone='b')
    _server(ctx, 's3', zone='a')
    assert db.servers_matching(ctx, {'role': 'db', 'zone': 'a'}) == ['s1']
    assert db.servers_matching(ctx, {'zone': 'a'}) == ['s1', 's3']
    assert db.servers_matching(ctx, {'role': 'db', 'zone': 'c'}) == []


def test_the_resolved_list_is_the_group_at_that_time(db, ctx):
    _server(ctx, 's1', role='db')
    group = _group(ctx, 'dbs', selector={'role': 'db'})
    recorded = db.server_group_resolve(ctx, group['id'])
    _server(ctx, 's2', role='db')
    _server(ctx, 's1', role='web')
    assert recorded == ['s1']
    assert db.server_group_resolve(ctx, group['id']) == ['s2']


def test_who_may_resolve_and_filter(db, ctx, other_ctx, admin_ctx):
    _server(ctx, 's1', role='db')
    group = _group(ctx, 'dbs', selector={'role': 'db'})
    with pytest.raises(exception.ServerGroupNotFound):
        db.server_group_resolve(other_ctx, group['id'])
    # An admin resolves the group in its own project, not the admin's,
    # and filters every project's servers by label.
    assert db.server_group_resolve(admin_ctx, group['id']) == ['s1']
    _server(other_ctx, 's2', role='db')
    assert [row['id'] for row in db.server_get_all(
        admin_ctx, labels={'role': 'db'})] == ['s1', 's2']
    assert [row['id'] for row in db.server_get_all(
        ctx, labels={'role': 'db'})] == ['s1']


def test_a_refused_group_leaves_nothing(db, ctx, other_ctx):
    _server(ctx, 's1')
    _server(other_ctx, 'theirs')
    with pytest.raises(exception.GroupMembersNotRegistered) as refused:
        _group(ctx, 'g', servers=['s1', 'ghost'])
    assert refused.value.message.startswith('Server ghost is not')
    with pytest.raises(exception.ServerOwnedByOtherProject):
        _group(ctx, 'g', servers=['s1', 'theirs'])
    with pytest.raises(exception.ServerGroupEmpty):
        _group(ctx, 'g')
    assert db.server_group_get_all(ctx) == []
    group = _group(ctx, 'g', servers=['s1'])
    with pytest.raises(exception.ServerGroupEmpty):
        db.server_group_update(ctx, group['id'], {}, [])
    with pytest.raises(exception.GroupMembersNotRegistered):
        db.server_group_update(ctx, group['id'], {'selector': {'a': 'b'}},
                               ['s1', 'ghost'])
    kept = db.server_group_get(ctx, group['id'])
    assert kept['servers'] == ['s1'] and kept['selector'] is None
    assert kept['updated_at'] is None


@backends.on_every_backend
def test_servers_with_a_deployment_named_for_a_rollout_action(
        facade, ctx, other_ctx):
    """What a rollout of ``deployment_name`` can run on: servers with a
    visible deployment (not a trigger) of a config of that name."""
    db_config = rows.make_config(ctx, name='db')
    web_config = rows.make_config(ctx, name='web')
    first = rows.make_deployment(ctx, db_config['id'], server_id='s-1')
    rows.make_deployment(ctx, web_config['id'], server_id='s-2')
    rows.make_deployment(ctx, db_config['id'], server_id='s-3',
                         triggered_from=first['id'])
    theirs = rows.make_config(other_ctx, name='db')
    rows.make_deployment(other_ctx, theirs['id'], server_id='s-4')
    wanted = ['s-1', 's-2', 's-3', 's-4', 's-5']
    assert db_api.servers_with_deployment_named(ctx, wanted, 'db') == {'s-1'}
    assert db_api.servers_with_deployment_named(ctx, wanted, 'web') == {
        's-2'}
    assert db_api.servers_with_deployment_named(other_ctx, wanted,
                                                'db') == {'s-4'}
    assert db_api.servers_with_deployment_named(ctx, [], 'db') == set()
