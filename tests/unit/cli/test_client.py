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

from swconfig.cli import client


def _reply(status: int, body: object,
           reason: str = 'Reason') -> requests.Response:
    reply = requests.Response()
    reply.status_code = status
    reply.reason = reason
    reply._content = (body if isinstance(body, bytes)
                      else json.dumps(body).encode())
    return reply


@pytest.mark.parametrize('reply, expected', [
    (_reply(404, {'code': 404, 'title': 'Not Found',
                  'explanation': 'The resource could not be found.',
                  'error': {'type': 'NotFound', 'traceback': None,
                            'message': 'Deployment with id x not found'}}),
     'Not Found (HTTP 404): Deployment with id x not found'),
    # Heat leaves "message" out for some errors: the explanation then.
    (_reply(400, {'code': 400, 'title': 'Bad Request',
                  'explanation': 'The server could not comply.',
                  'error': {'type': 'ValueError', 'traceback': None}}),
     'Bad Request (HTTP 400): The server could not comply.'),
    (_reply(502, b'<html>bad gateway</html>', 'Bad Gateway'),
     'Bad Gateway (HTTP 502): <html>bad gateway</html>'),
])
def test_error_message(reply, expected):
    assert client._error_message(reply) == expected


def test_command_error_is_one_line():
    error = client.CommandError('first\nsecond\n  third', 409)
    assert str(error) == 'first second third'
    assert error.status == 409
