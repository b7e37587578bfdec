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

"""swconfig.db.api on a real SQLite file: scoping, paging, the conditional
update and the event trail."""

import datetime
import uuid

import pytest

from swconfig.common import exception
from tests.unit.db import rows

make_config = rows.make_config
make_deployment = rows.make_deployment


def _server():
    return f'server-{uuid.uuid4().hex[:12]}'


def _ids(items):
    return [item['id'] for item in items]


# -- software configs --------------------------------------------------------

def test_config_round_trip(db, ctx):
    created = make_config(
        ctx, name='名前', config={'structured': [1, {'a': None}]},
        inputs=[{'name': 'x', 'type': 'Number', 'default': 3}],
        outputs=[{'name': 'r', 'type': 'String', 'error_output': True}],
        options={'o': True})
    fetched = db.software_config_get(ctx, created['id'])
    assert fetched == created
    assert fetched['name'] == '名前'
    assert fetched['config'] == {'structured': [1, {'a': None}]}
    assert fetched['inputs'] == [{'name': 'x', 'type': 'Number',
                                  'default': 3}]
    assert fetched['tenant'] == ctx.project_id
    assert isinstance(fetched['created_at'], datetime.datetime)


def test_config_created_at_defaults_to_now(db, ctx):
    before = datetime.datetime.utcnow() - datetime.timedelta(seconds=1)
    created = make_config(ctx, created_at=None)
    assert before <= created['created_at'] <= (
        datetime.datetime.utcnow() + datetime.timedelta(seconds=1))


def test_unknown_config_is_not_found(db, ctx):
    with pytest.raises(exception.ConfigNotFound) as info:
        db.software_config_get(ctx, 'no-such-config')
    assert info.value.message == 'Software config with id no-such-config ' \
                                 'not found'


def test_other_projects_config_is_not_found(db, ctx, other_ctx):
    config = make_config(ctx)
    with pytest.raises(exception.ConfigNotFound):
        db.software_config_get(other_ctx, config['id'])


def test_admin_sees_every_projects_config(db, ctx, admin_ctx):
    config = make_config(ctx)
    assert db.software_config_get(admin_ctx, config['id']) == config


def test_config_list_is_scoped_to_the_project(db, ctx, other_ctx):
    mine = [make_config(ctx)['id'] for _ in range(2)]
    theirs = make_config(other_ctx)['id']
    assert set(_ids(db.software_config_get_all(ctx))) == set(mine)
    assert _ids(db.software_config_get_all(other_ctx)) == [theirs]


def test_config_list_for_admin_and_all_projects(db, ctx, other_ctx,
                                                admin_ctx):
    mine = make_config(ctx)['id']
    theirs = make_config(other_ctx)['id']
    assert {mine, theirs} <= set(_ids(db.software_config_get_all(admin_ctx)))
    # all_projects is for callers the global_index policy allowed.
    assert {mine, theirs} <= set(_ids(db.software_config_get_all(
        ctx, all_projects=True)))


def test_config_list_is_newest_first_and_pages_with_a_marker(db, ctx):
    ids = [make_config(ctx, name=f'c{i}')['id'] for i in range(5)]
    newest_first = ids[::-1]
    assert _ids(db.software_config_get_all(ctx)) == newest_first
    assert _ids(db.software_config_get_all(ctx, limit=2)) == newest_first[:2]
    assert _ids(db.software_config_get_all(
        ctx, limit=2, marker=newest_first[1])) == newest_first[2:4]
    assert _ids(db.software_config_get_all(
        ctx, marker=newest_first[3])) == newest_first[4:]
    assert db.software_config_get_all(ctx, marker=newest_first[4]) == []
    assert db.software_config_get_all(ctx, limit=0) == []


