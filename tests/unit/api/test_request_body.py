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

"""Heat's request body rules (doc/source/reference/rest-rules.rst)."""

import io
import json

import pytest
import webob

from swconfig.api import request_body
from swconfig.api.schemas.v1 import software_configs as config_schemas
from swconfig.api.schemas.v1 import software_deployments as deploy_schemas
from swconfig.common import exception

LIMIT = 1024  # the smallest max_json_body_size allowed


def _request(raw, content_type='application/json', method='POST'):
    if isinstance(raw, str):
        raw = raw.encode('utf-8')
    kwargs = {'method': method, 'body': raw}
    if content_type is not None:
        kwargs['content_type'] = content_type
    return webob.Request.blank('/v1/p/software_configs', **kwargs)


@pytest.fixture
def small_limit(set_conf):
    set_conf('max_json_body_size', LIMIT, group='api')
    return LIMIT


@pytest.mark.parametrize('content_type', [
    'application/json',
    'application/json; charset=UTF-8',
    'text/plain',
    'text/plain; charset=utf-8',
    None,
])
def test_json_and_heats_aliases_are_parsed(content_type):
    request = _request('{"name": "x", "n": [1, 2]}', content_type)
    assert request_body.read_json(request) == {'name': 'x', 'n': [1, 2]}


@pytest.mark.parametrize('content_type', [
    'application/xml',
    'application/octet-stream',
    'application/x-www-form-urlencoded',
    'text/html',
])
def test_other_content_types_are_415_saying_so(content_type):
    with pytest.raises(exception.UnsupportedMediaType) as info:
        request_body.read_json(_request('{"name": "x"}', content_type))
    error = info.value
    assert error.code == 415
    assert error.type_name == 'HTTPUnsupportedMediaType'
    assert error.message == (
        f'The request body has Content-Type {content_type}; a JSON body '
        f'needs Content-Type: application/json.')


@pytest.mark.parametrize('raw', ['', 'name=x', ' {"name": "x"}', '[1,'])
def test_body_must_start_with_a_brace(raw):
    with pytest.raises(exception.MalformedRequestBody):
        request_body.read_json(_request(raw))


@pytest.mark.parametrize('raw, kind', [
    ('[{"name": "x"}]', 'a JSON array'), ('"text"', 'a JSON string'),
    ('42', 'a JSON number'), ('true', 'a JSON boolean'),
    ('null', 'JSON null')])
def test_json_that_is_not_an_object_says_an_object_is_expected(raw, kind):
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.read_json(_request(raw))
    assert info.value.message == (
        f'The request body is {kind}; a JSON object is expected.')
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.load(_request(raw), deploy_schemas.TRIGGER)
    assert info.value.message == (
        f'The request body is {kind}; a JSON object is expected, with the '
        f'fields action, input_values, signal_transport, timeout, '
        f'allow_concurrent (action required).')


def test_an_array_too_deep_to_parse_is_the_depth_limit():
    with pytest.raises(exception.RequestLimitExceeded) as info:
        request_body.read_json(_request('[' * 100000 + ']' * 100000))
    assert info.value.message == (
        'Request limit exceeded: JSON body is nested deeper than 32 levels.')


@pytest.mark.parametrize('raw', ['{', '{"name": }', '{"a": 1} trailing',
                                 "{'single': 'quotes'}"])
def test_invalid_json_is_400_with_the_parsers_message(raw):
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.read_json(_request(raw))
    assert info.value.code == 400
    assert info.value.message.startswith(
        'The request body is not valid JSON: ')
    assert len(info.value.message) > len(
        'The request body is not valid JSON: ')


def test_invalid_utf8_is_400_in_a_plain_sentence():
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.read_json(_request(b'{"name": "\xff\xfe"}'))
    assert info.value.message == (
        'The request body is not valid JSON: JSON text must be UTF-8, and '
        'byte 11 is not part of a UTF-8 character.')


def test_an_object_too_deep_to_parse_is_the_depth_limit():
    """Not the parser's "maximum recursion depth exceeded while
    decoding a JSON array from a unicode string"."""
    with pytest.raises(exception.RequestLimitExceeded) as info:
        request_body.read_json(_request('{"a": ' + '[' * 100000 + ']' * 100000
                                + '}'))
    assert info.value.message == (
        'Request limit exceeded: JSON body is nested deeper than 32 levels.')


def _sized(size):
    filler = 'x' * (size - len('{"a": ""}'))
    raw = '{"a": "%s"}' % filler
    assert len(raw) == size
    return raw


