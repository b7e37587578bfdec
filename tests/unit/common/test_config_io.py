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

"""Heat's normal form of config inputs/outputs
(doc/source/reference/config-io.rst)."""

import pytest

from swconfig.common import config_io
from swconfig.common import exception


def test_minimal_input_gets_a_type_and_nothing_else():
    assert config_io.normalise_input({'name': 'foo'}) == {
        'name': 'foo', 'type': 'String'}


def test_minimal_output_always_carries_error_output():
    assert config_io.normalise_output({'name': 'result'}) == {
        'name': 'result', 'type': 'String', 'error_output': False}


@pytest.mark.parametrize('normalise', [config_io.normalise_input,
                                       config_io.normalise_output])
@pytest.mark.parametrize('name, expected', [
    ('foo', 'foo'),
    (5, '5'),
    (None, ''),
    ('', ''),
])
def test_name_is_stringified(normalise, name, expected):
    assert normalise({'name': name})['name'] == expected


@pytest.mark.parametrize('normalise', [config_io.normalise_input,
                                       config_io.normalise_output])
@pytest.mark.parametrize('item', [
    {},
    {'type': 'String'},
    {'name': {'a': 1}},
    {'name': ['a']},
    {'name': 'x', 'description': {'a': 1}},
    {'name': 'x', 'type': 'Float'},
    {'name': 'x', 'type': 'string'},
    {'name': 'x', 'unknown': 1},
    'not-an-object',
    ['name', 'x'],
    None,
])
def test_invalid_items_are_rejected(normalise, item):
    with pytest.raises(exception.InvalidParameterValue) as info:
        normalise(item)
    assert info.value.code == 400
    assert info.value.message


def test_missing_name_is_named_in_the_error():
    with pytest.raises(exception.InvalidParameterValue) as info:
        config_io.normalise_input({'type': 'Number'})
    assert '"name"' in info.value.message


def test_unknown_keys_are_named_in_the_error():
    with pytest.raises(exception.InvalidParameterValue) as info:
        config_io.normalise_input({'name': 'x', 'zeta': 1, 'alpha': 2})
    assert 'alpha, zeta' in info.value.message


@pytest.mark.parametrize('normalise', [config_io.normalise_input,
                                       config_io.normalise_output])
@pytest.mark.parametrize('description, expected', [
    ('text', 'text'),
    (None, ''),
    (3, '3'),
])
def test_description(normalise, description, expected):
    item = normalise({'name': 'x', 'description': description})
    assert item['description'] == expected


@pytest.mark.parametrize('normalise', [config_io.normalise_input,
                                       config_io.normalise_output])
def test_absent_description_stays_absent(normalise):
    assert 'description' not in normalise({'name': 'x'})


@pytest.mark.parametrize('normalise', [config_io.normalise_input,
                                       config_io.normalise_output])
@pytest.mark.parametrize('type_', config_io.TYPES)
def test_every_type_is_accepted(normalise, type_):
    assert normalise({'name': 'x', 'type': type_})['type'] == type_


@pytest.mark.parametrize('normalise', [config_io.normalise_input,
                                       config_io.normalise_output])
def test_null_type_means_string(normalise):
    assert normalise({'name': 'x', 'type': None})['type'] == 'String'


# -- default coercion, when both type and default are given ------------------

@pytest.mark.parametrize('type_, default, expected', [
    ('Number', '3', 3),
    ('Number', '1.5', 1.5),
    ('Number', 7, 7),
    ('Number', 2.5, 2.5),
    ('Number', None, 0),
    ('Boolean', 'true', True),
    ('Boolean', 'True', True),
    ('Boolean', 'false', False),
    ('Boolean', True, True),
    ('Boolean', False, False),
    ('Boolean', None, False),
    ('CommaDelimitedList', 'a,b', ['a', 'b']),
    ('CommaDelimitedList', 'a', ['a']),
    ('CommaDelimitedList', ['a', 'b'], ['a', 'b']),
    ('CommaDelimitedList', None, []),
    ('Json', {'a': [1, 2]}, {'a': [1, 2]}),
    ('Json', [1, 2], '[1, 2]'),
    ('Json', 'not json', 'not json'),
    ('Json', '{"a": 1}', '{"a": 1}'),
    ('Json', None, {}),
    ('String', 'text', 'text'),
    ('String', 5, '5'),
    ('String', None, ''),
    ('String', '', ''),
])
def test_default_is_coerced_to_the_type(type_, default, expected):
    item = config_io.normalise_input(
        {'name': 'x', 'type': type_, 'default': default})
    assert item['default'] == expected
    assert type(item['default']) is type(expected)


@pytest.mark.parametrize('type_', ['Number', 'Boolean',
                                   'CommaDelimitedList', 'Json'])
def test_legacy_empty_string_default_is_kept_for_any_type(type_):
    item = config_io.normalise_input(
        {'name': 'x', 'type': type_, 'default': ''})
    assert item['default'] == ''


@pytest.mark.parametrize('type_, default', [
    ('Number', 'abc'),
    ('Number', [1]),
    ('Number', {'a': 1}),
    ('Boolean', 'maybe'),
    ('Boolean', 'yes'),
    ('Boolean', 1),
    ('Json', 5),
    ('Json', True),
    ('String', {'a': 1}),
    ('String', [1, 2]),
    ('CommaDelimitedList', 5),
    ('CommaDelimitedList', {'a': 1}),
])
def test_default_that_does_not_fit_the_type_is_rejected(type_, default):
    with pytest.raises(exception.InvalidParameterValue) as info:
        config_io.normalise_input(
            {'name': 'x', 'type': type_, 'default': default})
    assert type_ in info.value.message