def test_config_list_breaks_created_at_ties_by_id_descending(db, ctx):
    when = rows.tick()
    ids = [make_config(ctx, id=f'{ctx.project_id}-{suffix}',
                       created_at=when)['id'] for suffix in 'bca']
    older = make_config(ctx, created_at=when - datetime.timedelta(days=1))
    expected = sorted(ids, reverse=True) + [older['id']]
    assert _ids(db.software_config_get_all(ctx)) == expected
    assert _ids(db.software_config_get_all(
        ctx, marker=expected[0])) == expected[1:]
    assert _ids(db.software_config_get_all(
        ctx, marker=expected[1], limit=1)) == expected[2:3]


def test_unknown_marker_is_ignored(db, ctx):
    ids = [make_config(ctx)['id'] for _ in range(3)]
    assert _ids(db.software_config_get_all(
        ctx, marker='no-such-config')) == ids[::-1]


def test_marker_of_another_project_still_positions_the_page(db, ctx,
                                                           other_ctx):
    first = make_config(ctx)['id']
    marker = make_config(other_ctx)['id']
    last = make_config(ctx)['id']
    assert _ids(db.software_config_get_all(ctx)) == [last, first]
    assert _ids(db.software_config_get_all(ctx, marker=marker)) == [first]


def test_config_count_is_per_project(db, ctx, other_ctx, admin_ctx):
    for _ in range(3):
        make_config(ctx)
    make_config(other_ctx)
    assert db.software_config_count(ctx) == 3
    assert db.software_config_count(other_ctx) == 1
    assert db.software_config_count(admin_ctx) == 0


def test_config_delete(db, ctx):
    config = make_config(ctx)
    assert db.software_config_delete(ctx, config['id']) is None
    with pytest.raises(exception.ConfigNotFound):
        db.software_config_get(ctx, config['id'])
    with pytest.raises(exception.ConfigNotFound):
        db.software_config_delete(ctx, config['id'])


def test_other_projects_config_cannot_be_deleted(db, ctx, other_ctx):
    config = make_config(ctx)
    with pytest.raises(exception.ConfigNotFound):
        db.software_config_delete(other_ctx, config['id'])
    assert db.software_config_get(ctx, config['id']) == config


def test_referenced_config_is_not_deleted(db, ctx, other_ctx):
    config = make_config(ctx)
    # Any deployment counts, whichever project it is in.
    deployment = make_deployment(other_ctx, config['id'], _server())
    with pytest.raises(exception.ConfigInUse) as info:
        db.software_config_delete(ctx, config['id'])
    assert info.value.code == 409
    assert info.value.message == (
        f'Software config with id {config["id"]} can not be deleted as it '
        f'is referenced.')
    assert db.software_config_get(ctx, config['id']) == config
    db.software_deployment_delete(other_ctx, deployment['id'])
    db.software_config_delete(ctx, config['id'])
    with pytest.raises(exception.ConfigNotFound):
        db.software_config_get(ctx, config['id'])


def test_config_a_deployment_was_derived_from_is_not_deleted(db, ctx):
    source = make_config(ctx, name='source')
    derived = make_config(ctx, name='derived')
    make_deployment(ctx, derived['id'], _server(),
                    source_config_id=source['id'])
    with pytest.raises(exception.ConfigInUse):
        db.software_config_delete(ctx, source['id'])
    assert db.software_config_get(ctx, source['id']) == source


# -- software deployments ----------------------------------------------------

def test_deployment_create_and_get(db, ctx):
    config = make_config(ctx)
    server = _server()
    created = make_deployment(ctx, config['id'], server,
                              input_values={'a': 1},
                              stack_user_project_id='p-stack-user')
    assert created['version'] == 1
    assert created['updated_at'] is None
    assert created['output_values'] is None
    fetched = db.software_deployment_get(ctx, created['id'])
    assert fetched == created
    assert fetched['server_id'] == server
    assert fetched['input_values'] == {'a': 1}
    assert fetched['stack_user_project_id'] == 'p-stack-user'


