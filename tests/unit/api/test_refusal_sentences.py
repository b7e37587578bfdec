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

"""Every field of every request schema, given a value each of its
constraints refuses, gets a 400 whose message names the field and says
in a sentence of its own what the field must be: never a description
glued after "is not" ("'150%' is not At most this many targets ..")
nor jsonschema's own wording."""

import re

import pytest

from swconfig.api import request_body
from swconfig.api import routes
from swconfig.api.openapi import document
from swconfig.common import exception

REQUEST_SCHEMAS = document.request_schemas(routes.DOCUMENTED_ROUTES)
#: One value of each JSON type, to give a field a type it refuses.
OF_TYPE = {'string': 'x', 'integer': 7, 'number': 1.5, 'object': {'k': 'v'},
           'array': ['a'], 'boolean': True, 'null': None}
#: Strings tried against a pattern, until one does not match.
NOT_MATCHING = ('', ' ', 'a b', '\t', '1st', '0', '0%', '150%', '-1', '!')
SENTENCE = re.compile(r"Invalid (?:value for|key in) [^:]+: [^\n]+\. It must "
                      r"be [^\n]+[^.]\.")
REPEATED = re.compile(r"Invalid value for [^:]+: .+ is given more than "
                      r"once\.")
#: jsonschema's own words, which must never reach the user.
RAW = ('is not of type', 'does not match', 'is not valid under',
       'is not one of', 'is too long', 'is too short', 'is less than',
       'is greater than', 'has non-unique', 'should be non-empty',
       'does not have enough properties', 'has too many properties')


def _resolve(schema: dict) -> dict:
    ref = schema.get('$ref')
    if ref is None:
        return schema
    return REQUEST_SCHEMAS[ref.rsplit('/', 1)[1]]


def _fields(schema: dict, path: str):
    """(path, field schema) of every described field, nested ones too."""
    schema = _resolve(schema)
    for name, field in (schema.get('properties') or {}).items():
        field = _resolve(field)
        yield f'{path}.{name}'.lstrip('.'), field
        yield from _fields(field, f'{path}.{name}')
        for nested, mark in (('items', '[]'), ('additionalProperties', '*'),
                             ('propertyNames', '<key>')):
            sub = field.get(nested)
            if isinstance(sub, dict) and 'description' in _resolve(sub):
                yield f'{path}.{name}{mark}'.lstrip('.'), _resolve(sub)
                yield from _fields(sub, f'{path}.{name}{mark}')


def _constraints(field: dict) -> dict:
    merged = dict(field)
    for part in field.get('allOf', []):
        merged.update(_resolve(part))
    return merged


def _refused_values(field: dict):
    """Values the field's constraints refuse, one per constraint."""
    rules = _constraints(field)
    types = rules.get('type')
    if types is not None:
        allowed = {types} if isinstance(types, str) else set(types)
        if 'number' in allowed:
            allowed.add('integer')
        yield next(value for kind, value in OF_TYPE.items()
                   if kind not in allowed)
    if 'pattern' in rules:
        yield next(text for text in NOT_MATCHING
                   if not re.fullmatch(rules['pattern'], text))
    if 'enum' in rules:
        yield 'not-a-choice'
    for keyword, value in (('minimum', rules.get('minimum', 0) - 1),
                           ('maximum', rules.get('maximum', 0) + 1)):
        if keyword in rules:
            yield value
    if rules.get('minLength', 0) >= 1:
        yield ''
    if 'maxLength' in rules:
        yield 'k' * (rules['maxLength'] + 1)
    if rules.get('minProperties', 0) >= 1:
        yield {}
    if 'maxProperties' in rules:
        yield {f'k{n}': 'v' for n in range(rules['maxProperties'] + 1)}
    if rules.get('minItems', 0) >= 1:
        yield []
    if rules.get('uniqueItems'):
        yield ['srv-a', 'srv-a']


CASES = [(f'{name}: {path}', field, value)
         for name, schema in REQUEST_SCHEMAS.items()
         for path, field in _fields(schema, '')
         if '<key>' not in path
         for value in _refused_values(field)]


def test_the_walk_covers_the_fields_of_the_issue():
    """Not vacuous: the rollout limits and nested fields are walked."""
    walked = {case[0] for case in CASES}
    for field in ('RolloutCreate: max_concurrency', 'RolloutCreate: '
                  'max_errors', 'SoftwareConfigCreate: inputs[].type',
                  'ServerUpdate: labels*', 'SoftwareDeploymentTrigger: '
                  'action'):
        assert field in walked, sorted(walked)
    assert len(CASES) > 100


@pytest.mark.parametrize('where, field, value', CASES,
                         ids=[f'{case[0]}={case[2]!r:.20}' for case in CASES])
def test_a_refused_value_is_explained_in_a_sentence(where, field, value):
    name = 'field'
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.validate({'type': 'object',
                               'properties': {name: field}}, {name: value})
    message = info.value.message
    assert SENTENCE.fullmatch(message) or REPEATED.fullmatch(message), \
        message
    assert f' {name}' in message, message
    assert '..' not in message and not re.search(r' is not [A-Z]', message)
    assert not any(words in message for words in RAW), message


@pytest.mark.parametrize('value, shown', [
    ('150%', "'150%'"), ('abc', "'abc'"), (-1, '-1'), (0, '0'),
    ('0%', "'0%'")])
