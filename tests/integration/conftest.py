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

"""Fixtures of the integration tests: real clients against real processes.

``embedded_service``: one ``swconfig-all`` process for the whole session,
in its embedded default (noauth, SQLite in its own state_path, in-process
RPC), listening on a free port of 127.0.0.1. Tests stay out of each
other's way by using their own project ids (the ``project`` fixture).

``keystone``: a real Keystone for the whole session
(``tests.fixtures.keystone``), set up only when a test asks for it;
``swift`` and ``zaqar``: a real Swift and Zaqar likewise
(``tests.fixtures.swift_service``, ``tests.fixtures.zaqar_service``);
``heat_cloud``: a real Heat wired to swconfig behind a Keystone of its own
(``tests.fixtures.heat_service``).
"""

import dataclasses
import os
import uuid

import pytest

from tests.fixtures import agents
from tests.fixtures import api_client
from tests.fixtures import processes
from tests.fixtures.heat_service import heat_cloud  # noqa: F401
from tests.fixtures.keystone import keystone  # noqa: F401
from tests.fixtures.swift_service import swift  # noqa: F401
from tests.fixtures.zaqar_service import zaqar  # noqa: F401


def pytest_collection_modifyitems(items: list) -> None:
    """A node id per schemathesis operation.

    Schemathesis names each generated item by its operation ("GET /v1/
    ...") but, from pytest 9, they all get the test function's node id:
    pytest-xdist tells items apart by node id, so with ``--dist loadfile``
    all but one of them would silently not run. pytest 8 gave them the
    operation in the id already (``[...]``): nothing to do there.
    """
    for item in items:
        label = getattr(item, 'operation_label', None)
        if label and not item.nodeid.endswith(']'):
            item._id = item._id.with_params(label)


@dataclasses.dataclass
class EmbeddedService:
    """A running ``swconfig-all``: where it listens and how to reach it."""

    base_url: str
    state_path: str
    config_file: str
    process: processes.SwconfigProcess

    def endpoint(self, project: str) -> str:
        """The orchestration endpoint of ``project``, as clients expect it
        (``http://127.0.0.1:PORT/v1/<project>``, no trailing slash)."""
        return f'{self.base_url}/v1/{project}'

    @property
    def http(self) -> api_client.HttpClient:
        """A plain HTTP client taking absolute paths (``/v1/<p>/...``)."""
        return api_client.HttpClient(self.base_url, 'sqlite')

    def log_tail(self, lines: int = 60) -> str:
        return self.process.log_tail(lines)


@pytest.fixture(scope='session')
def embedded_service(tmp_path_factory):
    workdir = str(tmp_path_factory.mktemp('embedded-service'))
    state_path = os.path.join(workdir, 'state')
    port = processes.free_port()
    config_file = processes.write_config(
        os.path.join(workdir, 'swconfig.conf'), {
            'DEFAULT': {'state_path': state_path},
            # Last poll times within a second (the dashboard shows them).
            'api': {'bind_host': processes.HOST, 'bind_port': port,
                    'poll_time_interval': 1},
        })
    process = processes.SwconfigProcess('swconfig-all', config_file,
                                        workdir).start()
    base_url = f'http://{processes.HOST}:{port}'
    try:
        processes.wait_for_http(base_url + '/', process)
        yield EmbeddedService(base_url, state_path, config_file, process)
    finally:
        process.stop()


@pytest.fixture
def server():
    """A server id of the test's own (a server belongs to the project that
    first deploys to it)."""
    return f'server-{uuid.uuid4().hex[:12]}'


@pytest.fixture
def agent(tmp_path):
    """One simulated server's real os-collect-config and heat-agents
    (``tests.fixtures.agents.Agent``), in a directory of the test's own."""
    return agents.Agent(tmp_path / 'agent')
