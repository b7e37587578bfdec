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

"""A repeat poll answered by ``RepeatPolls`` is the answer the whole path
gives, and everything it cannot vouch for goes the whole path."""

import datetime
import io
import json
import re
import sys
import urllib.parse
import uuid

import pytest
import webtest

from swconfig.api import app as api_app
from swconfig.api import response_body
from swconfig.api.agent import metadata_cache
from swconfig.api.agent import poll_times
from swconfig.api.agent import repeat_polls
from swconfig.api.agent import request_ids as request_id
from tests.fixtures import api_client
from tests.functional.api import helpers

UPDATED_AT = datetime.datetime(2026, 11, 26, 12, 0, 0)
REQUEST_ID = re.compile(r'^req-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$')


class _Counted:
    """The app behind the front, counting what reaches it."""

    def __init__(self, app):
        self.app = app
        self.calls = 0

    def __call__(self, environ, start_response):
        self.calls += 1
        return self.app(environ, start_response)


@pytest.fixture
def front(inprocess_stack, set_conf):
    """The application as served, its router counted."""
    # No warm-up in the background: its own read of the change log could
    # hold the read a test makes due, leaving the next poll to the router.
    set_conf('metadata_cache_warm', False, group='api')
    front = api_app.setup_app()
    front.app = _Counted(front.app)
    # No read of the change log falls due on its own while a test runs
    # (on a loaded machine a second may pass between two requests): the
    # tests' writes expire the cache, and the tests make reads due.
    front.cache.freshness = 60.0
    return front


def _call(front, method, path, query='', **headers):
    environ = {'REQUEST_METHOD': method, 'PATH_INFO': path,
               'QUERY_STRING': query, 'SERVER_NAME': 'localhost',
               'SERVER_PORT': '80', 'SERVER_PROTOCOL': 'HTTP/1.1',
               'SCRIPT_NAME': '', 'wsgi.url_scheme': 'http',
               'wsgi.input': io.BytesIO(), 'wsgi.errors': sys.stderr,
               'wsgi.version': (1, 0), 'wsgi.multithread': True,
               'wsgi.multiprocess': False, 'wsgi.run_once': False}
    environ.update(headers)
    if query is None:  # PEP 3333: the key may be absent
        del environ['QUERY_STRING']
    answer = []

    def start_response(status, headers, exc_info=None):
        answer[:] = (status, list(headers))

    chunks = front(environ, start_response)
    # Every answer can be closed without an AttributeError (uWSGI asks).
    assert isinstance(chunks, response_body.Body), type(chunks)
    body = b''.join(chunks)
    chunks.close()
    return answer[0], answer[1], body


def _server(front, deployments=1):
    """A new server with ``deployments``, and its poll's path and query."""
    client = api_client.WebTestClient(webtest.TestApp(front))
    project = f'p-{uuid.uuid4().hex[:8]}'
    server = f's-{uuid.uuid4().hex[:8]}'
    config = helpers.create_config(client, project, config='echo hi')
    for _ in range(deployments):
        helpers.create_deployment(client, project, server_id=server,
                                  config_id=config['id'])
    reply = client.get(f'/v1/{project}/servers/{server}/agent-config')
    assert reply.status == 200, reply.text
    url = reply.json['os-collect-config']['request']['metadata_url']
    parts = urllib.parse.urlsplit(url)
    return client, project, config, server, parts.path, parts.query


def _without_id(headers):
    ids = [value for name, value in headers if name == request_id.HEADER]
    assert len(ids) == 1 and REQUEST_ID.match(ids[0]), headers
    return [(name, value) for name, value in headers
            if name != request_id.HEADER], ids[0]


def _etag(headers):
    return dict(headers)['ETag']


@pytest.mark.parametrize('method, conditional', [
    ('GET', False), ('HEAD', False), ('GET', True), ('HEAD', True)])
def test_a_repeat_poll_gets_the_first_answer_without_the_router(
        front, method, conditional):
    _client, _project, _config, server, path, query = _server(front)
    headers = {}
    if conditional:
        _status, got, _body = _call(front, 'GET', path, query)
        headers['HTTP_IF_NONE_MATCH'] = _etag(got)
    first = _call(front, method, path, query, **headers)
    routed = front.app.calls
    assert front.noted is poll_times.noted()
    front.noted.pop(server)
    second = _call(front, method, path, query, **headers)
    assert front.app.calls == routed  # the front answered
    assert front.noted[server] == pytest.approx(poll_times.CLOCK(), abs=5)
    assert first[0] == second[0] == (
        '304 Not Modified' if conditional else '200 OK')
    assert first[2] == second[2]
    if method == 'GET' and not conditional:
        assert json.loads(second[2])['deployments']
    else:
        assert second[2] == b''
    first_headers, first_id = _without_id(first[1])
    second_headers, second_id = _without_id(second[1])
    assert first_headers == second_headers
    assert first_id != second_id