def test_max_concurrency_says_what_it_must_be(value, shown):
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.validate(REQUEST_SCHEMAS['RolloutCreate'], {
            'servers': ['srv-a'], 'config_id': 'c',
            'max_concurrency': value})
    assert info.value.message == (
        f'Invalid value for max_concurrency: {shown}. It must be a whole '
        f'number from 1 to 9999999 or a percentage from 1% to 100%.')


def test_a_bad_label_key_is_named_as_a_key():
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.validate(REQUEST_SCHEMAS['ServerUpdate'],
                              {'labels': {'bad key': 'v'}})
    assert info.value.message == (
        "Invalid key in labels: 'bad key'. It must be a label key: 1 to 63 "
        'ASCII letters, digits, "-", "_", "." or "/".')


def test_every_pattern_says_what_it_must_be():
    """A pattern cannot be put in words by the code: its schema does."""
    patterned = [(f'{name}: {path}', _constraints(field))
                 for name, schema in REQUEST_SCHEMAS.items()
                 for path, field in _fields(schema, '')
                 if 'pattern' in _constraints(field)]
    assert len(patterned) > 5
    assert [where for where, rules in patterned
            if request_body.MUST_BE not in rules] == []


def test_a_path_parameter_is_named_not_called_body():
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.validate(REQUEST_SCHEMAS['ServerRegister']['properties'][
            'server_id'], 'a/b', 'server_id')
    assert info.value.message == (
        "Invalid value for server_id: 'a/b'. It must be a server id: 1 to "
        '255 characters, without "/" or control characters.')


def _rules(schema: dict):
    """Every rule among a body's fields (an ``allOf`` entry with an
    ``x-rule``), nested bodies too."""
    schema = _resolve(schema)
    for entry in schema.get('allOf', ()):
        if request_body.RULE in entry:
            yield entry
    for field in (schema.get('properties') or {}).values():
        yield from _rules(field)


def test_every_rule_among_fields_is_a_sentence_of_its_own():
    rules = [rule for schema in REQUEST_SCHEMAS.values()
             for rule in _rules(schema)]
    assert len(rules) >= 3  # the rollout's target, work and skip_missing
    for rule in rules:
        sentence = rule[request_body.RULE]
        assert not sentence.endswith('.'), sentence  # the message adds it
        # It names every field the rule is about.
        named = {key for branch in rule.get('oneOf', rule.get('anyOf', ()))
                 for key in branch.get('required', ())}
        assert named and all(key in sentence for key in named), (
            named, sentence)


@pytest.mark.parametrize('body, message', [
    ({'config_id': 'c'}, 'Give exactly one target: server_group, servers '
                         'or selector.'),
    ({'servers': ['a'], 'selector': {'k': 'v'}, 'config_id': 'c'},
     'Give exactly one target: server_group, servers or selector (the '
     'request gives servers and selector).'),
    ({'servers': ['a'], 'config_id': 'c', 'action': 'X'},
     'Give either config_id (with input_values, signal_transport, name, '
     'timeout) or deployment_name with action, not both and not one of '
     'the pair alone (the request gives config_id and action).'),
    ({'servers': ['a'], 'deployment_name': 'd'},
     'Give either config_id (with input_values, signal_transport, name, '
     'timeout) or deployment_name with action, not both and not one of '
     'the pair alone.'),
    ({'servers': ['a'], 'config_id': 'c', 'skip_missing': True},
     'skip_missing applies only with deployment_name.'),
    ({'server_group': 'g', 'servers': ['a'], 'selector': {'k': 'v'},
      'config_id': 'c'},
     'Give exactly one target: server_group, servers or selector (the '
     'request gives server_group, servers and selector).'),
])
def test_a_rollout_breaking_a_rule_gets_its_sentence(body, message):
    with pytest.raises(exception.InvalidParameterValue) as raised:
        request_body.validate(REQUEST_SCHEMAS['RolloutCreate'], body)
    assert raised.value.kwargs['reason'] == message


@pytest.mark.parametrize('resource, message', [
    ({'type': 'OS::Heat::SoftwareComponent'},
     'Missing required field template.resources.r.properties.'),
    ({'type': 'OS::Heat::SoftwareComponent', 'properties': {}},
     'Missing required field template.resources.r.properties.configs.'),
    ({'type': 'OS::Heat::SoftwareConfig', 'properties': {'configs': []}},
     'Unknown field template.resources.r.properties.configs (did you '
     'mean config?); '
     'template.resources.r.properties accepts only: group, config, '
     'inputs, outputs, options.'),
    ({'type': 'OS::Nova::Server'},
     'Invalid value for template.resources.r.type: \'OS::Nova::Server\'. '
     'It must be one of "OS::Heat::SoftwareConfig", '
     '"OS::Heat::StructuredConfig", "OS::Heat::SoftwareComponent".'),
])
def test_a_resource_is_checked_by_its_type(resource, message):
    """The template's resources are one of two shapes, chosen by their
    type: the refusal is that shape's, not "none of the forms"."""
    template = {'heat_template_version': '2013-05-23',
                'resources': {'r': resource}}
    with pytest.raises(exception.InvalidParameterValue) as raised:
        request_body.validate(REQUEST_SCHEMAS['TemplateValidate'],
                              {'template': template})
    assert raised.value.kwargs['reason'] == message
