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

"""Fixtures of the ``swconfig`` command's tests: one ``swconfig-all`` per
module (``service``), a project per test, and the command pointed at
that project's endpoint in a directory of the test's own (``cli``)."""

import uuid

import pytest

from tests.fixtures import agent_stacks
from tests.integration.swconfig_cli.cli_helpers import Cli


@pytest.fixture(scope='module')
def service(tmp_path_factory):
    """One swconfig-all for the module; tests keep apart by project."""
    with agent_stacks.embedded_stack(
            str(tmp_path_factory.mktemp('cli-stack'))) as stack:
        yield stack


@pytest.fixture
def project():
    return f'cli-{uuid.uuid4().hex[:10]}'


@pytest.fixture
def cli(service, project, tmp_path):
    return Cli(tmp_path, f'{service.base_url}/v1/{project}')
