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

"""The one check of component configs, and the entry an action runs."""

import pytest

from swconfig.common import components
from swconfig.common import exception

CONFIG = {'name': 'db', 'group': 'component', 'config': {'configs': [
    {'tool': 'script', 'config': 'create'},
    {'actions': ['DELETE', 'BACKUP'], 'tool': 'ansible', 'config': 'x'},
]}}


@pytest.mark.parametrize('config, message', [
    (None, 'at least one entry'),
    ({'configs': []}, 'at least one entry'),
    ({'configs': ['x']}, 'must be an object'),
    ({'configs': [{'config': 'x'}]}, 'needs "tool"'),
    ({'configs': [{'tool': 'script', 'config': 3}]}, 'must be a string'),
    ({'configs': [{'tool': 'script', 'actions': []}]}, 'at least one'),
    ({'configs': [{'tool': 'script', 'actions': ['BACK UP']}]},
     '"BACK UP" is not an action name'),
    ({'configs': [{'tool': 'script', 'actions': ['CREATE', '1st']}]},
     '"1st" is not an action name'),
    ({'configs': [{'tool': 'a'}, {'tool': 'b', 'actions': ['UPDATE']}]},
     'Defining more than one configuration for the same action in '
     'SoftwareComponent "c" is not allowed.'),
])
def test_invalid_components_are_refused(config, message):
    with pytest.raises(exception.InvalidParameterValue) as raised:
        components.check('c', config)
    assert message in raised.value.message


def test_a_valid_component_passes():
    assert components.check('db', CONFIG['config']) is None


@pytest.mark.parametrize('action, tool', [
    ('CREATE', 'script'), ('UPDATE', 'script'), ('DELETE', 'ansible'),
    ('BACKUP', 'ansible'), ('SUSPEND', None)])
def test_the_entry_listing_the_action_serves_it(action, tool):
    entry = components.entry_for(CONFIG, action)
    assert (entry and entry['tool']) == tool


@pytest.mark.parametrize('action', [
    'CREATE', 'UPDATE', 'DELETE', 'BACKUP',
    # Lifecycle actions without an entry run nothing (Heat's behaviour).
    'SUSPEND', 'RESUME'])
def test_defined_and_lifecycle_actions_are_accepted(action):
    assert components.check_action(CONFIG, action) is None


def test_a_config_that_is_not_a_component_accepts_any_action():
    assert components.check_action(
        {'name': 's', 'group': 'script', 'config': 'echo'}, 'BAKUP') is None


@pytest.mark.parametrize('action, hint', [
    ('BAKUP', ' (did you mean BACKUP?)'),
    ('backup', ' (did you mean BACKUP?)'),
    ('suspend', ' (did you mean SUSPEND?)'),
    ('SUSPND', ' (did you mean SUSPEND?)'),
    ('RESTORE', ''),
])
def test_a_custom_action_without_an_entry_is_400_naming_the_defined_ones(
        action, hint):
    with pytest.raises(exception.UndefinedAction) as raised:
        components.check_action(CONFIG, action)
    error = raised.value
    assert error.code == 400
    assert error.type_name == 'UndefinedAction'
    assert error.message == (
        f'Component db has no entry for action {action}{hint}; its entries '
        f'define CREATE, UPDATE, DELETE, BACKUP. Only the lifecycle actions '
        f'(CREATE, UPDATE, DELETE, SUSPEND, RESUME) may have no entry, and '
        f'they then run nothing.')


def test_a_component_without_a_name_is_named_by_its_id():
    config = dict(CONFIG, name=None, id='c-1')
    with pytest.raises(exception.UndefinedAction) as raised:
        components.check_action(config, 'RESTORE')
    assert raised.value.message.startswith('Component c-1 has no entry')