def test_deployment_of_unknown_config_is_config_not_found(db, ctx):
    with pytest.raises(exception.ConfigNotFound):
        make_deployment(ctx, 'no-such-config', _server())
    assert db.software_deployment_get_all(ctx) == []


def test_deployment_visibility(db, ctx, other_ctx, admin_ctx):
    config = make_config(ctx)
    stack_user_ctx = rows.context_for(rows.new_project(),
                                      roles=('heat_stack_user',))
    deployment = make_deployment(
        ctx, config['id'], _server(),
        stack_user_project_id=stack_user_ctx.project_id)
    assert db.software_deployment_get(ctx, deployment['id']) == deployment
    assert db.software_deployment_get(stack_user_ctx,
                                      deployment['id']) == deployment
    assert db.software_deployment_get(admin_ctx,
                                      deployment['id']) == deployment
    with pytest.raises(exception.DeploymentNotFound) as info:
        db.software_deployment_get(other_ctx, deployment['id'])
    assert info.value.message == (
        f'Deployment with id {deployment["id"]} not found')


def test_deployment_list_scoping_order_and_server_filter(db, ctx, other_ctx,
                                                        admin_ctx):
    config = make_config(ctx)
    server_a, server_b = _server(), _server()
    first = make_deployment(ctx, config['id'], server_a)
    second = make_deployment(ctx, config['id'], server_b)
    third = make_deployment(ctx, config['id'], server_a)
    shared = make_deployment(other_ctx, config['id'], server_a,
                             stack_user_project_id=ctx.project_id)
    hidden = make_deployment(other_ctx, config['id'], server_a)

    assert _ids(db.software_deployment_get_all(ctx)) == [
        first['id'], second['id'], third['id'], shared['id']]
    assert _ids(db.software_deployment_get_all(ctx, server_id=server_a)) == [
        first['id'], third['id'], shared['id']]
    assert _ids(db.software_deployment_get_all(ctx, server_id=server_b)) == [
        second['id']]
    assert _ids(db.software_deployment_get_all(other_ctx)) == [
        shared['id'], hidden['id']]
    assert _ids(db.software_deployment_get_all(
        admin_ctx, server_id=server_a)) == [
        first['id'], third['id'], shared['id'], hidden['id']]
    assert db.software_deployment_get_all(ctx, server_id=_server()) == []


def test_deployment_count_includes_stack_user_project(db, ctx, other_ctx):
    config = make_config(ctx)
    make_deployment(ctx, config['id'], _server())
    make_deployment(other_ctx, config['id'], _server(),
                    stack_user_project_id=ctx.project_id)
    make_deployment(other_ctx, config['id'], _server())
    assert db.software_deployment_count(ctx) == 2
    assert db.software_deployment_count(other_ctx) == 2


def test_update_applies_values_and_bumps_the_version(db, ctx):
    config = make_config(ctx)
    new_config = make_config(ctx)
    deployment = make_deployment(ctx, config['id'], _server())
    updated = db.software_deployment_update(
        ctx, deployment['id'], 1,
        {'config_id': new_config['id'], 'output_values': {'r': 1},
         'input_values': {}, 'status_reason': ''})
    assert updated['version'] == 2
    assert updated['config_id'] == new_config['id']
    assert updated['output_values'] == {'r': 1}
    assert updated['input_values'] == {}
    assert updated['status_reason'] == ''
    assert updated['updated_at'] is not None
    assert db.software_deployment_get(ctx, deployment['id']) == updated
    again = db.software_deployment_update(ctx, deployment['id'], 2,
                                          {'action': 'UPDATE'})
    assert again['version'] == 3
    assert again['action'] == 'UPDATE'
    assert again['output_values'] == {'r': 1}


def test_update_keeps_a_supplied_updated_at(db, ctx):
    config = make_config(ctx)
    deployment = make_deployment(ctx, config['id'], _server())
    when = datetime.datetime(2031, 5, 6, 7, 8, 9)
    updated = db.software_deployment_update(
        ctx, deployment['id'], 1, {'status': 'COMPLETE', 'updated_at': when})
    assert updated['updated_at'] == when