def test_body_of_exactly_the_limit_is_accepted(small_limit):
    document = request_body.read_json(_request(_sized(small_limit)))
    assert len(document['a']) == small_limit - len('{"a": ""}')


@pytest.mark.parametrize('size', [LIMIT + 1, 5 * LIMIT])
def test_larger_body_is_request_limit_exceeded(small_limit, size):
    with pytest.raises(exception.RequestLimitExceeded) as info:
        request_body.read_json(_request(_sized(size)))
    error = info.value
    assert error.code == 400
    assert error.type_name == 'RequestLimitExceeded'
    # Heat raises RequestLimitExceeded(message=...) whose msg_fmt is
    # 'Request limit exceeded: %(message)s'.
    assert error.message == (
        f'Request limit exceeded: JSON body size ({size} bytes) exceeds '
        f'maximum allowed size ({small_limit} bytes).')


def test_oversized_body_is_refused_even_when_not_json(small_limit):
    # The size check comes first: a huge XML body is a limit error, not a
    # "no body" error.
    with pytest.raises(exception.RequestLimitExceeded):
        request_body.read_json(_request('<' * (small_limit + 10),
                                'application/xml'))


def test_default_limit_is_heats():
    from swconfig.conf import CONF
    assert CONF.api.max_json_body_size == 1048576


# -- schema validation -------------------------------------------------------

@pytest.mark.parametrize('schema, document, field', [
    (config_schemas.CREATE, {'name': 5}, 'name'),
    (config_schemas.CREATE, {'group': ['x']}, 'group'),
    (config_schemas.CREATE, {'name': 'x' * 256}, 'name'),
    (config_schemas.CREATE, {'inputs': 'x'}, 'inputs'),
    (config_schemas.CREATE, {'inputs': [{'name': 'a', 'type': 'Float'}]},
     'inputs[0].type'),
    (config_schemas.CREATE, {'outputs': [{'name': 'r',
                                          'error_output': 1}]},
     'outputs[0].error_output'),
    (deploy_schemas.CREATE, {'config_id': 'c', 'server_id': 's',
                             'input_values': []}, 'input_values'),
    (deploy_schemas.CREATE, {'config_id': 'c', 'server_id': ''},
     'server_id'),
    (deploy_schemas.CREATE, {'config_id': 'c', 'server_id': 'a/b'},
     'server_id'),
    (deploy_schemas.CREATE, {'config_id': 'c', 'server_id': 's\x1f'},
     'server_id'),
    (deploy_schemas.CREATE, {'config_id': 'c', 'server_id': 's',
                             'action': 'NOT AN IDENTIFIER'}, 'action'),
    (deploy_schemas.UPDATE, {'status': 5}, 'status'),
    (deploy_schemas.UPDATE, {'status': 'DONE'}, 'status'),
    (deploy_schemas.UPDATE, {'action': 'CREATE\n'}, 'action'),
    (deploy_schemas.UPDATE, {'output_values': 'x'}, 'output_values'),
])
def test_schema_errors_name_the_field(schema, document, field):
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.validate(schema, document)
    assert info.value.code == 400
    assert info.value.message.startswith(f'Invalid value for {field}: ')


ACTION_WORDS = ('an identifier such as CREATE, UPDATE or BACKUP (letters, '
                'digits and "_", not starting with a digit).')


@pytest.mark.parametrize('schema', [deploy_schemas.TRIGGER,
                                    deploy_schemas.ACTION_RUN,
                                    deploy_schemas.UPDATE])
@pytest.mark.parametrize('action, shown', [
    ('', 'the empty string'), ('bad action', "'bad action'"),
    ('1ST', "'1ST'")])
def test_a_bad_action_is_one_plain_sentence(schema, action, shown):
    """Not the field's own description ("Required. The action to run,
    ...") glued after "is not"."""
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.validate(schema, {'action': action})
    assert info.value.message == (
        f'Invalid value for action: {shown}. It must be {ACTION_WORDS}')


def test_a_missing_or_null_trigger_action_is_named():
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.validate(deploy_schemas.TRIGGER, {})
    assert info.value.message == 'Missing required field action.'
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.validate(deploy_schemas.TRIGGER, {'action': None})
    assert info.value.message.startswith('Invalid value for action: ')


@pytest.mark.parametrize('schema, document, message', [
    (deploy_schemas.CREATE, {'config_id': 'c'},
     'Missing required field server_id.'),
    (deploy_schemas.CREATE, {'server_id': 's'},
     'Missing required field config_id.'),
    (config_schemas.CREATE, {'inputs': [{'name': 'a'}, {'type': 'Number'}]},
     'Missing required field inputs[1].name.'),
])
def test_missing_required_property_is_named(schema, document, message):
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.validate(schema, document)
    assert info.value.message == message


