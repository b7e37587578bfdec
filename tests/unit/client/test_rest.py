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

"""Heat's error body as one line for the user."""

import json

import pytest
import requests

from swconfig.client import rest as client


def _reply(status: int, body: object,
           reason: str = 'Reason') -> requests.Response:
    reply = requests.Response()
    reply.status_code = status
    reply.reason = reason
    reply._content = (body if isinstance(body, bytes)
                      else json.dumps(body).encode())
    return reply


@pytest.mark.parametrize('reply, expected, error_type', [
    (_reply(404, {'code': 404, 'title': 'Not Found',
                  'explanation': 'The resource could not be found.',
                  'error': {'type': 'NotFound', 'traceback': None,
                            'message': 'Deployment with id x not found'}}),
     'Not Found (HTTP 404): Deployment with id x not found', 'NotFound'),
    # Heat leaves "message" out for some errors: the explanation then.
    (_reply(400, {'code': 400, 'title': 'Bad Request',
                  'explanation': 'The server could not comply.',
                  'error': {'type': 'ValueError', 'traceback': None}}),
     'Bad Request (HTTP 400): The server could not comply.', 'ValueError'),
    (_reply(502, b'<html>bad gateway</html>', 'Bad Gateway'),
     'Bad Gateway (HTTP 502): <html>bad gateway</html>', None),
])
def test_error_message(reply, expected, error_type):
    refusal = client._refusal(reply)
    assert str(refusal) == expected
    assert refusal.status == reply.status_code
    assert refusal.error_type == error_type


def test_swconfig_error_is_one_line():
    error = client.SwconfigError('first\nsecond\n  third', 409)
    assert str(error) == 'first second third'
    assert error.status == 409


class _NoSession:
    """A session that must not be reached."""

    def request(self, *args, **kwargs):
        raise AssertionError('sent a request')


# Bytes of a command line that are not UTF-8 reach Python as lone
# surrogates (os.fsdecode's surrogateescape).
NOT_UTF8 = b'a\xffb'.decode('utf-8', 'surrogateescape')
SAID = '"a\\xffb" is not UTF-8 text; ids, names and values must be UTF-8.'


@pytest.mark.parametrize('call', [
    lambda c: c.deployment_show(NOT_UTF8),
    lambda c: c.config_show(NOT_UTF8),
    lambda c: c.deployment_list(NOT_UTF8),
    lambda c: c.deployment_trigger('d1', {'action': NOT_UTF8}),
    lambda c: c.config_create({'name': 'n', 'inputs': [
        {'name': 'x', 'default': NOT_UTF8}]}),
])
def test_text_that_is_not_utf8_is_said_plainly_before_sending(call):
    with pytest.raises(client.SwconfigError) as raised:
        call(client.Client(_NoSession(), 'http://127.0.0.1:1/v1/p'))
    assert str(raised.value) == SAID
    assert 'codec' not in str(raised.value)
