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

"""An API worker's background work: the table each configuration runs,
started when the worker starts (the embedded server's start), never by a
request, and rebuilt in a forked child, on threads of its own."""

import threading

import pytest

from swconfig.api import background
from swconfig.api import deployment_watch
from swconfig.api import dispatch
from swconfig.api import routes
from swconfig.api import server
from swconfig.api.agent import application
from swconfig.api.agent import poll_times
from swconfig.common import background as common_background
from tests.fixtures import forking

TABLE = dispatch.RouteTable(routes.ROUTES)


class Counting(common_background.PeriodicTask):
    """Counts its rounds; ``forked`` calls recorded."""

    name = 'counting'

    def __init__(self) -> None:
        self.rounds = 0
        self.forks = 0
        self.ran = threading.Event()

    def interval(self) -> float:
        return 3600.0

    def run(self, partition) -> None:
        self.rounds += 1
        self.ran.set()

    def forked(self) -> None:
        self.forks += 1


@pytest.fixture
def installed():
    """``installed(work)``: ``work`` made this process's for the test;
    the work before put back after it."""
    before = background.current()
    made = []

    def install(work):
        background.install(work)
        made.append(work)
        return work

    yield install
    background.install(before)
    for work in made:
        if work is not None:
            work.stop()


def _names(tasks):
    return [task.name for task in tasks]


def test_the_table_holds_the_five_tasks(set_conf):
    set_conf('poll_time_interval', 15, group='api')
    set_conf('metadata_cache_size', 100, group='api')
    set_conf('metadata_cache_warm', True, group='api')
    agent_app = application.AgentApp(engine_api=None, table=TABLE)
    try:
        tasks = background.table(agent_app)
        assert _names(tasks) == [
            'poll-time-writer', 'deployment-watch', 'server-change-purge',
            'metadata-cache-warm-up', 'signal-notifier']
        assert tasks[0] is poll_times._recorder
        assert tasks[1] is deployment_watch.WATCH
        assert tasks[2].cache is tasks[3].cache is agent_app.cache
        assert tasks[4] is agent_app.notifier
        assert [task.repeated for task in tasks] == [True] * 3 + [
            False, True]
    finally:
        poll_times.reset()


def test_what_is_switched_off_is_not_in_the_table(set_conf):
    set_conf('poll_time_interval', 0, group='api')
    set_conf('metadata_cache_size', 0, group='api')
    set_conf('metadata_cache_warm', True, group='api')
    try:
        assert _names(background.table(application.AgentApp(None, TABLE))) == [
            'deployment-watch', 'signal-notifier']
        set_conf('metadata_cache_size', 10, group='api')
        set_conf('metadata_cache_warm', False, group='api')
        assert _names(background.table(application.AgentApp(None, TABLE))) == [
            'deployment-watch', 'server-change-purge', 'signal-notifier']
    finally:
        poll_times.reset()


def test_the_work_starts_once_and_stops(installed):
    task = Counting()
    tables = []
    work = installed(background.Work(lambda: tables.append(1) or [task]))
    assert not work.running and task.rounds == 0
    background.start()
    background.start()  # a second start runs nothing twice
    assert task.ran.wait(10)
    assert work.running and tables == [1] and task.rounds == 1
    threads = [thread for thread in threading.enumerate()
               if thread.name == 'periodic-counting']
    assert len(threads) == 1
    background.stop()
    assert not work.running and not threads[0].is_alive()


def test_nothing_is_prepared_nothing_starts(installed):
    installed(None)
    background.start()
    background.stop()
    assert background.current() is None


def test_a_second_application_replaces_the_work_of_the_first(installed):
    first_task, second_task = Counting(), Counting()
    first = installed(background.Work(lambda: [first_task]))
    first.start()
    second = installed(background.Work(lambda: [second_task]))
    assert not first.running and background.current() is second


def test_the_embedded_server_starts_and_stops_the_workers_work(installed):
    task = Counting()
    work = installed(background.Work(lambda: [task]))

    def hello(environ, start_response):
        start_response('200 OK', [('Content-Length', '0')])
        return [b'']

    service = server.WSGIService(hello, '127.0.0.1', 0, threads=1)
    assert not work.running
    service.start()
    try:
        assert work.running
        assert task.ran.wait(10)
    finally:
        service.stop()
    assert not work.running


def test_a_forked_child_rebuilds_the_work_on_threads_of_its_own(
        installed):
    """A real fork: the child's fork hook calls ``forked`` on every task
    and runs them again, in the child, on new threads; the parent's work
    goes on as it was."""
    task = Counting()
    work = installed(background.Work(lambda: [task]))
    work.start()
    assert task.ran.wait(10)

    def child_report():
        threads = [thread for thread in threading.enumerate()
                   if thread.name == 'periodic-counting']
        ok = (task.forks == 1 and work.running
              and len(threads) == 1 and threads[0].is_alive()
              and task.ran.wait(10) and task.rounds == 2)
        return b'ok' if ok else b'no'

    assert forking.in_forked_child(child_report) == b'ok'
    assert task.forks == 0 and task.rounds == 1 and work.running


def test_work_not_started_is_not_started_by_a_fork(installed):
    """swconfig-api forks its workers before they start: each starts its
    own, the parent none."""
    task = Counting()
    work = installed(background.Work(lambda: [task]))
    work.forked()
    assert not work.running and task.forks == 0


def test_a_poll_starts_nothing_in_the_background():
    """No request thread starts background work, not even the writer of
    the poll times it notes: only a worker's start does."""
    before = set(threading.enumerate())
    try:
        poll_times.note('server')
        assert set(threading.enumerate()) - before == set()
    finally:
        poll_times.reset()