@pytest.mark.parametrize('schema, document, start', [
    (deploy_schemas.CREATE,
     {'config_id': 'c', 'server_id': 's', 'signal_tranport': 'HEAT_SIGNAL'},
     'Unknown field signal_tranport (did you mean signal_transport?); the '
     'body accepts only: config_id, server_id, '),
    (deploy_schemas.UPDATE, {'server_id': 's'},
     'Unknown field server_id; the body accepts only: config_id, '),
    (config_schemas.CREATE, {'inputs': [{'name': 'a', 'bogus': 1}]},
     'Unknown field inputs[0].bogus; inputs[0] accepts only: name, '),
    (config_schemas.CREATE, {'outputs': [{'name': 'r', 'default': 1}]},
     'Unknown field outputs[0].default; outputs[0] accepts only: name, '),
])
def test_unknown_fields_are_named(schema, document, start):
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.validate(schema, document)
    assert info.value.message.startswith(start), info.value.message


def test_first_error_by_field_path_is_reported():
    document = {'outputs': [{'name': 'r', 'bogus': 1}], 'group': 5}
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.validate(config_schemas.CREATE, document)
    assert info.value.message.startswith('Invalid value for group: ')


@pytest.mark.parametrize('schema, document', [
    (config_schemas.CREATE, {}),
    (config_schemas.CREATE, {'config': {}}),
    (config_schemas.CREATE, {'name': None, 'inputs': None,
                             'outputs': None, 'options': None}),
    (deploy_schemas.CREATE, {'server_id': 's', 'config_id': 'c'}),
    (deploy_schemas.CREATE, {'server_id': 'ü ✓ s-1.2:3', 'config_id': 'c',
                             'action': 'BACKUP_2', 'status': 'IN_PROGRESS'}),
    (deploy_schemas.UPDATE, {}),
    (deploy_schemas.UPDATE, {'action': None, 'status': None}),
])
def test_valid_documents_pass(schema, document):
    assert request_body.validate(schema, document) is None


def test_load_reads_and_validates():
    request = _request(json.dumps({'name': 'n', 'inputs': [{'name': 'a'}]}))
    assert request_body.load(request, config_schemas.CREATE) == {
        'name': 'n', 'inputs': [{'name': 'a'}]}
    with pytest.raises(exception.InvalidParameterValue):
        request_body.load(_request('{"name": 5}'), config_schemas.CREATE)
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.load(_request('[]'), config_schemas.CREATE)
    assert info.value.message.startswith(
        'The request body is a JSON array; a JSON object is expected, with '
        'the fields name, group, config, ')


@pytest.mark.parametrize('document', [
    {'name': 'a\x00b'},
    {'inputs': [{'name': 'x', 'value': ['ok', 'n\x00l']}]},
    {'options': {'k\x00ey': 1}},
])
def test_nul_characters_are_refused(document):
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.load(_request(json.dumps(document)),
                          config_schemas.CREATE)
    assert 'NUL' in info.value.message


def test_escaped_backslash_u0000_text_is_not_a_nul():
    document = {'name': 'C:\\u0000'}
    raw = json.dumps(document)
    assert '\\\\u0000' in raw
    assert request_body.load(_request(raw), config_schemas.CREATE) == document


# -- text a database cannot store, numbers JSON does not have ---------------

@pytest.mark.parametrize('raw, field', [
    ('{"name": "\\ud800"}', 'name'),
    ('{"config": ["ok", "x\\udfff"]}', 'config[1]'),
    ('{"options": {"a": {"b": "\\udc00y"}}}', 'options.a.b'),
    (b'{"name": "\xed\xa0\x80"}', 'name'),
])
def test_lone_surrogates_are_refused(raw, field):
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.read_json(_request(raw))
    assert info.value.message.startswith(f'Invalid value for {field}: ')
    assert 'lone UTF-16 surrogate' in info.value.message
    json.dumps(info.value.message).encode('utf-8')  # the reply is storable


def test_lone_surrogate_in_a_key_is_named_escaped():
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.read_json(_request('{"options": {"k\\ud800": 1}}'))
    assert info.value.message.startswith(
        'Invalid field name options.k\\ud800: ')
    info.value.message.encode('utf-8')


def test_surrogate_pairs_are_text():
    document = request_body.read_json(_request('{"name": "\\ud83d\\ude00"}'))
    assert document == {'name': '\U0001f600'}