@pytest.mark.parametrize('stale', [0, 2, 99])
def test_stale_version_is_a_concurrent_update_and_changes_nothing(db, ctx,
                                                                  stale):
    config = make_config(ctx)
    deployment = make_deployment(ctx, config['id'], _server())
    events = db.software_deployment_event_get_all(ctx, deployment['id'])
    with pytest.raises(exception.ConcurrentUpdate) as info:
        db.software_deployment_update(
            ctx, deployment['id'], stale,
            {'status': 'COMPLETE', 'output_values': {'r': 1}})
    assert info.value.code == 409
    assert db.software_deployment_get(ctx, deployment['id']) == deployment
    assert db.software_deployment_event_get_all(
        ctx, deployment['id']) == events


def test_second_writer_with_the_same_version_loses(db, ctx):
    config = make_config(ctx)
    deployment = make_deployment(ctx, config['id'], _server())
    winner = db.software_deployment_update(
        ctx, deployment['id'], 1,
        {'status': 'COMPLETE', 'output_values': {'from': 'signal'}})
    with pytest.raises(exception.ConcurrentUpdate):
        db.software_deployment_update(
            ctx, deployment['id'], 1,
            {'status': 'FAILED', 'output_values': {'from': 'put'}})
    assert db.software_deployment_get(ctx, deployment['id']) == winner


def test_update_with_unknown_config_is_config_not_found(db, ctx):
    config = make_config(ctx)
    deployment = make_deployment(ctx, config['id'], _server())
    with pytest.raises(exception.ConfigNotFound):
        db.software_deployment_update(ctx, deployment['id'], 1,
                                      {'config_id': 'no-such-config'})
    assert db.software_deployment_get(ctx, deployment['id']) == deployment


def test_update_is_scoped(db, ctx, other_ctx):
    config = make_config(ctx)
    deployment = make_deployment(ctx, config['id'], _server())
    with pytest.raises(exception.DeploymentNotFound):
        db.software_deployment_update(other_ctx, deployment['id'], 1,
                                      {'status': 'FAILED'})
    assert db.software_deployment_get(ctx, deployment['id']) == deployment
    with pytest.raises(exception.DeploymentNotFound):
        db.software_deployment_update(ctx, 'no-such-deployment', 1, {})


def test_stack_user_project_may_update(db, ctx, other_ctx):
    config = make_config(ctx)
    deployment = make_deployment(
        ctx, config['id'], _server(),
        stack_user_project_id=other_ctx.project_id)
    updated = db.software_deployment_update(other_ctx, deployment['id'], 1,
                                            {'status': 'COMPLETE'})
    assert updated['status'] == 'COMPLETE'


def _event_summary(events):
    return [(e['action'], e['old_status'], e['new_status'], e['reason'])
            for e in events]


def test_events_on_create_and_on_every_status_change_only(db, ctx):
    config = make_config(ctx)
    deployment = make_deployment(ctx, config['id'], _server())
    steps = [
        ({'output_values': {'r': 1}}, None),
        ({'status': 'IN_PROGRESS', 'status_reason': 'still'}, None),
        ({'status': 'COMPLETE', 'status_reason': 'Outputs received'},
         ('CREATE', 'IN_PROGRESS', 'COMPLETE', 'Outputs received')),
        ({'input_values': {'a': 2}, 'action': 'UPDATE'}, None),
        ({'status': 'IN_PROGRESS', 'status_reason': 'Deploy data available'},
         ('UPDATE', 'COMPLETE', 'IN_PROGRESS', 'Deploy data available')),
        ({'status': 'FAILED', 'status_reason': 'exit 3'},
         ('UPDATE', 'IN_PROGRESS', 'FAILED', 'exit 3')),
        ({}, None),
    ]
    expected = [('CREATE', None, 'IN_PROGRESS', 'Deploy data available')]
    version = 1
    for values, event in steps:
        db.software_deployment_update(ctx, deployment['id'], version, values)
        version += 1
        if event:
            expected.append(event)
        events = db.software_deployment_event_get_all(ctx, deployment['id'])
        assert _event_summary(events) == expected, values
    assert [e['deployment_id'] for e in events] == [deployment['id']] * len(
        expected)
    assert events[0]['created_at'] == deployment['created_at']


