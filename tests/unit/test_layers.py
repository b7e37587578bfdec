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

"""The packages are layers whose imports only go downwards:

    cmd -> api / engine -> transports -> db -> common / conf

read from every import statement of every module (function-level imports
included), so the rules stay true as the code grows. A transport is one
package that owns all it does: outside ``transports`` only the loader
(``swconfig.transports``) and the contracts (``swconfig.transports.base``)
are imported, so no other layer names a transport. ``cmd`` is the top:
it starts the API and the engine, and nothing else imports it. The REST
clients stand apart: ``client`` (the API's requests as Python calls)
imports nothing else of swconfig; ``cli`` (the ``swconfig`` command)
imports only ``client``, ``common`` and ``swconfig.version``; ``heat`` (the
Heat resource plug-in, loaded by Heat) imports only ``client``. Only they
import ``client``; nothing imports ``cli``, and only ``cmd`` (which prints
its directory for heat.conf) imports ``heat``.
"""

import ast
import pathlib

import pytest

import swconfig

PACKAGE_DIR = pathlib.Path(swconfig.__file__).parent
LOW_LEVEL = ('db', 'common', 'conf', 'transports', 'policies')
CLI_MAY_USE = ('cli', 'client', 'common', 'version')
HEAT_MAY_USE = ('heat', 'client')


def _package(module: str) -> str:
    """``swconfig.api.agent`` -> ``api``; top-level modules -> ''."""
    parts = module.split('.')
    return parts[1] if len(parts) > 2 else ''


def violations(imports: dict[str, set[str]]) -> list[str]:
    """The broken rules, one line each, for a map of module name -> the
    swconfig modules (or module attributes) it imports."""
    found = []
    for module, targets in sorted(imports.items()):
        layer = _package(module)
        for target in sorted(targets):
            parts = target.split('.')
            used = parts[1] if len(parts) > 1 else ''
            line = f'{module} imports {target}'
            if used == 'cmd' and layer != 'cmd':
                found.append(f'{line}: only cmd imports cmd')
            if used == 'api' and layer not in ('api', 'cmd'):
                found.append(f'{line}: only api imports api (and cmd, '
                             f'which starts it)')
            if layer == 'api' and used == 'engine' and not (
                    target.startswith('swconfig.engine.rpcapi')):
                found.append(f'{line}: api reaches the engine only '
                             f'through engine/rpcapi.py')
            if layer in LOW_LEVEL and used in ('engine', 'api', 'cmd'):
                found.append(f'{line}: {layer} imports nothing from '
                             f'engine, api or cmd')
            if layer in ('common', 'conf') and used in ('db',
                                                        'transports'):
                found.append(f'{line}: {layer} imports nothing from '
                             f'{used}')
            if (used == 'transports' and layer != 'transports'
                    and not _is_transport_contract(target)):
                found.append(f'{line}: outside transports only the loader '
                             f'and transports.base are imported')
            if used == 'cli' and layer != 'cli':
                found.append(f'{line}: only cli imports cli')
            if used == 'heat' and layer not in ('heat', 'cmd'):
                found.append(f'{line}: only heat (and cmd, which prints '
                             f'its path) imports heat')
            if layer == 'heat' and used not in HEAT_MAY_USE:
                found.append(f'{line}: the Heat plug-in calls the REST API '
                             f'and imports only heat and client')
            if layer == 'client' and used != 'client':
                found.append(f'{line}: client imports nothing else of '
                             f'swconfig')
            if used == 'client' and layer not in ('client', 'cli', 'heat'):
                found.append(f'{line}: only the REST clients (cli, heat) '
                             f'import client')
            if layer == 'dashboard' and used != 'dashboard':
                found.append(f'{line}: dashboard holds static files and '
                             f'imports nothing else of swconfig')
            if used == 'dashboard' and layer not in ('dashboard', 'api'):
                found.append(f'{line}: only api (which serves it) imports '
                             f'dashboard')
            if layer == 'cli' and used not in CLI_MAY_USE:
                found.append(f'{line}: cli calls the REST API and imports '
                             f'only cli, client, common and '
                             f'swconfig.version')
    return found


def _is_transport_contract(target: str) -> bool:
    """``swconfig.transports`` or ``swconfig.transports.base`` (or a name
    of either), never a transport's own package or module."""
    parts = target.split('.')
    if len(parts) == 2:
        return True
    if parts[2] == 'base':
        return True
    # ``from swconfig.transports import get``: a name of the loader.
    return len(parts) == 3 and parts[2][0].islower() and parts[2] not in (
        _transport_modules())


def _transport_modules() -> set[str]:
    root = PACKAGE_DIR / 'transports'
    return ({path.stem for path in root.glob('*.py')}
            | {path.name for path in root.iterdir() if path.is_dir()})


def _module_name(path: pathlib.Path) -> str:
    relative = path.relative_to(PACKAGE_DIR.parent).with_suffix('')
    parts = list(relative.parts)
    if parts[-1] == '__init__':
        parts.pop()
    return '.'.join(parts)


