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


"""Fixtures of the fault suite: a private RabbitMQ node for the module
(``broker``) and, per backend, the rig of ``fault_rig`` (``rig``)."""

import contextlib

import pytest

from tests.fixtures import agent_stacks
from tests.fixtures import private_db
from tests.integration.faults.fault_rig import Rig


@pytest.fixture(scope='module')
def broker(tmp_path_factory):
    """One private RabbitMQ node for both backends (they run one after
    the other); the machine's shared broker is never touched."""
    node = agent_stacks.PrivateRabbitMQ(
        tmp_path_factory.mktemp('faults-rabbitmq'))
    try:
        yield node.start()
    finally:
        node.stop()


@pytest.fixture(scope='module', params=['mysql', 'postgresql'])
def rig(request, broker, tmp_path_factory):
    workdir = tmp_path_factory.mktemp(f'faults-{request.param}')
    with contextlib.ExitStack() as cleanup:
        server, url = cleanup.enter_context(private_db.private_database(
            request.param, workdir / 'db'))
        stack = cleanup.enter_context(agent_stacks.separate_stack(
            str(workdir / 'stack'), url, broker.url,
            name=f'faults-{request.param}', api={'workers': 2}))
        running = Rig(request.param, server, broker, stack)
        cleanup.callback(running.close)
        running.ensure_engines()
        running.api_workers()
        yield running
