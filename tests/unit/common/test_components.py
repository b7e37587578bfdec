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
