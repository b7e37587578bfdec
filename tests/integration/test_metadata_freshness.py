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

"""The agent poll is served from each API worker's memory, at most
``[api] metadata_cache_freshness`` (1 s by default) stale: with real
processes (swconfig-api with 2 workers and a swconfig-engine on MariaDB,
then PostgreSQL, and RabbitMQ), after a deployment is created, changed,
signalled or deleted, every worker serves the new document once the
bound passed, and never the old one after it.

Each poll is a fresh connection (SO_REUSEPORT spreads them over the
workers' sockets) and the worker that accepted it is found through
/proc: the process holding the server end of that connection. The moment
of each change is bounded from above by reading the server's ETag from
the database until it changes (the commit happened before that read).
A stack with a 30 s bound shows the same polls can see a stale
document: the cache really serves from memory.
"""

import collections
import contextlib
import http.client
import time
import urllib.parse

import psutil
import pytest
import requests
import sqlalchemy as sa

from tests.fixtures import agent_stacks
from tests.fixtures import services

BOUND = 1.0  # the default [api] metadata_cache_freshness
PROJECT = 'freshness'
SERVER = 'freshness-server'
PER_WORKER = 5  # polls each worker answers after the bound


@contextlib.contextmanager
def _two_worker_stack(workdir, api=None, backend='mysql'):
    services.ensure_rabbitmq()
    with services.scratch_database(backend) as url:
        with agent_stacks.separate_stack(
                str(workdir), url, services.RABBIT_URL,
                api=dict({'workers': 2}, **(api or {})),
                name='two-workers') as stack:
            yield stack


@pytest.fixture(scope='module', params=('mysql', 'postgresql'))
def stack(request, tmp_path_factory):
    with _two_worker_stack(tmp_path_factory.mktemp('freshness'),
                           backend=request.param) as stack:
        yield stack


class Poller:
    """Fresh-connection polls of one metadata URL, each with the pid of
    the API worker that answered it."""

    def __init__(self, stack: agent_stacks.Stack, url: str) -> None:
        self.stack = stack
        parts = urllib.parse.urlsplit(url)
        self.path = f'{parts.path}?{parts.query}'
        self.port = urllib.parse.urlsplit(stack.base_url).port
        self.workers = stack.processes['api'].children()
        assert len(self.workers) == 2, self.workers

    def _worker(self, client_port: int) -> int:
        for pid in self.workers:
            for connection in psutil.Process(pid).net_connections('tcp'):
                if (connection.laddr.port == self.port and connection.raddr
                        and connection.raddr.port == client_port):
                    return pid
        raise AssertionError(f'no API worker holds the connection from '
                             f'port {client_port}')

    def poll(self) -> tuple[float, int, str]:
        """(when the poll started, the worker's pid, the ETag)."""
        started = time.monotonic()
        connection = http.client.HTTPConnection('127.0.0.1', self.port,
                                                timeout=30)
        try:
            connection.request('GET', self.path)
            reply = connection.getresponse()
            reply.read()
            assert reply.status == 200, reply.status
            # Still open: the worker holds its end.
            worker = self._worker(connection.sock.getsockname()[1])
            return started, worker, reply.getheader('ETag')
        finally:
            connection.close()

    def until_every_worker(self, accept, count: int = PER_WORKER,
                           timeout: float = 30) -> list:
        """Poll until each worker answered ``count`` polls ``accept``
        takes; every poll made."""
        polls = []
        deadline = time.monotonic() + timeout
        while True:
            polls.append(self.poll())
            counted = [worker for started, worker, etag in polls
                       if accept(started, etag)]
            if all(counted.count(pid) >= count for pid in self.workers):
                return polls
            assert time.monotonic() < deadline, (
                f'in {timeout}s: {_summary(polls, self.workers)}; every '
                f'poll (started, pid, ETag): {polls}')


def _summary(polls: list, workers: set[int]) -> str:
    """How many polls each worker answered with each ETag, first: the
    full list may be cut short in a report."""
    counts = collections.Counter((worker, etag) for _, worker, etag in polls)
    return ', '.join(f'{worker} answered {etag} x{count}'
                     for (worker, etag), count in sorted(
                         counts.items(), key=str)) + (
        f' (workers {sorted(workers)})')


