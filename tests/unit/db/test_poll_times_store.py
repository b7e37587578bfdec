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

"""``server_poll_times_store`` on every real backend: one UPDATE per 500
servers, and a stored poll time never moved backwards (several API
workers write, each with the polls it served)."""

import datetime
import threading

import sqlalchemy as sa

from swconfig.db import api as db_api
from swconfig.db import models
from swconfig.db.agent_path import agent_engine
from tests.unit.db import backends

_SERVER = models.Server.__table__
T0 = datetime.datetime(2026, 12, 5, 10, 0, 0, 123456)
SECOND = datetime.timedelta(seconds=1)


def _servers(facade, count: int) -> list[str]:
    ids = [f'server-{n:05d}' for n in range(count)]
    with facade.writer.get_engine().begin() as connection:
        connection.execute(_SERVER.insert(), [
            {'id': server_id, 'tenant': 'p1', 'token_revision': 1,
             'document_revision': 0, 'created_at': T0, 'updated_at': T0}
            for server_id in ids])
    return ids


def _stored(facade) -> dict[str, datetime.datetime | None]:
    with facade.writer.get_engine().connect() as connection:
        return dict(connection.execute(
            sa.select(_SERVER.c.id, _SERVER.c.last_poll_at)).all())


class _Updates:
    """UPDATE statements this thread sends to the agent path's engine
    (another test's or the driver's threads are not counted)."""

    def __init__(self) -> None:
        self.engine, _statements = agent_engine()
        self.thread = threading.get_ident()
        self.count = 0
        self.statements: set[str] = set()

    def __enter__(self) -> '_Updates':
        sa.event.listen(self.engine, 'before_cursor_execute', self._seen)
        return self

    def __exit__(self, *exc: object) -> None:
        sa.event.remove(self.engine, 'before_cursor_execute', self._seen)

    def _seen(self, connection, cursor, statement, *args) -> None:
        if (threading.get_ident() == self.thread
                and statement.lstrip().upper().startswith('UPDATE')):
            self.count += 1
            self.statements.add(statement)


@backends.on_every_backend
def test_1200_servers_are_written_with_3_updates(facade):
    ids = _servers(facade, 1200)
    times = {server_id: T0 + n * datetime.timedelta(microseconds=7)
             for n, server_id in enumerate(ids)}
    with _Updates() as updates:
        db_api.server_poll_times_store(times)
    assert updates.count == 3
    assert _stored(facade) == times  # microseconds kept on every backend


@backends.on_every_backend
def test_every_chunk_is_the_same_statement(facade):
    """A short last chunk and a write of a few servers send the very SQL
    of a full chunk: the statement is built and compiled once, not with
    each chunk's values."""
    ids = _servers(facade, 1003)
    times = {server_id: T0 + n * SECOND for n, server_id in enumerate(ids)}
    with _Updates() as updates:
        db_api.server_poll_times_store(times)
        db_api.server_poll_times_store({ids[0]: T0 + 9999 * SECOND})
    assert updates.count == 4
    assert len(updates.statements) == 1
    assert _stored(facade) == {**times, ids[0]: T0 + 9999 * SECOND}


@backends.on_every_backend
def test_a_poll_time_only_moves_forward(facade):
    ids = _servers(facade, 4)
    # Two workers' notes: the first saw later polls of 0 and 1, the
    # second later polls of 2 and 3, and writes after the first.
    first = {ids[0]: T0 + 5 * SECOND, ids[1]: T0 + 5 * SECOND,
             ids[2]: T0 + SECOND}
    second = {ids[0]: T0 + SECOND, ids[1]: T0 + 5 * SECOND,
              ids[2]: T0 + 3 * SECOND, ids[3]: T0 + 2 * SECOND}
    db_api.server_poll_times_store(first)
    db_api.server_poll_times_store(second)
    assert _stored(facade) == {ids[0]: T0 + 5 * SECOND,
                               ids[1]: T0 + 5 * SECOND,
                               ids[2]: T0 + 3 * SECOND,
                               ids[3]: T0 + 2 * SECOND}


@backends.on_every_backend
def test_racing_writers_keep_the_newest_time(facade):
    """Two threads (each its own connection, as two API workers) write
    opposite orders of the same servers' times at once."""
    ids = _servers(facade, 600)
    older = dict.fromkeys(ids, T0)
    newer = dict.fromkeys(ids, T0 + SECOND)
    errors = []

    def write(times: dict) -> None:
        try:
            for _ in range(5):
                db_api.server_poll_times_store(times)
        except Exception as exc:  # shown by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(times,))
               for times in (newer, older)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert set(_stored(facade).values()) == {T0 + SECOND}


@backends.on_every_backend
def test_unknown_servers_are_ignored(facade):
    ids = _servers(facade, 1)
    db_api.server_poll_times_store({ids[0]: T0, 'deleted-server': T0})
    assert _stored(facade) == {ids[0]: T0}
