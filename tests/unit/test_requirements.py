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

"""requirements.txt lists exactly what swconfig's code imports: nothing
unused, nothing missing (database drivers are extras, see setup.cfg).

The Heat plug-in (``swconfig/heat``) imports ``heat``: it runs inside a Heat
engine, which brings it, so Heat is no requirement of swconfig. Likewise
uWSGI brings the ``uwsgi`` modules ``swconfig.api.background`` imports
when it runs under uWSGI."""

import ast
from importlib import metadata
import pathlib
import re
import sys

import swconfig

PACKAGE_DIR = pathlib.Path(swconfig.__file__).parent
REQUIREMENTS = PACKAGE_DIR.parent / 'requirements.txt'


def _normalise(name: str) -> str:
    return re.sub(r'[-_.]+', '-', name).lower()


def _required() -> set[str]:
    names = set()
    for line in REQUIREMENTS.read_text().splitlines():
        line = line.split('#')[0].strip()
        if line:
            names.add(_normalise(re.split(r'[\[<>=!~; ]', line)[0]))
    return names


#: Packages the process that loads a module brings: directory or
#: module -> names. uWSGI brings its own modules to the one that starts
#: an API worker's background work after uWSGI's fork.
PROVIDED_BY_HOST = {
    PACKAGE_DIR / 'heat': {'heat'},
    PACKAGE_DIR / 'api' / 'background.py': {'uwsgi', 'uwsgidecorators'},
}


def _provided(path: pathlib.Path) -> set[str]:
    return set().union(*(names for where, names in PROVIDED_BY_HOST.items()
                         if where == path or where in path.parents))


def _imported_modules() -> set[str]:
    found = set()
    for path in PACKAGE_DIR.rglob('*.py'):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names.update(alias.name.split('.')[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names.add(node.module.split('.')[0])
        found |= names - _provided(path)
    return {name for name in found
            if name != 'swconfig' and name not in sys.stdlib_module_names}


def test_only_the_heat_plugin_imports_heat():
    importers = {path.relative_to(PACKAGE_DIR).parts[0]
                 for path in PACKAGE_DIR.rglob('*.py')
                 if re.search(r'^(from|import) heat\b', path.read_text(),
                              re.MULTILINE)}
    assert importers == {'heat'}


def _distributions(modules: set[str]) -> dict[str, set[str]]:
    owners = metadata.packages_distributions()
    return {module: {_normalise(dist) for dist in owners.get(module, ())}
            for module in modules}


def test_every_imported_package_is_required():
    missing = {module: dists for module, dists in
               _distributions(_imported_modules()).items()
               if not dists & _required()}
    assert not missing, f'imported but not in requirements.txt: {missing}'


#: Required without an import of ours: drivers a library loads by name.
LOADED_BY_NAME = {
    'redis',  # tooz's driver for [coordination] backend_url = redis://
}


def test_every_requirement_is_imported():
    imported = set().union(*_distributions(_imported_modules()).values())
    assert _required() - imported == LOADED_BY_NAME
