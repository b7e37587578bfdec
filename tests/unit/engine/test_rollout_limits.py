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

"""``rollouts.limit``: max_concurrency and max_errors as a number or a
percentage of the targets, rounded up."""

import pytest

from swconfig.engine import rollouts


@pytest.mark.parametrize('value, total, expected', [
    ('50', 1000, 50), ('0', 10, 0), ('10%', 30, 3), ('10%', 1000, 100),
    ('10%', 5, 1), ('1%', 150, 2), ('100%', 7, 7), ('0%', 9, 0),
    ('33%', 10, 4),
])
def test_limit(value, total, expected):
    assert rollouts.limit(value, total) == expected
