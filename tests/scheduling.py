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

"""The order the suite's modules are handed to the xdist workers in.

The integration modules take minutes each and are few; the unit modules
take seconds and are many. Run the long ones first and the short ones
last, where they fill the workers' tail: pytest-xdist's own order (by
number of tests, most first) put the one-test integration modules of
minutes at the very end, and the run waited for them on one worker
while the others idled (tools/dev.py passes ``--no-loadscope-reorder``
so the order below is the one xdist follows).
"""

import pytest

#: The test folders in the order they run.
RUN_ORDER = ('integration', 'functional', 'unit')


def run_order(nodeid: str) -> int:
    """Where a test's folder comes in ``RUN_ORDER`` (anything else last)."""
    parts = nodeid.split('/')
    folder = parts[1] if len(parts) > 2 and parts[0] == 'tests' else ''
    return RUN_ORDER.index(folder) if folder in RUN_ORDER else len(RUN_ORDER)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list) -> None:
    # A stable sort: the modules keep their order within a folder.
    items.sort(key=lambda item: run_order(item.nodeid))
