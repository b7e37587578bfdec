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


"""Fixtures shared by the engine's unit tests."""

import pytest

from swconfig.common import context as swconfig_context
from swconfig.common import signing
from swconfig.engine import availability


@pytest.fixture
def keyring(monkeypatch):
    """A signing keyring of the test's own (key id ``unit``)."""
    keys = signing.KeyRing({'unit': b'u' * 32}, 'unit')
    monkeypatch.setattr(signing, '_KEYRING', keys)
    return keys


@pytest.fixture
def context():
    """A member of project ``p1``."""
    return swconfig_context.RequestContext(project_id='p1',
                                           roles=['member', 'reader'])


@pytest.fixture
def engines_running(monkeypatch):
    """Every engine a test calls runs and the bus is up: what
    ``availability`` says before a call is tested in
    test_availability.py."""
    monkeypatch.setattr(availability.Availability, 'check',
                        lambda self: None)
    monkeypatch.setattr(availability.Availability, 'interrupt',
                        lambda self: None)
