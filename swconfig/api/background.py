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

"""Everything an API worker does in the background, in one table, started
with the worker and rebuilt in a forked one.

``table()`` lists the tasks: the poll-time writer
(``agent.poll_times``), the deployment watch of ``?wait`` requests
(``deployment_watch``), the purge of the server change log and the warm-up
of the metadata cache (``agent.metadata_cache``), and the signal notifier
(``agent.signal_notifier``). They run with the runner every process uses
(``swconfig.common.background``): a thread each, and while the database
is unreachable a backoff and one log line when the outage starts and one
when it ends. No request thread runs any of them.

``setup_app`` names the application's tasks (``prepare``); they start
when a worker starts (``start``): the embedded server's start
(swconfig-api, swconfig-all), or the WSGI module's loading under uWSGI
or gunicorn (``start_in_each_worker``). A worker forked from a process
whose work had started (gunicorn's ``--preload``) rebuilds it in one
place, ``_after_fork``: each task drops what the parent's threads held,
and a runner of the child's own starts them again. uWSGI forks without
Python's fork hooks: when it loads the application before forking (no
``lazy-apps``), the work starts in each worker after the fork, from its
post-fork hook, and never in the master.
"""

from collections.abc import Callable
import os
import threading

from oslo_log import log

from swconfig.api import deployment_watch
from swconfig.api.agent import application
from swconfig.api.agent import metadata_cache
from swconfig.api.agent import poll_times
from swconfig.common import background
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)


def table(agent_app: application.AgentApp) -> list[background.PeriodicTask]:
    """The background work of an API worker serving ``agent_app``."""
    tasks: list[background.PeriodicTask] = []
    writer = poll_times.writer()
    if writer.interval() > 0:
        tasks.append(writer)
    tasks.append(deployment_watch.WATCH)
    cache = agent_app.cache
    if cache.size:
        tasks.append(metadata_cache.ChangeLogPurge(cache))
        if cache.warms:
            tasks.append(metadata_cache.WarmUp(cache))
    tasks.append(agent_app.notifier)
    return tasks


class Work:
    """One process's background work: the tasks ``make_table`` lists,
    run from ``start`` until ``stop``."""

    def __init__(self,
                 make_table: Callable[[], list[background.PeriodicTask]]
                 ) -> None:
        self._make_table = make_table
        self._runner: background.Runner | None = None
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._runner is not None

    def start(self) -> None:
        """Start the tasks, unless they run already."""
        with self._lock:
            if self._runner is None:
                self._run(self._make_table())

    def stop(self) -> None:
        with self._lock:
            runner, self._runner = self._runner, None
        if runner is not None:
            runner.stop()

    def forked(self) -> None:
        """In a forked child of a process whose work ran: the same tasks,
        each rid of what the parent's threads held, on threads of the
        child's own."""
        self._lock = threading.Lock()
        runner = self._runner
        if runner is None:
            return
        for task in runner.tasks:
            task.forked()
        self._run(runner.tasks)

    def _run(self, tasks: list[background.PeriodicTask]) -> None:
        runner = background.Runner(tasks, background.Everything(),
                                   db_api.is_outage)
        runner.start()
        self._runner = runner


#: This process's work: the last application set up's.
_WORK: Work | None = None


def prepare(agent_app: application.AgentApp) -> Work:
    """Name the background work of an application serving ``agent_app``
    (``setup_app``); it starts with ``start``."""
    return install(Work(lambda: table(agent_app)))


def install(work: Work | None) -> Work | None:
    """Make ``work`` this process's, the one ``start`` starts and a
    forked child rebuilds; the work it replaces is stopped."""
    global _WORK
    if _WORK is not None and _WORK is not work:
        _WORK.stop()
    _WORK = work
    return work


def current() -> Work | None:
    """This process's work: the last application set up's."""
    return _WORK


def start() -> None:
    """Start this process's work (a worker starts); nothing to start
    before an application is set up."""
    if _WORK is not None:
        _WORK.start()


def stop() -> None:
    if _WORK is not None:
        _WORK.stop()


def start_in_each_worker() -> None:
    """``start`` as a WSGI server's worker loads the application: now,
    unless a uWSGI master loads it before forking its workers; then in
    each worker, just after its fork."""
    try:
        import uwsgi  # only under uWSGI
        import uwsgidecorators
    except ImportError:
        start()
        return
    if uwsgi.worker_id() == 0:
        LOG.info('Application loaded in the uWSGI master: each worker '
                 'starts its background work after its fork')
        uwsgidecorators.postfork(start)
    else:
        start()


def _after_fork() -> None:
    """The one fork handler: a forked child's work, rebuilt if it ran."""
    if _WORK is not None:
        _WORK.forked()


os.register_at_fork(after_in_child=_after_fork)
