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

ROOT = pathlib.Path(__file__).resolve().parents[2]


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


def _asks_for(tree: ast.AST, fixture: str) -> bool:
    """Whether a test or fixture takes ``fixture`` as an argument, or the
    module names it in a string (``getfixturevalue``, ``indirect``)."""
    return any(
        (isinstance(node, ast.FunctionDef)
         and fixture in {arg.arg for arg in node.args.args})
        or (isinstance(node, ast.Constant) and node.value == fixture)
        for node in ast.walk(tree))


def _modules_using(fixture: str) -> set[str]:
    """The test modules asking for the session fixture ``fixture``."""
    found = set()
    for path in (ROOT / 'tests').rglob('test_*.py'):
        if path.name == 'test_scheduling.py':
            continue  # this module names them
        if _asks_for(ast.parse(path.read_text()), fixture):
            found.add(path.relative_to(ROOT).as_posix())
    return found


def test_the_shared_scopes_name_every_module_using_their_fixtures():
    for fixtures, modules in scheduling.SHARED_SCOPES.items():
        users = set().union(*(_modules_using(fixture)
                              for fixture in fixtures.split(',')))
        for module in users:
            assert scheduling.scope(module + '::test') == fixtures, module
        # And no module is listed that does not use them.
        assert {module for module in modules
                if not module.endswith('/')} <= users, fixtures


def test_the_stacks_of_the_functional_api_tests_serve_only_that_folder():
    # The "api" fixture of its conftest asks for them (by a name it
    # builds); any other module asking for them would start them on a
    # second worker.
    users = {path.relative_to(ROOT).as_posix()
             for path in (ROOT / 'tests').rglob('*.py')
             if path.name != 'test_scheduling.py'
             and any(_asks_for(ast.parse(path.read_text()), fixture)
                     for fixture in ('mysql_stack', 'postgresql_stack'))}
    assert users == set(), users
