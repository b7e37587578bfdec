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

"""How the modules are shared out (tests/scheduling.py): the long ones
first, a costly shared fixture's modules on one worker."""

import ast
import pathlib

from tests import scheduling


def test_integration_runs_first_and_unit_last():
    nodeids = ['tests/unit/api/test_app.py::test_a',
               'tests/functional/test_x.py::test_b',
               'tests/integration/faults/test_answers.py::test_c[mysql]',
               'tests/integration/test_startup.py::test_d',
               'tests/test_elsewhere.py::test_e']
    ordered = sorted(nodeids, key=scheduling.run_order)
    assert ordered == [nodeids[2], nodeids[3], nodeids[1], nodeids[0],
                       nodeids[4]]


def test_a_shared_fixtures_modules_are_one_unit_of_work_and_run_first():
    heat_modules = scheduling.SHARED_SCOPES['heat_cloud']
    assert {scheduling.scope(f'{module}::test_x[a]')
            for module in heat_modules} == {'heat_cloud'}
    assert scheduling.scope('tests/unit/test_a.py::test_b') == (
        'tests/unit/test_a.py')
    nodeids = ['tests/integration/faults/test_answers.py::test_c',
               f'{heat_modules[-1]}::test_d']
    assert sorted(nodeids, key=scheduling.run_order) == nodeids[::-1]


def _modules_using(fixture: str) -> set[str]:
    """The test modules with a test or fixture taking ``fixture``."""
    root = pathlib.Path(__file__).resolve().parents[2]
    found = set()
    for path in (root / 'tests').rglob('test_*.py'):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and fixture in {
                    arg.arg for arg in node.args.args}:
                found.add(path.relative_to(root).as_posix())
    return found


def test_the_shared_scopes_name_every_module_using_their_fixture():
    for fixture, modules in scheduling.SHARED_SCOPES.items():
        assert _modules_using(fixture) == set(modules), fixture
