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

"""Heat's response representations (doc/source/reference/deployments.rst,
doc/source/reference/metadata.rst)."""

import datetime

import pytest

from swconfig.api import views

CREATED = datetime.datetime(2024, 2, 29, 23, 59, 58, 987654)
UPDATED = datetime.datetime(2024, 3, 1, 0, 0, 1)


@pytest.mark.parametrize('value, expected', [
    (datetime.datetime(2024, 1, 2, 3, 4, 5), '2024-01-02T03:04:05Z'),
    (datetime.datetime(2024, 1, 2, 3, 4, 5, 999999), '2024-01-02T03:04:05Z'),
    # What the engine's results look like after the RPC JSON serializer.
    ('2024-01-02T03:04:05.123456', '2024-01-02T03:04:05Z'),
    ('2024-01-02T03:04:05', '2024-01-02T03:04:05Z'),
    ('2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z'),
    ('2024-01-02T03:04:05+02:00', '2024-01-02T01:04:05Z'),
    ('2024-01-01T23:30:00-01:00', '2024-01-02T00:30:00Z'),
    (None, None),
])
def test_format_time(value, expected):
    assert views.format_time(value) == expected


def test_format_time_converts_aware_datetimes_to_utc():
    plus_two = datetime.timezone(datetime.timedelta(hours=2))
    value = datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=plus_two)
    assert views.format_time(value) == '2024-01-02T01:04:05Z'


def _config_row(name='cfg', **extra):
    row = {'id': 'c-1', 'name': name, 'group': 'script',
           'config': '#!/bin/sh', 'inputs': [{'name': 'a', 'type': 'String'}],
           'outputs': [], 'options': {'x': 1}, 'tenant': 'p1',
           'created_at': CREATED}
    row.update(extra)
    return row


def _deployment_row(**extra):
    row = {'id': 'd-1', 'config_id': 'c-1', 'server_id': 's-1',
           'input_values': {'a': 1}, 'output_values': None,
           'action': 'CREATE', 'status': 'IN_PROGRESS',
           'status_reason': None, 'tenant': 'p1',
           'stack_user_project_id': 'p2', 'version': 3,
           'created_at': CREATED, 'updated_at': None}
    row.update(extra)
    return row


def test_config_summary_has_exactly_heats_keys():
    assert views.config_summary(_config_row()) == {
        'id': 'c-1', 'name': 'cfg', 'group': 'script',
        'creation_time': '2024-02-29T23:59:58Z'}


def test_config_summary_shows_the_project_only_when_asked():
    assert views.config_summary(_config_row(), with_project=True)[
        'project'] == 'p1'


def test_config_flattens_the_document():
    assert views.config(_config_row()) == {
        'id': 'c-1', 'name': 'cfg', 'group': 'script',
        'creation_time': '2024-02-29T23:59:58Z', 'config': '#!/bin/sh',
        'inputs': [{'name': 'a', 'type': 'String'}], 'outputs': [],
        'options': {'x': 1}}


def test_deployment_without_updated_at_has_no_updated_time():
    item = views.deployment(_deployment_row(), 'cfg')
    assert item == {
        'id': 'd-1', 'config_id': 'c-1', 'server_id': 's-1',
        'input_values': {'a': 1}, 'output_values': None,
        'action': 'CREATE', 'status': 'IN_PROGRESS', 'status_reason': None,
        'creation_time': '2024-02-29T23:59:58Z',
        # swconfig's additions, after Heat's keys.
        'name': 'cfg', 'source_config_id': None, 'signal_transport': None,
        'triggered_from': None, 'input_key': None,
        'input_values_validate': None}


def test_deployment_says_where_it_came_from():
    item = views.deployment(_deployment_row(
        source_config_id='c-0', signal_transport='HEAT_SIGNAL',
        triggered_from='d-0'), 'cfg-BACKUP')
    assert (item['name'], item['source_config_id'],
            item['signal_transport'], item['triggered_from']) == (
        'cfg-BACKUP', 'c-0', 'HEAT_SIGNAL', 'd-0')


def test_deployment_shows_its_input_substitution():
    item = views.deployment(_deployment_row(
        input_key='get_input', input_values_validate='STRICT'), 'cfg')
    assert (item['input_key'], item['input_values_validate']) == (
        'get_input', 'STRICT')


def test_deployment_row_without_an_updated_at_key_is_fine():
    row = _deployment_row()
    del row['updated_at']
    assert 'updated_time' not in views.deployment(row, None)


@pytest.mark.parametrize('updated', [UPDATED, '2024-03-01T00:00:01.5'])
def test_deployment_with_updated_at_has_updated_time(updated):
    item = views.deployment(_deployment_row(updated_at=updated), None)
    assert item['updated_time'] == '2024-03-01T00:00:01Z'


def test_deployment_hides_internal_columns():
    item = views.deployment(_deployment_row(updated_at=UPDATED), None)
    assert not {'tenant', 'stack_user_project_id', 'version', 'created_at',
                'updated_at'} & set(item)


def test_event():
    row = {'id': 7, 'deployment_id': 'd-1', 'created_at': CREATED,
           'action': 'CREATE', 'old_status': None,
           'new_status': 'IN_PROGRESS', 'reason': 'Deploy data available'}
    assert views.event(row) == {
        'id': 7, 'deployment_id': 'd-1', 'time': '2024-02-29T23:59:58Z',
        'action': 'CREATE', 'old_status': None,
        'new_status': 'IN_PROGRESS', 'reason': 'Deploy data available'}


def test_metadata_orders_by_config_name_with_nulls_first_and_is_stable():
    # Input order is deployment age; equal names keep it.
    rows = [_config_row(id='b-old', name='b'),
            _config_row(id='null-old', name=None),
            _config_row(id='a', name='a'),
            _config_row(id='b-new', name='b'),
            _config_row(id='empty', name=''),
            _config_row(id='null-new', name=None),
            _config_row(id='upper', name='B')]
    ordered = views.metadata(rows)
    assert [item['id'] for item in ordered] == [
        'null-old', 'null-new', 'empty', 'upper', 'a', 'b-old',
        'b-new']


def test_metadata_items_are_full_config_representations():
    (item,) = views.metadata([_config_row()])
    assert item == views.config(_config_row())


def test_metadata_of_nothing_is_empty():
    assert views.metadata([]) == []


def test_metadata_does_not_reorder_its_argument():
    rows = [_config_row(id='2', name='z'), _config_row(id='1', name='a')]
    views.metadata(rows)
    assert [row['id'] for row in rows] == ['2', '1']
