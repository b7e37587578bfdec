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

"""Document pushes: every marked server is found, page by page, and the
mark is cleared only after its transport took the document."""

import logging

import pytest

from swconfig import transports
from swconfig.common import exception
from swconfig.db import api as db_api
from swconfig.engine import document_push
from swconfig.engine import periodics

LOGGER = document_push.__name__


def server(n, revision=1):
    return {'id': f'server-{n:03d}', 'tenant': 'p-1',
            'config_transport': 'POLL_TEMP_URL', 'token_revision': 1,
            'document': f'{{"server": {n}}}', 'etag': f'e{n}',
            'document_revision': revision}


@pytest.fixture
def marked(monkeypatch):
    """``marked(count)``: that many servers marked for a push; returns
    the (limit, after) of each query made."""
    queries = []

    def make(count):
        servers = [server(n) for n in range(count)]

        def server_push_pending(context, limit, after=''):
            assert context.is_admin
            queries.append((limit, after))
            return [row for row in servers if row['id'] > after][:limit]

        monkeypatch.setattr(db_api, 'server_push_pending',
                            server_push_pending)
        return servers, queries

    return make


def test_pending_servers_pages_until_a_short_page(marked, monkeypatch):
    monkeypatch.setattr(document_push, 'PAGE', 3)
    servers, queries = marked(7)
    assert list(document_push.pending_servers()) == servers
    assert queries == [(3, ''), (3, 'server-002'), (3, 'server-005')]


def test_a_full_last_page_is_followed_by_an_empty_one(marked, monkeypatch):
    monkeypatch.setattr(document_push, 'PAGE', 3)
    servers, queries = marked(6)
    assert list(document_push.pending_servers()) == servers
    assert queries == [(3, ''), (3, 'server-002'), (3, 'server-005')]


def test_pending_servers_with_the_real_page_size(marked):
    servers, queries = marked(document_push.PAGE + 1)
    assert list(document_push.pending_servers()) == servers
    assert queries == [(document_push.PAGE, ''),
                       (document_push.PAGE,
                        servers[document_push.PAGE - 1]['id'])]


def test_nothing_marked_is_one_query(marked):
    _servers, queries = marked(0)
    assert list(document_push.pending_servers()) == []
    assert queries == [(document_push.PAGE, '')]


def test_pages_are_read_as_they_are_needed(marked, monkeypatch):
    monkeypatch.setattr(document_push, 'PAGE', 2)
    servers, queries = marked(5)
    pending = document_push.pending_servers()
    assert next(pending) == servers[0]
    assert next(pending) == servers[1]
    assert queries == [(2, '')]


class Transport:
    name = 'POLL_TEMP_URL'
    pushes_document = True

    def __init__(self, events, failure=None):
        self.events = events
        self.failure = failure

    def push(self, server, document):
        self.events.append(('push', server['id'], document))
        if self.failure is not None:
            raise self.failure


@pytest.fixture
def pushing(monkeypatch):
    """``pushing(failure=None, done=True)``: the events of the pushes and
    of the marks cleared, in order."""
    events = []

    def setup(failure=None, done=True):
        transport = Transport(events, failure)

        def get_metadata(name):
            events.append(('transport', name))
            return transport

        def server_push_done(context, server_id, document_revision):
            assert context.is_admin
            events.append(('done', server_id, document_revision))
            return done

        monkeypatch.setattr(transports, 'get_metadata', get_metadata)
        monkeypatch.setattr(db_api, 'server_push_done', server_push_done)
        return events

    return setup


def test_push_hands_the_document_over_then_clears_the_mark(pushing,
                                                           caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    events = pushing()
    document_push.push(server(7, revision=4))
    assert events == [('transport', 'POLL_TEMP_URL'),
                      ('push', 'server-007', '{"server": 7}'),
                      ('done', 'server-007', 4)]
    assert 'Pushed document revision 4 of server server-007 ' \
        '(POLL_TEMP_URL)' in caplog.text


def test_a_document_changed_meanwhile_is_not_logged_as_pushed(pushing,
                                                              caplog):
    """The mark stays (the database refused to clear it): the next round
    pushes the newer document."""
    caplog.set_level(logging.INFO, logger=LOGGER)
    events = pushing(done=False)
    document_push.push(server(7, revision=4))
    assert events[-1] == ('done', 'server-007', 4)
    assert 'Pushed document' not in caplog.text


def test_an_outage_of_the_transport_leaves_the_mark(pushing):
    events = pushing(failure=exception.BackendUnavailable(
        service='Swift', reason='503'))
    with pytest.raises(exception.BackendUnavailable):
        document_push.push(server(7))
    assert ('push', 'server-007', '{"server": 7}') in events
    assert not any(event[0] == 'done' for event in events)


def test_an_outage_of_one_transport_does_not_stop_the_others_pushes(
        marked, monkeypatch):
    """Swift is down: its servers keep their marks, a Zaqar server later
    in the round is still pushed, and the round ends with the outage so
    the runner backs off and logs it once."""
    servers, _queries = marked(3)
    servers[2]['config_transport'] = 'ZAQAR_MESSAGE'
    pushed, done = [], []

    class Down:
        name = 'POLL_TEMP_URL'

        def push(self, row, document):
            raise exception.BackendUnavailable(service='Swift',
                                               reason='proxy stopped')

    class Up:
        name = 'ZAQAR_MESSAGE'

        def push(self, row, document):
            pushed.append(row['id'])

    monkeypatch.setattr(transports, 'get_metadata', lambda name: (
        Up() if name == 'ZAQAR_MESSAGE' else Down()))
    monkeypatch.setattr(db_api, 'server_push_done',
                        lambda ctx, sid, rev: done.append(sid) or True)
    with pytest.raises(exception.BackendUnavailable):
        periodics.DocumentPush().handle(iter(servers))
    assert pushed == done == ['server-002']