def _imports_of(path: pathlib.Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f'{path}: relative import'
            found.update(f'{node.module}.{alias.name}'
                         for alias in node.names)
    return {name for name in found if name.startswith('swconfig.')}


def _tree_imports() -> dict[str, set[str]]:
    return {_module_name(path): _imports_of(path)
            for path in PACKAGE_DIR.rglob('*.py')}


def test_the_tree_is_read():
    imports = _tree_imports()
    assert 'swconfig.api.app' in imports
    assert 'swconfig.engine.rpcapi' in imports['swconfig.api.app']
    # function-level imports count too
    assert 'swconfig.common.rpc' in imports['swconfig.common.process']


def test_imports_only_go_downwards():
    assert violations(_tree_imports()) == []


def test_the_dashboard_package_imports_nothing_of_swconfig():
    # Its __init__ is named swconfig.dashboard, which _package takes for a
    # top-level module.
    assert _tree_imports()['swconfig.dashboard'] == set()


@pytest.mark.parametrize('module, target, rule', [
    ('swconfig.api.wsgi', 'swconfig.cmd.all', 'only cmd imports cmd'),
    ('swconfig.engine.metadata', 'swconfig.api.views',
     'only api imports api'),
    ('swconfig.api.controllers.v1.validate', 'swconfig.engine.deriving',
     'only through engine/rpcapi.py'),
    ('swconfig.transports.heat_signal', 'swconfig.engine.metadata',
     'transports imports nothing from engine'),
    ('swconfig.db.api', 'swconfig.engine.states',
     'db imports nothing from engine'),
    ('swconfig.policies.base', 'swconfig.api.router',
     'only api imports api'),
    ('swconfig.common.urls', 'swconfig.db.api',
     'common imports nothing from db'),
    ('swconfig.conf.api', 'swconfig.db.models',
     'conf imports nothing from db'),
    ('swconfig.cmd.all', 'swconfig.cli.main', 'only cli imports cli'),
    ('swconfig.cli.deployments', 'swconfig.engine.rpcapi',
     'cli calls the REST API'),
    ('swconfig.cli.configs', 'swconfig.db.api', 'cli calls the REST API'),
    ('swconfig.cli.main', 'swconfig.conf.CONF', 'cli calls the REST API'),
    ('swconfig.engine.service', 'swconfig.transports.swift.poller',
     'outside transports only the loader'),
    ('swconfig.api.controllers.v1.software_deployments',
     'swconfig.transports.swift.client_derived',
     'outside transports only the loader'),
    ('swconfig.engine.periodics', 'swconfig.transports.zaqar',
     'outside transports only the loader'),
    ('swconfig.transports.swift.poller', 'swconfig.engine.signals',
     'transports imports nothing from engine'),
    ('swconfig.transports.zaqar.consumer', 'swconfig.api.agent',
     'only api imports api'),
    ('swconfig.conf.agent', 'swconfig.transports',
     'conf imports nothing from transports'),
    ('swconfig.heat.resources.software_deployment', 'swconfig.db.api',
     'the Heat plug-in calls the REST API'),
    ('swconfig.heat.client_plugin', 'swconfig.cli.main',
     'the Heat plug-in calls the REST API'),
    ('swconfig.heat.client_plugin', 'swconfig.common.urls',
     'the Heat plug-in calls the REST API'),
    ('swconfig.api.app', 'swconfig.heat.client_plugin', 'only heat'),
    ('swconfig.client.rest', 'swconfig.common.urls',
     'client imports nothing else'),
    ('swconfig.engine.service', 'swconfig.client.rest',
     'only the REST clients'),
    ('swconfig.dashboard.files', 'swconfig.conf.CONF',
     'dashboard holds static files'),
    ('swconfig.cli.main', 'swconfig.dashboard.STATIC_DIR',
     'only api (which serves it) imports dashboard'),
])
def test_each_rule_catches_its_violation(module, target, rule):
    found = violations({module: {target}})
    assert any(rule in line for line in found), found


def test_allowed_imports_pass():
    assert violations({
        'swconfig.api.app': {'swconfig.engine.rpcapi',
                             'swconfig.engine.rpcapi.EngineAPI',
                             'swconfig.common.urls', 'swconfig.db.api'},
        'swconfig.cmd.all': {'swconfig.api.app', 'swconfig.engine.service',
                             'swconfig.cmd.api'},
        'swconfig.engine.deployments': {'swconfig.transports.base',
                                        'swconfig.transports',
                                        'swconfig.transports.get',
                                        'swconfig.db.api'},
        'swconfig.transports.swift.poller': {
            'swconfig.transports.swift.client', 'swconfig.db.api'},
        'swconfig.db.api': {'swconfig.common.exception'},
        'swconfig.cli.main': {'swconfig.client.rest', 'swconfig.version',
                              'swconfig.common.states'},
        'swconfig.heat.resources.software_deployment': {
            'swconfig.heat.client_plugin', 'swconfig.client.rest'},
        'swconfig.cmd.manage': {'swconfig.heat.resources'},
    }) == []
