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

"""The cheroot server of swconfig-api and swconfig-all: its listen
backlog and how many idle keep-alive connections it keeps, checked over
real sockets on 127.0.0.1."""

import http.client

import pytest

from swconfig.api import server


def _hello(environ, start_response):
    start_response('200 OK', [('Content-Type', 'text/plain'),
                              ('Content-Length', '2')])
    return [b'ok']


@pytest.fixture
def serve():
    started = []

    def _serve():
        service = server.WSGIService(_hello, '127.0.0.1', 0, threads=4)
        service.start()
        started.append(service)
        return service

    yield _serve
    for service in started:
        service.stop()


def _keeps_alive(connections):
    """GET / once on each connection, in turn, leaving each open; whether
    the server kept each one."""
    kept = []
    for connection in connections:
        connection.request('GET', '/')
        response = connection.getresponse()
        assert response.read() == b'ok'
        kept.append(response.getheader('Connection') != 'close')
    return kept


def test_listen_backlog_is_the_configured_one(serve, set_conf):
    set_conf('backlog', 321, group='api')
    service = serve()
    assert service.server.request_queue_size == 321


def test_many_pollers_keep_their_connections(serve):
    """64 agents polling over keep-alive connections are not made to
    reconnect after every request (cheroot alone keeps 10)."""
    service = serve()
    connections = [http.client.HTTPConnection('127.0.0.1', service.port,
                                              timeout=5)
                   for _ in range(64)]
    try:
        assert _keeps_alive(connections) == [True] * 64
    finally:
        for connection in connections:
            connection.close()


def test_idle_connections_past_the_limit_are_closed(serve, set_conf):
    set_conf('max_keepalive_connections', 2, group='api')
    service = serve()
    connections = [http.client.HTTPConnection('127.0.0.1', service.port,
                                              timeout=5)
                   for _ in range(3)]
    try:
        assert _keeps_alive(connections) == [True, True, False]
    finally:
        for connection in connections:
            connection.close()
