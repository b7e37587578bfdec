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

"""Pieces of the agent app that need no server."""

import urllib.parse

import pytest

from swconfig.api.agent import application


@pytest.mark.parametrize('query', [
    '', 'token=abc', 'token=abc&revision=2', 'revision=2&token=a.b-c_d',
    'token=one&token=two', 'token=', 'token', 'token=a%2Eb', 'tok%65n=x',
    'token=a+b', 'token=%ZZ', 'x=1&&token=y&', 'token=a=b', '=x&token=1',
    'token=caf%C3%A9', 'tokenx=1', 'a;token=1', 'token==', 'token=a;b',
    'toke=1', 'token=a%', 'token=a&', '&token=a', 'Token=a',
])
def test_query_value_is_what_parse_qsl_gives(query):
    expected = None
    for key, value in urllib.parse.parse_qsl(query, keep_blank_values=True):
        if key == 'token':
            expected = value
    assert application._query_value({'QUERY_STRING': query},
                                    'token') == expected
