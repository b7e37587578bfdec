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

"""Structured-config input substitution (doc/source/reference/derivation.rst,
"Input substitution"): ``input_substitution.substitute`` on its own, the
settings a deployment stores, and ``deriving.derive`` with an
``input_key``, whose values include the ``deploy_*`` inputs."""

import copy

import pytest

from swconfig import transports
from swconfig.common import exception
from swconfig.engine import deriving
from swconfig.engine import input_substitution
from tests.unit.engine.derivation_sources import RecordingTransport
from tests.unit.engine.derivation_sources import source_config

VALUES = {'port': 8080, 'name': 'web', 'empty': None,
          'nested': {'get_input': 'port'}}


def substitute(config, strict=False, input_key='get_input',
               values=VALUES):
    return input_substitution.substitute(config, values, input_key, strict)


# -- substitute ---------------------------------------------------------------

def test_references_are_replaced_at_any_depth_in_maps_and_lists():
    config = {'a': {'get_input': 'port'},
              'b': [1, {'get_input': 'name'}, [{'get_input': 'port'}]],
              'c': {'d': {'e': {'get_input': 'name'}}, 'f': 'plain'}}
    assert substitute(config) == {
        'a': 8080, 'b': [1, 'web', [8080]],
        'c': {'d': {'e': 'web'}, 'f': 'plain'}}


def test_the_whole_config_may_be_a_reference_or_a_list():
    assert substitute({'get_input': 'port'}) == 8080
    assert substitute([{'get_input': 'name'}, 'x']) == ['web', 'x']


@pytest.mark.parametrize('data', [
    {'get_input': 'port', 'other': 1},   # more than one key
    {'get_input': 5},                    # not a string
    {'get_input': ['port']},
    {'get_input': None},
    {'Get_Input': 'port'},               # keys are case-sensitive
    {'get_param': 'port'},               # another key
    {},
])
def test_other_maps_are_data(data):
    assert substitute({'x': data}) == {'x': data}


def test_a_multi_key_map_is_walked_but_kept():
    config = {'get_input': 'port', 'inner': {'get_input': 'name'}}
    assert substitute(config) == {'get_input': 'port', 'inner': 'web'}


def test_a_custom_input_key_leaves_get_input_alone():
    config = {'a': {'my_input': 'port'}, 'b': {'get_input': 'port'}}
    assert substitute(config, input_key='my_input') == {
        'a': 8080, 'b': {'get_input': 'port'}}


@pytest.mark.parametrize('config', [
    '#!/bin/sh\necho {"get_input": "port"}\n', '', 42, None, True])
def test_anything_but_maps_and_lists_is_left_as_it_is(config):
    assert substitute(config, strict=True) == config


def test_a_value_put_in_is_not_walked_again():
    assert substitute({'a': {'get_input': 'nested'}}) == {
        'a': {'get_input': 'port'}}


def test_lax_puts_null_for_a_missing_input():
    assert substitute({'a': {'get_input': 'nope'}, 'b': [
        {'get_input': 'nope'}]}) == {'a': None, 'b': [None]}


def test_strict_refuses_a_missing_input_naming_it_and_where():
    config = {'services': {'web': {'tags': [{'get_input': 'port'},
                                            {'get_input': 'missing'}]}}}
    with pytest.raises(exception.InputValueMissing) as raised:
        substitute(config, strict=True)
    error = raised.value
    assert error.code == 400
    assert isinstance(error, exception.Invalid)
    assert 'input missing at config.services.web.tags[1]' in error.message
    assert '{"get_input": "missing"}' in error.message
    assert 'STRICT' in error.message


def test_strict_takes_an_input_whose_value_is_null():
    """Present with the value null is not missing (as in Heat)."""
    assert substitute({'a': {'get_input': 'empty'}}, strict=True) == {
        'a': None}


def test_strict_with_every_input_present_substitutes():
    assert substitute({'a': [{'get_input': 'port'}]}, strict=True) == {
        'a': [8080]}


def test_nothing_given_is_changed():
    config = {'a': [{'get_input': 'port'}], 'b': {'get_input': 'nested'}}
    values = copy.deepcopy(VALUES)
    snapshot = copy.deepcopy((config, values))
    substitute(config, values=values)
    assert (config, values) == snapshot


# -- the settings a deployment stores ----------------------------------------

