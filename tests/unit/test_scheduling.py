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

"""The modules' run order (tests/scheduling.py): the long ones first."""

from tests import scheduling


def test_integration_runs_first_and_unit_last():
    nodeids = ['tests/unit/api/test_app.py::test_a',
               'tests/functional/test_x.py::test_b',
               'tests/integration/faults/test_answers.py::test_c[mysql]',
               'tests/integration/test_heat_templates.py::test_d',
               'tests/test_elsewhere.py::test_e']
    ordered = sorted(nodeids, key=scheduling.run_order)
    assert ordered == [nodeids[2], nodeids[3], nodeids[1], nodeids[0],
                       nodeids[4]]
