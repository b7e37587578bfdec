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

"""Fixtures shared by the unit tests."""

import pytest

from swconfig.conf import CONF


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
