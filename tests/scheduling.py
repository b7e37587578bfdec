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

"""How the suite's modules are shared out among the xdist workers.

The integration modules take minutes each and are few; the unit modules
take seconds and are many. Run the long ones first and the short ones
last, where they fill the workers' tail: pytest-xdist's own order (by
number of tests, most first) put the one-test integration modules of
minutes at the very end, and the run waited for them on one worker
while the others idled (tools/dev.py passes ``--no-loadscope-reorder``
so the order below is the one xdist follows).

A worker takes a whole module (``--dist loadfile``), so that a module's
fixtures start once; the modules of ``SHARED_SCOPES`` go to one worker
together, first, so that the session fixture they share, too costly to
start on two workers, starts once per run.
"""

import pytest
from xdist import scheduler

#: The test folders in the order they run.
RUN_ORDER = ('integration', 'functional', 'unit')
#: Session fixtures -> the test modules using them (a folder ends in "/":
#: every module in it), run by one worker, so that the fixtures start once
#: per run: Heat with its own Keystone and swconfig takes 45 s and a minute
#: of CPU to start; the agent stacks and the MariaDB and PostgreSQL stacks
#: of the functional API tests start a swconfig-api and a swconfig-engine
#: per backend. tests/unit/test_scheduling.py keeps the lists complete.
SHARED_SCOPES = {
    'heat_cloud': ('tests/integration/test_heat_agent_resource.py',
                   'tests/integration/test_heat_cutover.py',
                   'tests/integration/test_heat_import.py',
                   'tests/integration/test_heat_service.py',
                   'tests/integration/test_heat_templates.py'),
    'agent_stack': ('tests/integration/test_agent_end_to_end.py',
                    'tests/integration/test_rollout_agents.py',
                    'tests/integration/test_signal_durability.py'),
    'mysql_stack,postgresql_stack': ('tests/functional/api/',),
}


def scope(nodeid: str) -> str:
    """The unit of work a test belongs to: its module, or the shared
    fixtures its module uses."""
    module = nodeid.split('::', 1)[0]
    for fixtures, modules in SHARED_SCOPES.items():
        if any(module == path or (path.endswith('/') and
                                  module.startswith(path))
               for path in modules):
            return fixtures
    return module


def run_order(nodeid: str) -> int:
    """Where a test comes: the shared scopes first (the longest units of
    work), then by its folder's place in ``RUN_ORDER``."""
    if scope(nodeid) in SHARED_SCOPES:
        return -1
    parts = nodeid.split('/')
    folder = parts[1] if len(parts) > 2 and parts[0] == 'tests' else ''
    return RUN_ORDER.index(folder) if folder in RUN_ORDER else len(RUN_ORDER)


class ModulesAndSharedScopes(scheduler.LoadFileScheduling):
    """``--dist loadfile``, with the modules of a shared scope as one
    unit of work."""

    def _split_scope(self, nodeid: str) -> str:
        return scope(nodeid)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue('dist') == 'loadfile':
        return ModulesAndSharedScopes(config, log)
    return None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list) -> None:
    # A stable sort: the modules keep their order within a folder.
    items.sort(key=lambda item: run_order(item.nodeid))
