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


"""The tests' own layering: a test module imports nothing from another
test module (``test_*.py``). What several tests share lives in a helper
module named for what it holds (``deployment_helpers``, ``rows``, ...) or
in a conftest fixture, so a test module can be moved, renamed or deleted
without breaking another. Read from every import statement of every
module under tests/ (function-level imports included).
"""

import ast
import pathlib

import pytest

TESTS_DIR = pathlib.Path(__file__).resolve().parents[1]
ROOT = TESTS_DIR.parent
#: The second test module of the ``tree`` fixture.
TWO = 'tests.unit.engine.test_two'


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix('').parts)
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def _is_test_module(name: str, root: pathlib.Path = ROOT) -> bool:
    """Whether dotted ``name`` is a ``test_*.py`` module under tests/."""
    parts = name.split('.')
    return (parts[0] == 'tests' and parts[-1].startswith('test_')
            and root.joinpath(*parts).with_suffix('.py').is_file())


def _imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """Every dotted name ``node`` may import a module by."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ''
    if node.level:
        package = module.split('.')
        if not is_package:
            package.pop()
        package = package[:len(package) - node.level + 1]
        base = '.'.join(package + ([base] if base else []))
    return [base] + [f'{base}.{alias.name}' for alias in node.names]


def cross_test_imports(source: str, module: str, is_package: bool = False,
                       root: pathlib.Path = ROOT) -> list[str]:
    """The test modules (other than ``module``) that ``source`` imports
    from, one line each."""
    found = []
    for node in ast.walk(ast.parse(source)):
        for name in _imported(node, module, is_package):
            if name != module and _is_test_module(name, root):
                found.append(f'{module} line {node.lineno} imports from '
                             f'{name}')
    return found


def _tree_violations() -> list[str]:
    found = []
    for path in sorted(TESTS_DIR.rglob('*.py')):
        found += cross_test_imports(path.read_text(), _module_name(path),
                                    path.name == '__init__.py')
    return found


def test_no_test_module_imports_from_another():
    assert _tree_violations() == []


def test_every_module_of_the_tree_is_read():
    paths = {_module_name(path) for path in TESTS_DIR.rglob('*.py')}
    assert 'tests.unit.test_test_layout' in paths
    assert 'tests.functional.api.deployment_helpers' in paths
    assert 'tests.integration.swconfig_cli.conftest' in paths


@pytest.fixture
def tree(tmp_path):
    """A tests/ tree of two test modules and a helper module."""
    package = tmp_path / 'tests' / 'unit' / 'engine'
    package.mkdir(parents=True)
    for name in ('test_one.py', 'test_two.py', 'rows.py', '__init__.py'):
        (package / name).write_text('')
    return tmp_path


@pytest.mark.parametrize('source, line', [
    ('from tests.unit.engine.test_two import helper', 1),
    ('from tests.unit.engine import test_two', 1),
    (f'import {TWO}', 1),
    (f'import {TWO} as two', 1),
    ('from .test_two import helper', 1),
    ('from . import test_two', 1),
    ('def test_later():\n    from tests.unit.engine.test_two import x', 2),
])
def test_an_import_from_another_test_module_is_found(tree, source, line):
    assert cross_test_imports(
        source, 'tests.unit.engine.test_one', root=tree) == [
            f'tests.unit.engine.test_one line {line} imports from '
            f'tests.unit.engine.test_two']


@pytest.mark.parametrize('source', [
    'from tests.unit.engine.rows import make',
    'from tests.unit.engine import rows',
    'from .rows import make',
    'import tests.unit.engine',
    'from swconfig.engine import test_two',
    'from tests.unit.engine.test_one import itself',
])
def test_helpers_and_other_packages_may_be_imported(tree, source):
    assert cross_test_imports(source, 'tests.unit.engine.test_one',
                              root=tree) == []


#: Modules that run with Heat imported, never in the suite's own process:
#: Heat's global options share names with swconfig's, so importing both
#: into one process fails (DuplicateOptError) for whichever comes second,
#: and a collection that fails so stops the whole run.
HEAT_PROCESSES = ('tests/unit/heat/heat_checks.py',
                  'tests/fixtures/heat_test_plugins/',
                  'tests/fixtures/heat_wsgi.py')


def heat_imports(source: str) -> list[int]:
    """The lines of ``source`` that import Heat or swconfig's Heat
    plug-in (``heat``, ``swconfig.heat``; heatclient is a client)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        for name in _imported(node, '', False):
            if name.split('.')[0] == 'heat' or name.startswith(
                    'swconfig.heat'):
                lines.append(node.lineno)
                break
    return lines


def test_no_module_of_the_suites_process_imports_heat():
    found = {}
    for path in sorted(TESTS_DIR.rglob('*.py')):
        relative = path.relative_to(ROOT).as_posix()
        if any(relative.startswith(place) for place in HEAT_PROCESSES):
            continue
        lines = heat_imports(path.read_text())
        if lines:
            found[relative] = lines
    assert found == {}


@pytest.mark.parametrize('source,lines', [
    ('from swconfig.heat.resources import agent\n', [1]),
    ('import os\nfrom heat.engine import resource\n', [2]),
    ('from swconfig import heat\n', [1]),
    ('from heatclient import client\nimport swconfig.conf\n', []),
])
def test_a_heat_import_is_found(source, lines):
    assert heat_imports(source) == lines