@pytest.mark.parametrize('raw, field', [
    ('{"config": NaN}', 'config'),
    ('{"config": [1, Infinity]}', 'config[1]'),
    ('{"options": {"x": -Infinity}}', 'options.x'),
    ('{"options": {"x": 1e999}}', 'options.x'),
])
def test_nan_and_infinity_are_refused(raw, field):
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.read_json(_request(raw))
    assert info.value.message.startswith(f'Invalid value for {field}: ')
    assert 'is not a JSON number' in info.value.message


def test_finite_numbers_are_kept():
    assert request_body.read_json(
        _request('{"a": 1.5e300, "b": -0.0, "c": 7}')) == {
            'a': 1.5e300, 'b': -0.0, 'c': 7}


def test_nul_is_refused_only_in_what_is_stored():
    raw = '{"result": "a\\u0000b"}'
    assert request_body.read_json(_request(raw)) == {'result': 'a\x00b'}
    with pytest.raises(exception.InvalidParameterValue) as info:
        request_body.read_json(_request(raw), allow_nul=False)
    assert info.value.message.startswith('Invalid value for result: NUL')


# -- a list body: several things to create at once --------------------------

def _load_list(items, max_items=10):
    raw = items if isinstance(items, str) else json.dumps(items)
    return request_body.load_list(_request(raw), deploy_schemas.CREATE_LIST,
                          deploy_schemas.CREATE, max_items)


def test_a_list_body_is_told_from_an_object_body():
    assert request_body.is_list(_request('[{"a": 1}]'))
    assert not request_body.is_list(_request('{"a": [1]}'))
    good = {'config_id': 'c', 'server_id': 's'}
    assert _load_list([good, good]) == [good, good]


def test_each_bad_item_is_named_with_its_own_message():
    good = {'config_id': 'c', 'server_id': 's'}
    items = [good, {'server_id': 's'}, good, 7,
             dict(good, signal_tranport='HEAT_SIGNAL'), good]
    with pytest.raises(exception.BatchInvalid) as info:
        _load_list(items)
    assert info.value.code == 400
    assert info.value.message == (
        '3 of the 6 items cannot be created, so none was: items[1]: '
        'Missing required field config_id; items[3]: a JSON number; a '
        'JSON object is expected; items[4]: Unknown field '
        'signal_tranport (did you mean signal_transport?); the body '
        'accepts only: ' + ', '.join(deploy_schemas.CREATE['properties'])
        + '.')


def test_an_empty_or_too_long_list_is_refused():
    good = {'config_id': 'c', 'server_id': 's'}
    with pytest.raises(exception.InvalidParameterValue) as info:
        _load_list([])
    assert 'empty list' in info.value.message
    assert len(_load_list([good] * 3, max_items=3)) == 3
    with pytest.raises(exception.RequestLimitExceeded) as info:
        _load_list([good] * 4, max_items=3)
    assert info.value.message == (
        'Request limit exceeded: The list holds 4 items; at most 3 may be '
        'created in one request.')


def test_what_cannot_be_stored_is_named_under_items():
    with pytest.raises(exception.InvalidParameterValue) as info:
        _load_list('[{"config_id": "c", "server_id": "s"}, '
                   '{"config_id": "c", "server_id": "a\\u0000b"}]')
    assert info.value.message.startswith(
        'Invalid value for items[1].server_id: NUL characters')


@pytest.mark.parametrize('size, drained', [
    (LIMIT + 1, True), (request_body.DRAIN_FACTOR * LIMIT, True),
    (request_body.DRAIN_FACTOR * LIMIT + 1, False)])
def test_a_refused_body_is_read_up_to_twice_the_limit(small_limit, size,
                                                      drained):
    """Read and dropped, the client's keep-alive connection stays usable;
    a larger one is left unread (the server closes the connection)."""
    stream = io.BytesIO(b'{' + b' ' * (size - 2) + b'}')
    request = webob.Request.blank(
        '/v1/p/software_configs', method='POST',
        content_type='application/json',
        environ={'wsgi.input': stream, 'CONTENT_LENGTH': str(size)})
    with pytest.raises(exception.RequestLimitExceeded):
        request_body.read_raw(request)
    assert stream.tell() == (size if drained else 0)


def test_a_client_gone_while_its_refused_body_is_read_still_gets_the_400(
        small_limit):
    class Gone(io.BytesIO):
        def read(self, size=-1):
            raise OSError('connection reset by peer')

    request = webob.Request.blank(
        '/v1/p/software_configs', method='POST',
        content_type='application/json',
        environ={'wsgi.input': Gone(), 'CONTENT_LENGTH': str(LIMIT + 1)})
    with pytest.raises(exception.RequestLimitExceeded):
        request_body.read_raw(request)