def test_what_the_front_cannot_vouch_for_goes_to_the_router(front):
    _client, _project, _config, _server_id, path, query = _server(front)
    status, headers, _body = _call(front, 'GET', path, query)
    assert status == '200 OK'
    etag = _etag(headers)
    calls = front.app.calls

    def routed(expected_status, *args, **headers):
        nonlocal calls
        status, _headers, _body = _call(front, *args, **headers)
        assert status.startswith(expected_status), (args, headers, status)
        assert front.app.calls == calls + 1, (args, headers)
        calls += 1

    # Another query string: its token is checked (and refused) again.
    routed('403', 'GET', path, query + 'x')
    routed('403', 'GET', path, 'token=forged')
    # Other methods, and ETags the front does not compare.
    routed('405', 'PUT', path, query)
    routed('304', 'GET', path, query, HTTP_IF_NONE_MATCH='W/' + etag)
    routed('304', 'GET', path, query,
           HTTP_IF_NONE_MATCH=f'"other", {etag}')
    routed('200', 'GET', path, query, HTTP_IF_NONE_MATCH='"other"')
    # Another spelling of the path.
    routed('200', 'GET', path + '/', query)
    # A read of the change log is due: the router reads it, and records
    # the poll again.
    front.cache.read_due_at = float('-inf')
    routed('200', 'GET', path, query)
    _call(front, 'GET', path, query)
    assert front.app.calls == calls


def test_a_changed_document_is_never_answered_from_the_record(front):
    client, project, config, server, path, query = _server(front)
    _status, _headers, body = _call(front, 'GET', path, query)
    assert len(json.loads(body)['deployments']) == 1
    _call(front, 'GET', path, query)
    # A write through this worker expires its cache: the next poll reads
    # the change log and gets the new document.
    helpers.create_deployment(client, project, server_id=server,
                              config_id=config['id'])
    calls = front.app.calls
    _status, _headers, body = _call(front, 'GET', path, query)
    assert front.app.calls == calls + 1
    assert len(json.loads(body)['deployments']) == 2
    # An entry replaced in the cache (as another worker's change, once
    # read) is not the recorded one either.
    entry = front.cache.entries[server]
    replaced = metadata_cache.entry_of({
        'etag': 'e2',
        'token_revision': metadata_cache.token_revision(entry),
        'document': '{"deployments":[]}', 'updated_at': UPDATED_AT})
    front.cache.entries[server] = replaced
    _status, headers, body = _call(front, 'GET', path, query)
    assert front.app.calls == calls + 2
    assert body == b'{"deployments":[]}' and _etag(headers) == '"e2"'


def test_an_unverified_entry_is_never_answered_from_the_record(front):
    """An entry whose token was not verified yet (a replacement, or one
    warmed up) goes to the router, which checks the token, even for a
    request without a query string at all."""
    _client, _project, _config, server, path, query = _server(front)
    assert _call(front, 'GET', path, query)[0] == '200 OK'
    entry = front.cache.entries[server]
    unverified = metadata_cache.entry_of({
        'etag': metadata_cache.etag(entry),
        'token_revision': metadata_cache.token_revision(entry),
        'document': metadata_cache.content(entry).decode(),
        'updated_at': UPDATED_AT})
    assert metadata_cache.verified_query(unverified) is None
    front.cache.entries[server] = unverified
    calls = front.app.calls
    status, _headers, body = _call(front, 'GET', path, None)
    assert status.startswith('403'), (status, body)
    assert front.app.calls == calls + 1
    assert front.cache.entries[server] is unverified


def test_an_unknown_server_and_a_bad_token_are_not_recorded(front):
    _client, _project, _config, _server_id, path, query = _server(front)
    assert _call(front, 'GET', path, 'token=forged')[0].startswith('403')
    assert _call(front, 'GET', '/agent/servers/nobody/metadata',
                 query)[0].startswith('404')
    assert path not in front.polls
    assert '/agent/servers/nobody/metadata' not in front.polls


def test_polls_are_bounded_by_the_cache_size():
    polls = repeat_polls.Polls(2)
    for number in range(5):
        polls.record(f'/p{number}', f's{number}')
        assert 1 <= len(polls) <= 2
    assert polls['/p4'] == 's4'
    # No cache to hold the entries: nothing recorded.
    no_cache = repeat_polls.Polls(0)
    no_cache.record('/p1', 's1')
    assert not no_cache


def test_the_record_keeps_no_entry_alive(front):
    """What is recorded is the path and server id: an entry the cache
    let go is not kept by the record."""
    _client, _project, _config, server, path, query = _server(front)
    _call(front, 'GET', path, query)
    assert front.polls[path] == server
    entry = front.cache.entries.pop(server)
    assert sys.getrefcount(entry) == 2  # ``entry`` and the call's argument
    del entry
    # The next poll takes the whole path and is answered as before.
    calls = front.app.calls
    status, _headers, body = _call(front, 'GET', path, query)
    assert status == '200 OK' and json.loads(body)['deployments']
    assert front.app.calls == calls + 1


def test_the_front_and_the_cache_share_the_notes_clock():
    """A repeat poll's one clock read is both the cache's freshness check
    and the poll's note: a cache on another clock is refused."""
    cache = metadata_cache.MetadataCache(10, 1.0, clock=lambda: 0.0)
    with pytest.raises(ValueError, match='poll_times.CLOCK'):
        repeat_polls.RepeatPolls(None, repeat_polls.Polls(10), cache)