def test_update_with_an_event_reason_records_an_event(db, ctx):
    config = make_config(ctx)
    deployment = make_deployment(ctx, config['id'], _server())
    db.software_deployment_update(ctx, deployment['id'], 1,
                                  {'status_reason': 'half way'},
                                  event_reason='50% done')
    events = db.software_deployment_event_get_all(ctx, deployment['id'])
    assert _event_summary(events)[1:] == [
        ('CREATE', 'IN_PROGRESS', 'IN_PROGRESS', '50% done')]


def test_create_event_records_a_null_status(db, ctx):
    config = make_config(ctx)
    deployment = make_deployment(ctx, config['id'], _server(), action=None,
                                 status=None, status_reason=None)
    assert _event_summary(db.software_deployment_event_get_all(
        ctx, deployment['id'])) == [(None, None, None, None)]


def test_events_are_scoped_like_their_deployment(db, ctx, other_ctx):
    config = make_config(ctx)
    deployment = make_deployment(ctx, config['id'], _server())
    with pytest.raises(exception.DeploymentNotFound):
        db.software_deployment_event_get_all(other_ctx, deployment['id'])


def test_deployment_delete_removes_it_and_its_events(db, ctx, admin_ctx):
    config = make_config(ctx)
    deployment = make_deployment(ctx, config['id'], _server())
    db.software_deployment_update(ctx, deployment['id'], 1,
                                  {'status': 'COMPLETE'})
    deleted = db.software_deployment_delete(ctx, deployment['id'])
    assert deleted['id'] == deployment['id']
    with pytest.raises(exception.DeploymentNotFound):
        db.software_deployment_get(admin_ctx, deployment['id'])
    with pytest.raises(exception.DeploymentNotFound):
        db.software_deployment_event_get_all(admin_ctx, deployment['id'])
    with pytest.raises(exception.DeploymentNotFound):
        db.software_deployment_delete(ctx, deployment['id'])
    # The config is not deleted with it.
    assert db.software_config_get(ctx, config['id']) == config


def test_other_projects_deployment_cannot_be_deleted(db, ctx, other_ctx):
    config = make_config(ctx)
    deployment = make_deployment(ctx, config['id'], _server())
    with pytest.raises(exception.DeploymentNotFound):
        db.software_deployment_delete(other_ctx, deployment['id'])
    assert db.software_deployment_get(ctx, deployment['id']) == deployment


# -- server metadata ---------------------------------------------------------

def test_server_document_is_read_by_owner_admin_and_stack_user(
        db, ctx, other_ctx, admin_ctx):
    server = _server()
    db.server_claim(ctx, server, 'http://api')
    assert db.server_document_store(ctx, server, 0, '{"deployments":[]}',
                                    'etag-1')
    assert db.server_document_get(ctx, server) == '{"deployments":[]}'
    assert db.server_document_get(admin_ctx, server) == (
        '{"deployments":[]}')
    with pytest.raises(exception.ServerOwnedByOtherProject):
        db.server_document_get(other_ctx, server)
    # A stack user project of one of its deployments may read it.
    make_deployment(ctx, make_config(ctx)['id'], server,
                    stack_user_project_id=other_ctx.project_id)
    assert db.server_document_get(other_ctx, server) == (
        '{"deployments":[]}')
    assert db.server_document_get(ctx, _server()) is None
