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

"""How objects become cliff columns."""

from swconfig.cli import views


def test_known_columns_first_then_new_keys_sorted():
    names, values = views.one({'zeta': 1, 'status': 'COMPLETE', 'id': 'd',
                               'alpha': 2}, ('id', 'status', 'missing'))
    assert names == ('id', 'status', 'missing', 'alpha', 'zeta')
    assert values == ('d', 'COMPLETE', None, 2, 1)


def test_nested_values_are_json_in_tables_and_data_elsewhere():
    names, rows = views.many([{'id': 'x', 'inputs': [{'name': 'a'}]}],
                             ('id', 'inputs'))
    cell = rows[0][1]
    assert names == ('id', 'inputs')
    assert cell.machine_readable() == [{'name': 'a'}]
    assert cell.human_readable() == '[\n  {\n    "name": "a"\n  }\n]'
    assert rows[0][0] == 'x'
