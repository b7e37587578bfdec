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

"""A SQLite database at the schema's head, one per test module, for the
agent path's units that read or write through the DB layer."""

import pytest

from tests.unit.db import backends


@pytest.fixture(scope='module')
def facade(tmp_path_factory):
    facade = backends.migrated_sqlite_facade(
        tmp_path_factory.mktemp('agent-db') / 'swconfig.sqlite')
    yield facade
    facade.dispose_pool()
