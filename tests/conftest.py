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

"""Fixtures shared by the functional and integration tests.

``inprocess_stack``: the real pecan app and engine in this process, with
oslo.messaging's in-process transport and SQLite (the embedded default).
``separate_stack(backend)``: swconfig-api and swconfig-engine as separate
processes talking over the real RabbitMQ, on a fresh MariaDB or PostgreSQL
database. Both are built once per test session and per backend; tests keep
out of each other's way by using their own project ids.
"""

import ast
import functools
import os
import subprocess
import sys
import threading
import uuid

import pytest

from tests.fixtures import api_client
from tests.fixtures import processes
from tests.fixtures import services

BACKENDS = ('sqlite', 'mysql', 'postgresql')


def _serialize_ast_parse() -> None:
    """One ``ast.parse`` at a time in this process, on CPython 3.11.

    3.11 keeps the AST converter's recursion depth in state its threads
    share: two parses at once (pytest reading a failed test's source in
    the main thread, a traceback's caret markers formatted in an engine
    thread) can end the run with "SystemError: AST constructor recursion
    depth mismatch". Later CPython releases keep it per parse.
    """
    if sys.version_info[:2] != (3, 11):
        return
    parse = ast.parse
    lock = threading.RLock()

    @functools.wraps(parse)
    def serialized(*args, **kwargs):
        with lock:
            return parse(*args, **kwargs)

    ast.parse = serialized


_serialize_ast_parse()


@pytest.fixture(scope='session')
def inprocess_stack(tmp_path_factory):
    import webtest

    from swconfig.common import config
    from swconfig.common import rpc
    from swconfig.conf import CONF
    from swconfig.db import migration

    state = tmp_path_factory.mktemp('inprocess-state')
    config.parse_args(['pytest'], default_config_files=[])
    CONF.set_override('auth_strategy', 'noauth')
    CONF.set_override('state_path', str(state))
    CONF.set_override('generate_signing_key', True, group='agent')
    # webtest's requests go to http://localhost: agents are told so.
    CONF.set_override('public_url', 'http://localhost', group='api')
    # Last poll times written within a second, not the default 15.
    CONF.set_override('poll_time_interval', 1, group='api')
    CONF.set_override('connection', config.sqlite_url(str(state)),
                      group='database')
    CONF.set_override('topic', f'swconfig-test-{uuid.uuid4().hex[:8]}',
                      group='engine')
    migration.upgrade('head')
    rpc.init(CONF, default_url='fake://')

    from swconfig.api import app
    from swconfig.api import background
    from swconfig.engine import service

    engine = service.EngineService()
    engine.start()
    application = app.setup_app()
    # The stack is a worker: its background work runs (poll times
    # written, signals cast, waits watched).
    work = background.current()
    work.start()
    _INPROCESS_ENGINES.append(_PausableEngine(engine, work))
    yield api_client.WebTestClient(webtest.TestApp(application))
    _INPROCESS_ENGINES.clear()
    work.stop()
    engine.stop()
    rpc.cleanup()


class _PausableEngine:
    """The in-process stack's engine and API worker, with their
    background tasks paused while unit tests run beside them on the same
    xdist worker.

    Their tasks (heartbeat, signal sweep, timeouts, poll-time writer,
    ...) write through the process-global DB layer, which unit tests
    patch onto databases of their own: left running, they wrote into a
    test's SQLite file (the test then met "database is locked") and the
    engine's heartbeats missed the stack's database, so the next
    functional test was answered 503 "No engine is running".
    """

    def __init__(self, engine, work) -> None:
        self.engine = engine
        self.work = work
        self.paused = False

    def pause(self) -> None:
        self.work.stop()
        if not self.paused:
            self.engine._periodics.stop()
            self.paused = True

    def resume(self) -> None:
        """Beat at once, then run the tasks again: the API counts the
        engine from the first request on. The API's work runs again
        too (another application set up by a test stopped it)."""
        self.work.start()
        if self.paused:
            from swconfig.engine import heartbeat

            heartbeat.BEAT.beat()
            self.engine._periodics.start()
            self.paused = False


#: The in-process stack's engine, once built on this worker.
_INPROCESS_ENGINES: list[_PausableEngine] = []
_UNIT_TESTS = os.path.join(os.path.dirname(__file__), 'unit')


@pytest.fixture(autouse=True)
def _inprocess_engine_only_beside_its_tests(request):
    """Unit tests run with the in-process engine's background tasks
    paused (unless they use the in-process stack); every other test with
    them running."""
    for engine in _INPROCESS_ENGINES:
        if (str(request.path).startswith(_UNIT_TESTS + os.sep)
                and 'inprocess_stack' not in request.fixturenames):
            engine.pause()
        else:
            engine.resume()


def _separate_stack(backend: str, workdir: str):
    services.ensure_rabbitmq()
    with services.scratch_database(backend) as url:
        port = processes.free_port()
        conf = processes.write_config(
            os.path.join(workdir, 'swconfig.conf'), {
                'DEFAULT': {'auth_strategy': 'noauth',
                            'transport_url': services.RABBIT_URL,
                            'state_path': workdir},
                'agent': {'signing_keys': 'test:' + 'k' * 32},
                'database': {'connection': url},
                'api': {'bind_host': '127.0.0.1', 'bind_port': port,
                        'poll_time_interval': 1},
                'engine': {'topic': f'swconfig-test-{uuid.uuid4().hex}'},
            })
        subprocess.run([processes.script('swconfig-manage'),
                        '--config-file', conf, 'db', 'sync'], check=True,
                       capture_output=True)
        engine = processes.SwconfigProcess('swconfig-engine', conf,
                                           workdir).start()
        api = processes.SwconfigProcess('swconfig-api', conf,
                                        workdir).start()
        try:
            base = f'http://127.0.0.1:{port}'
            processes.wait_for_http(base + '/', api)
            engine.wait_for_log(processes.ENGINE_READY)
            yield api_client.HttpClient(base, backend), api, engine
        finally:
            api.stop()
            engine.stop()


@pytest.fixture(scope='session')
def mysql_stack(tmp_path_factory):
    yield from _separate_stack('mysql',
                               str(tmp_path_factory.mktemp('mysql-stack')))


@pytest.fixture(scope='session')
def postgresql_stack(tmp_path_factory):
    yield from _separate_stack(
        'postgresql', str(tmp_path_factory.mktemp('postgresql-stack')))


@pytest.fixture
def project() -> str:
    """A project id of this test's own."""
    return f'p-{uuid.uuid4().hex[:12]}'