def _db_etag(stack: agent_stacks.Stack) -> str:
    with stack.db.connect() as connection:
        return connection.execute(
            sa.text('SELECT etag FROM server WHERE id = :id'),
            {'id': SERVER}).scalar()


def _changed(stack: agent_stacks.Stack, before: str,
             timeout: float = 30) -> tuple[float, str]:
    """(a moment after the change committed, the new ETag as served)."""
    deadline = time.monotonic() + timeout
    while True:
        etag = _db_etag(stack)
        if etag != before:
            return time.monotonic(), f'"{etag}"'
        assert time.monotonic() < deadline, f'{SERVER} did not change'
        time.sleep(0.01)


def _check_change(poller: Poller, before: str, change) -> str:
    """Both workers hold ``before``; make ``change``; every poll started
    more than the bound after it committed gets the new document, from
    both workers. The new ETag."""
    poller.until_every_worker(lambda _started, etag: etag == before, 2)
    change()
    committed, after = _changed(poller.stack, before.strip('"'))
    polls = poller.until_every_worker(
        lambda started, _etag: started > committed + BOUND)
    late = [(started - committed, worker, etag)
            for started, worker, etag in polls
            if started > committed + BOUND]
    stale = [poll for poll in late if poll[2] != after]
    assert not stale, f'stale past the bound (s after commit, pid, ETag): ' \
                      f'{stale}; new ETag {after}'
    assert {worker for _, worker, _ in late} == poller.workers
    return after


def test_every_worker_serves_each_change_within_the_bound(stack):
    config = stack.create_config(PROJECT, '#!/bin/sh\necho one')
    other = stack.create_config(PROJECT, '#!/bin/sh\necho two')
    poller = Poller(stack, stack.metadata_url(PROJECT, SERVER))
    etag = poller.poll()[2]
    deployment = {}

    def create():
        deployment.update(stack.deploy(PROJECT, config['id'], SERVER))

    etag = _check_change(poller, etag, create)

    def change():
        stack._json('PUT', f'/v1/{PROJECT}/software_deployments/'
                           f'{deployment["id"]}',
                    json={'config_id': other['id']})

    etag = _check_change(poller, etag, change)

    # A one-off action leaves the document once it completes: the
    # engine's render, after the signal.
    backup = {}

    def create_backup():
        backup.update(stack.deploy(PROJECT, config['id'], SERVER,
                                   action='BACKUP'))

    etag = _check_change(poller, etag, create_backup)

    def signal():
        reply = requests.put(stack.signal_url(PROJECT, backup), timeout=30,
                             json={'deploy_status_code': 0})
        assert reply.status_code == 200, reply.text

    etag = _check_change(poller, etag, signal)
    assert stack.deployment(PROJECT, backup['id'])['status'] == 'COMPLETE'

    def delete():
        reply = stack.request('DELETE', f'/v1/{PROJECT}/software_'
                                        f'deployments/{deployment["id"]}')
        assert reply.status_code == 204, reply.text

    _check_change(poller, etag, delete)


def test_a_longer_bound_serves_the_held_document(tmp_path):
    """The test above can fail: with a 30 s bound, a worker still serves
    the document it holds more than 1 s after a change committed."""
    with _two_worker_stack(tmp_path, {'metadata_cache_freshness': 30}
                           ) as slow:
        config = slow.create_config(PROJECT, '#!/bin/sh\necho one')
        poller = Poller(slow, slow.metadata_url(PROJECT, SERVER))
        before = poller.poll()[2]
        poller.until_every_worker(lambda _started, etag: etag == before, 2)
        slow.deploy(PROJECT, config['id'], SERVER)
        committed, _after = _changed(slow, before.strip('"'))
        # Whichever worker answered the deployment's creation, the
        # other holds the old document for up to 30 s.
        deadline = committed + 20
        while True:
            started, _worker, etag = poller.poll()
            if started > committed + BOUND and etag == before:
                break
            assert time.monotonic() < deadline, 'no stale document seen'
