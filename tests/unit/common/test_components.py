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