@pytest.mark.parametrize('given, stored', [
    ((None, None), (None, None)),
    (('get_input', None), ('get_input', 'LAX')),
    (('get_input', 'LAX'), ('get_input', 'LAX')),
    (('k', 'STRICT'), ('k', 'STRICT')),
    (('x' * 255, None), ('x' * 255, 'LAX')),
])
def test_settings(given, stored):
    assert input_substitution.settings(*given) == stored


@pytest.mark.parametrize('given, words', [
    ((None, 'STRICT'), 'applies only with "input_key"'),
    ((None, 'LAX'), 'applies only with "input_key"'),
    (('', None), '1 to 255 characters'),
    (('x' * 256, None), '1 to 255 characters'),
    ((7, None), '1 to 255 characters'),
    (('get_input', 'strict'), "LAX or STRICT, not 'strict'"),
])
def test_settings_refused(given, words):
    with pytest.raises(exception.InvalidParameterValue) as raised:
        input_substitution.settings(*given)
    assert words in raised.value.message


# -- derive with an input_key -------------------------------------------------

def derive(config, input_values=None, transport=None, action='CREATE',
           input_key='get_input', validate='LAX', group='Heat::Ungrouped',
           inputs=None):
    source = source_config(group=group, config=config)
    if inputs is not None:
        source['inputs'] = inputs
    return deriving.derive(source, {'id': 'srv-1'}, 'dep-1', 3, action,
                           input_values or {},
                           transport or transports.get('NO_SIGNAL'),
                           input_key=input_key,
                           input_values_validate=validate)


def test_derive_substitutes_declared_extra_and_deploy_inputs():
    config = {'declared': {'get_input': 'foo'},
              'default': {'get_input': 'baz'},
              'extra': {'get_input': 'extra'},
              'server': {'get_input': 'deploy_server_id'},
              'action': {'get_input': 'deploy_action'},
              'transport': {'get_input': 'deploy_signal_transport'},
              'signal': {'get_input': 'deploy_recorded'}}
    derived = derive(config, input_values={'foo': 'given', 'extra': [1]},
                     transport=RecordingTransport(), action='UPDATE')
    assert derived['config'] == {
        'declared': 'given', 'default': {'k': 'v'}, 'extra': [1],
        'server': 'srv-1', 'action': 'UPDATE', 'transport': 'RECORDING',
        'signal': 'srv-1/dep-1/3'}
    # The inputs themselves are derived as without substitution.
    assert derived['inputs'] == deriving.derive(
        source_config(config=config), {'id': 'srv-1'}, 'dep-1', 3, 'UPDATE',
        {'foo': 'given', 'extra': [1]}, RecordingTransport())['inputs']


def test_derive_the_deploy_input_wins_over_an_input_value_of_its_name():
    derived = derive({'a': {'get_input': 'deploy_action'}},
                     input_values={'deploy_action': 'mine'}, action='CREATE')
    assert derived['config'] == {'a': 'CREATE'}


def test_derive_a_declared_input_without_value_is_null_even_strict():
    derived = derive({'a': {'get_input': 'bare'}}, validate='STRICT',
                     inputs=[{'name': 'bare', 'type': 'String'}])
    assert derived['config'] == {'a': None}


def test_derive_strict_refuses_before_anything_is_derived():
    with pytest.raises(exception.InputValueMissing) as raised:
        derive({'a': {'get_input': 'nope'}}, validate='STRICT')
    assert 'input nope' in raised.value.message


def test_derive_without_an_input_key_leaves_the_config_alone():
    config = {'a': {'get_input': 'foo'}}
    assert derive(config, input_key=None, validate=None)['config'] == config


def test_derive_leaves_a_script_alone():
    script = '#!/bin/sh\necho {"get_input": "foo"}\n'
    assert derive(script, validate='STRICT')['config'] == script


def test_derive_leaves_a_component_alone():
    """Its entries' configs are strings (components.check), so neither
    the entry derived for an action nor a component kept whole for an
    action no entry serves has a map to substitute."""
    component = {'configs': [
        {'actions': ['CREATE'], 'tool': 'script',
         'config': '{"get_input": "nope"}'}]}
    created = derive(component, group='component', validate='STRICT')
    assert (created['group'], created['config']) == (
        'script', '{"get_input": "nope"}')
    kept = derive(component, group='component', validate='STRICT',
                  action='SUSPEND')
    assert kept['config'] == component