@pytest.mark.parametrize('default', ['3', 3, [1, 2], {'a': 1}, '', False])
def test_default_without_type_is_stored_as_given(default):
    item = config_io.normalise_input({'name': 'x', 'default': default})
    assert item['default'] == default
    assert type(item['default']) is type(default)
    assert item['type'] == 'String'


def test_null_default_without_type_is_dropped():
    assert 'default' not in config_io.normalise_input(
        {'name': 'x', 'default': None})


def test_absent_default_stays_absent():
    assert 'default' not in config_io.normalise_input(
        {'name': 'x', 'type': 'Number'})


# -- replace_on_change / error_output / value --------------------------------

@pytest.mark.parametrize('value', [True, 'true', 'TRUE'])
def test_replace_on_change_is_stored_when_true(value):
    item = config_io.normalise_input(
        {'name': 'x', 'replace_on_change': value})
    assert item['replace_on_change'] is True


@pytest.mark.parametrize('value', [False, 'false', 'False', None])
def test_replace_on_change_is_not_stored_when_false(value):
    item = config_io.normalise_input(
        {'name': 'x', 'replace_on_change': value})
    assert 'replace_on_change' not in item


@pytest.mark.parametrize('value', ['yes', 'no', '1', 1, 0, 'maybe', [True]])
def test_replace_on_change_must_be_a_boolean(value):
    with pytest.raises(exception.InvalidParameterValue) as info:
        config_io.normalise_input({'name': 'x', 'replace_on_change': value})
    assert 'replace_on_change' in info.value.message


@pytest.mark.parametrize('value, expected', [
    (True, True), ('true', True), ('True', True),
    (False, False), ('false', False), (None, False),
])
def test_error_output_is_always_stored(value, expected):
    item = config_io.normalise_output({'name': 'x', 'error_output': value})
    assert item['error_output'] is expected


@pytest.mark.parametrize('value', ['yes', 'no', 1, 0, 'sometimes'])
def test_error_output_must_be_a_boolean(value):
    with pytest.raises(exception.InvalidParameterValue) as info:
        config_io.normalise_output({'name': 'x', 'error_output': value})
    assert 'error_output' in info.value.message


@pytest.mark.parametrize('value', ['abc', None, {'deep': [1]}, 0, ''])
def test_value_is_carried_verbatim_and_never_coerced(value):
    item = config_io.normalise_input(
        {'name': 'x', 'type': 'Number', 'value': value})
    assert 'value' in item
    assert item['value'] == value
    assert type(item['value']) is type(value)


@pytest.mark.parametrize('key', ['error_output', 'foo'])
def test_input_rejects_output_only_and_unknown_keys(key):
    with pytest.raises(exception.InvalidParameterValue) as info:
        config_io.normalise_input({'name': 'x', key: True})
    assert key in info.value.message


@pytest.mark.parametrize('key', ['default', 'replace_on_change', 'value',
                                 'foo'])
def test_output_rejects_input_only_and_unknown_keys(key):
    with pytest.raises(exception.InvalidParameterValue) as info:
        config_io.normalise_output({'name': 'x', key: 'true'})
    assert key in info.value.message


def test_full_input_round_trip():
    item = {'name': 'port', 'description': 'The port', 'type': 'Number',
            'default': '8080', 'replace_on_change': 'true', 'value': 80}
    assert config_io.normalise_input(item) == {
        'name': 'port', 'description': 'The port', 'type': 'Number',
        'default': 8080, 'replace_on_change': True, 'value': 80}


def test_normalising_does_not_modify_the_argument():
    item = {'name': 5, 'type': 'Number', 'default': '3',
            'replace_on_change': 'false'}
    copy = dict(item)
    config_io.normalise_input(item)
    assert item == copy


def test_normal_form_is_a_fixed_point():
    inputs = [{'name': 'a', 'type': 'Json', 'default': [1]},
              {'name': 'b', 'description': None, 'replace_on_change': True},
              {'name': 'c', 'type': 'Number', 'default': None, 'value': 1}]
    once = config_io.normalise_inputs(inputs)
    assert config_io.normalise_inputs(once) == once
    outputs = [{'name': 'r', 'error_output': 'true'}, {'name': 's'}]
    once = config_io.normalise_outputs(outputs)
    assert config_io.normalise_outputs(once) == once


# -- the lists ---------------------------------------------------------------

@pytest.mark.parametrize('normalise', [config_io.normalise_inputs,
                                       config_io.normalise_outputs])
def test_missing_list_is_empty(normalise):
    assert normalise(None) == []
    assert normalise([]) == []


@pytest.mark.parametrize('normalise', [config_io.normalise_inputs,
                                       config_io.normalise_outputs])
@pytest.mark.parametrize('items', [{'name': 'x'}, 'x', 5, [{'name': 'x'}, 3]])
def test_list_must_be_a_list_of_objects(normalise, items):
    with pytest.raises(exception.InvalidParameterValue):
        normalise(items)


def test_lists_keep_their_order():
    names = ['z', 'a', 'm']
    inputs = config_io.normalise_inputs([{'name': n} for n in names])
    outputs = config_io.normalise_outputs([{'name': n} for n in names])
    assert [i['name'] for i in inputs] == names
    assert [o['name'] for o in outputs] == names


@pytest.mark.parametrize('value, expected', [
    (True, True), (False, False), ('true', True), ('FALSE', False)])
def test_to_bool_accepts_booleans_and_boolean_strings(value, expected):
    assert config_io.to_bool(value, 'flag') is expected


@pytest.mark.parametrize('value', ['yes', 'on', '1', 't', 1, None, ''])
def test_to_bool_rejects_everything_else(value):
    with pytest.raises(exception.InvalidParameterValue) as info:
        config_io.to_bool(value, 'flag')
    assert '"flag"' in info.value.message
