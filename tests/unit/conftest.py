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

"""Fixtures shared by the unit tests.

The DB layer's and the engine's tests run swconfig.db.api on databases of
their own. swconfig.db.api's transaction context is process-global and,
left alone, configures itself from CONF.database the first time it is
used (which is what the in-process stack of tests/conftest.py relies on).
These fixtures do not touch that configuration: they build their own
enginefacade, migrate it with the real alembic scripts, and patch it into
swconfig.db.api only for the duration of each test (``patch_factory`` is
oslo.db's hook for exactly this). ``db`` runs on one SQLite file of the
session, emptied after each test; ``facade`` on a fresh database of the
backend a test is parametrized with (``backends.on_every_backend``: SQLite,
MariaDB and PostgreSQL, started if down, never skipped).
"""

import contextlib

import pytest

from swconfig.common import context as swconfig_context
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.db import session
from tests.unit.db import backends
from tests.unit.db import rows


@pytest.fixture
def set_conf():
    """``set_conf(name, value, group=None)``: a config override undone after
    the test. Only for options the session fixtures do not override
    themselves (clearing would drop theirs too)."""
    done = []

    def _set(name, value, group=None):
        CONF.set_override(name, value, group=group)
        done.append((name, group))

    yield _set
    for name, group in reversed(done):
        CONF.clear_override(name, group=group)


@pytest.fixture
def agent_base_url():
    """Agents are told to reach swconfig on this URL during the test; the
    value before (a session fixture's override, maybe) comes back after."""
    url = 'http://swconfig.test:8004'
    before = CONF.api.public_url
    CONF.set_override('public_url', url, group='api')
    yield url
    CONF.set_override('public_url', before, group='api')


@pytest.fixture(scope='session')
def unit_facade(tmp_path_factory):
    facade = backends.migrated_sqlite_facade(
        tmp_path_factory.mktemp('unit-db') / 'swconfig.sqlite')
    yield facade
    facade.dispose_pool()


@pytest.fixture
def db(unit_facade):
    """swconfig.db.api, running on the unit tests' database."""
    reset = session.context_manager.patch_factory(unit_facade)
    try:
        yield db_api
    finally:
        reset()
        backends.empty_tables(unit_facade)


@pytest.fixture
def ctx():
    """A member of a fresh project."""
    return rows.context_for(rows.new_project())


@pytest.fixture
def other_ctx():
    """A member of another fresh project."""
    return rows.context_for(rows.new_project())


@pytest.fixture
def admin_ctx():
    return rows.context_for(rows.new_project(),
                            roles=('admin', 'member', 'reader'),
                            is_admin=True)


@pytest.fixture
def facade(request, tmp_path):
    """An enginefacade on a fresh database of ``request.param`` (see
    ``backends``), with swconfig's own per-backend connection settings,
    patched into swconfig.db.api."""
    with contextlib.ExitStack() as stack:
        context = backends.migrated_facade(stack, request.param, tmp_path)
        stack.callback(session.context_manager.patch_factory(context))
        yield context


@pytest.fixture
def admin():
    """The engine's own context (``ctx`` owns the rows)."""
    return swconfig_context.get_admin_context()
