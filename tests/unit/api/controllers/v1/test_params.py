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

"""Query parameters with Heat's messages
(doc/source/reference/rest-rules.rst)."""

import pytest

from swconfig.api.controllers.v1 import params
from swconfig.common import exception


@pytest.mark.parametrize('value, expected', [
    (None, None),
    ('', None),
    ('0', 0),
    ('1', 1),
    ('250', 250),
    (str(params.MAX_LIMIT), params.MAX_LIMIT),
    (str(10 ** 30), params.MAX_LIMIT),
])
def test_non_negative_int(value, expected):
    assert params.non_negative_int('limit', value) == expected


@pytest.mark.parametrize('value', ['abc', '1.5', '1e3', '0x10', 'ten'])
def test_non_integer_is_refused(value):
    with pytest.raises(exception.InvalidParameterValue) as info:
        params.non_negative_int('limit', value)
    assert info.value.code == 400
    assert info.value.message == "Only integer is acceptable by 'limit'."


@pytest.mark.parametrize('value', ['-1', '-100'])
def test_negative_is_refused(value):
    with pytest.raises(exception.InvalidParameterValue) as info:
        params.non_negative_int('limit', value)
    assert info.value.message == (
        f"Value '{value}' is invalid for 'limit' which only accepts "
        f"non-negative integer.")


def test_the_parameter_name_is_in_the_message():
    with pytest.raises(exception.InvalidParameterValue) as info:
        params.non_negative_int('marker_size', 'x')
    assert "'marker_size'" in info.value.message


@pytest.mark.parametrize('value, expected', [
    (None, False),
    ('true', True),
    ('True', True),
    ('TRUE', True),
    ('false', False),
    ('False', False),
])
def test_boolean(value, expected):
    assert params.boolean('global_tenant', value) is expected


@pytest.mark.parametrize('value', ['', 'x', 'yes', 'no', '1', '0', 'on', 't'])
def test_unrecognised_boolean_is_refused(value):
    with pytest.raises(exception.InvalidParameterValue) as info:
        params.boolean('global_tenant', value)
    assert info.value.code == 400
    assert info.value.message == (
        f'Unrecognized value "{value}" for "global_tenant", acceptable '
        f'values are: true, false.')
