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

"""The HTTP server of swconfig-api and swconfig-all (granian on a thread
of the process): its listen backlog, keep-alive, a port in use, several
workers on one port and stopping with a request in progress, checked over
real sockets on 127.0.0.1."""

import http.client
import os
import socket
import subprocess
import threading

import pytest

from swconfig.api import server
from swconfig.common import exception

#: Released by a test to let the /slow request end.
_RELEASE = threading.Event()
#: Released once by each /slow request when it starts to wait.
_SLOW_STARTED = threading.Semaphore(0)


#: Set when /refuse has answered (without reading the request's body).
_REFUSED = threading.Event()


def _hello(environ, start_response):
    if environ['PATH_INFO'] == '/slow':
        _SLOW_STARTED.release()
        _RELEASE.wait(30)
    if environ['PATH_INFO'] == '/refuse':
        _REFUSED.set()
        start_response('403 Forbidden', [('Content-Length', '0')])
        return [b'']
    body = environ['REQUEST_METHOD'].encode() + b' ok'
    start_response('200 OK', [('Content-Type', 'text/plain'),
                              ('Content-Length', str(len(body)))])
    return [body]


@pytest.fixture
def serve():
    started = []

    def _serve(port=0, reuse_port=False):
        service = server.WSGIService(_hello, '127.0.0.1', port, threads=4,
                                     reuse_port=reuse_port)
        service.start()
        started.append(service)
        return service

    yield _serve
    _RELEASE.set()
    for service in started:
        service.stop()
    _RELEASE.clear()
    while _SLOW_STARTED.acquire(blocking=False):
        pass


def _refuses(port):
    """Whether the port refuses connections within 5 s: granian closes
    its listener on its own thread, just after stop() returns."""
    for _ in range(100):
        try:
            _get(port)
        except ConnectionRefusedError:
            return True
        except ConnectionError:
            pass  # accepted as the listener closed, then dropped
        threading.Event().wait(0.05)
    return False


def _answer(port):
    """GET / once the port answers, within 5 s."""
    for _ in range(100):
        try:
            return _get(port)
        except ConnectionError:
            threading.Event().wait(0.05)
    return _get(port)


def _get(port, path='/', method='GET'):
    connection = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
    try:
        connection.request(method, path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_listen_backlog_is_the_configured_one(serve, set_conf):
    set_conf('backlog', 321, group='api')
    service = serve()
    # For a listening socket, ss shows the backlog as its Send-Q.
    listed = subprocess.run(
        ['ss', '-ltnH', f'sport = :{service.port}'], check=True,
        capture_output=True, text=True).stdout.split()
    assert listed[0] == 'LISTEN'
    assert listed[2] == '321'


def test_head_and_get(serve):
    service = serve()
    assert _get(service.port) == (200, b'GET ok')
    assert _get(service.port, method='HEAD') == (200, b'')


def test_many_pollers_keep_their_connections(serve):
    """64 agents polling over keep-alive connections are not made to
    reconnect after every request: each connection answers twice, and
    the server did not ask to close it."""
    service = serve()
    connections = [http.client.HTTPConnection('127.0.0.1', service.port,
                                              timeout=5)
                   for _ in range(64)]
    try:
        for _ in range(2):
            for connection in connections:
                connection.request('GET', '/')
                response = connection.getresponse()
                assert response.read() == b'GET ok'
                assert response.getheader('Connection') != 'close'
                assert not response.will_close
    finally:
        for connection in connections:
            connection.close()


def _read_answer(sock):
    """Status line and headers (lower-cased names) of one answer without
    a body, read off a raw socket; None if the server closed it."""
    received = b''
    while b'\r\n\r\n' not in received:
        chunk = sock.recv(4096)
        if not chunk:
            return None
        received += chunk
    status, *lines = received.split(b'\r\n\r\n')[0].decode().split('\r\n')
    return status, {name.lower(): value.strip() for name, value in
                    (line.split(':', 1) for line in lines)}


@pytest.mark.parametrize('framing', ['content-length', 'chunked'])
def test_a_body_left_unread_does_not_cost_the_connection(serve, framing):
    """An answer decided before the request's body arrived (a 403 from
    the URL alone): the body is still read, and the client's next
    request on that connection is answered. granian dropped such a
    connection, without a word, when the body came after the answer."""
    service = serve()
    _REFUSED.clear()
    body = b'{"server_id": "s1"}'
    if framing == 'chunked':
        framed = b'%x\r\n%s\r\n0\r\n\r\n' % (len(body), body)
        header = b'Transfer-Encoding: chunked'
    else:
        framed, header = body, b'Content-Length: %d' % len(body)
    with socket.create_connection(('127.0.0.1', service.port),
                                  timeout=10) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(b'POST /refuse HTTP/1.1\r\nHost: t\r\n%s\r\n\r\n'
                     % header)
        assert _REFUSED.wait(10)
        # Let the server go on with the answer before the body comes.
        threading.Event().wait(0.1)
        sock.sendall(framed)
        status, headers = _read_answer(sock)
        assert status == 'HTTP/1.1 403 Forbidden'
        assert headers.get('connection') != 'close'
        sock.sendall(b'GET / HTTP/1.1\r\nHost: t\r\n\r\n')
        again = _read_answer(sock)
        assert again is not None, 'the server dropped the connection'
        assert again[0] == 'HTTP/1.1 200 OK'


def test_a_long_body_left_unread_closes_the_connection(serve, set_conf):
    """A body longer than [api] max_json_body_size is not read to its
    end: the answer says that the connection closes, so the client
    does not send another request on it."""
    set_conf('max_json_body_size', 1024, group='api')
    service = serve()
    connection = http.client.HTTPConnection('127.0.0.1', service.port,
                                            timeout=10)
    try:
        connection.request('POST', '/refuse', body=b'x' * 1025)
        response = connection.getresponse()
        response.read()
        assert response.status == 403
        assert response.getheader('Connection') == 'close'
        assert response.will_close
        connection.request('POST', '/refuse', body=b'x' * 1024)
        response = connection.getresponse()
        response.read()
        assert response.getheader('Connection') != 'close'
    finally:
        connection.close()


def test_port_in_use_is_a_startup_error(serve):
    taken = serve()
    other = server.WSGIService(_hello, '127.0.0.1', taken.port, threads=1)
    with pytest.raises(exception.StartupError) as raised:
        other.bind()
    assert f'cannot listen on 127.0.0.1:{taken.port}' in str(raised.value)
    assert '[api] bind_host, bind_port' in str(raised.value)


def test_several_workers_share_one_port(serve):
    reserved = socket.socket()
    reserved.bind(('127.0.0.1', 0))
    port = reserved.getsockname()[1]
    reserved.close()
    first = serve(port, reuse_port=True)
    second = serve(port, reuse_port=True)
    first.stop()
    # The second worker alone answers on the port now (a connection the
    # kernel queued for the first one as it closed is reset: retried).
    assert _answer(port) == (200, b'GET ok')
    second.stop()
    assert _refuses(port)


def test_several_workers_need_a_fixed_port():
    service = server.WSGIService(_hello, '127.0.0.1', 0, threads=1,
                                 reuse_port=True)
    with pytest.raises(exception.StartupError, match='fixed port'):
        service.bind()


def test_stop_lets_the_request_in_progress_end(serve):
    service = serve()
    answers = []
    slow = threading.Thread(
        target=lambda: answers.append(_get(service.port, '/slow')))
    slow.start()
    for _ in range(100):
        if service.app.count:
            break
        threading.Event().wait(0.05)
    assert service.app.count == 1
    stopper = threading.Thread(target=service.stop)
    stopper.start()
    # Stopping waits for the request ...
    stopper.join(0.5)
    assert stopper.is_alive()
    _RELEASE.set()
    stopper.join(10)
    slow.join(10)
    # ... which got its whole answer; new connections are refused.
    assert answers == [(200, b'GET ok')]
    assert not stopper.is_alive()
    assert _refuses(service.port)


def _request_threads() -> set[str]:
    """The ids of this process's threads that granian's pool runs (its
    request threads carry the name of tokio's workers)."""
    found = set()
    for tid in os.listdir('/proc/self/task'):
        try:
            with open(f'/proc/self/task/{tid}/comm') as comm:
                if comm.read().strip() == 'tokio-rt-worker':
                    found.add(tid)
        except FileNotFoundError:
            pass  # ended meanwhile
    return found


def test_every_request_thread_starts_with_the_server():
    """granian starts a request thread for a request that finds none
    idle, and two arriving at once may start only one, leaving the other
    queued: the server starts all of its threads itself, one at a time."""
    threads = 16
    seen = []

    def app(environ, start_response):
        seen.append(environ['PATH_INFO'])
        return _hello(environ, start_response)

    # Threads of servers of earlier tests may still be ending: count only
    # the ones this server starts.
    before = _request_threads()
    service = server.WSGIService(app, '127.0.0.1', 0, threads=threads)
    service.start()
    try:
        started = set()
        for _ in range(300):  # the warm-up runs on a thread of its own
            started = _request_threads() - before
            if len(started) >= threads:
                break
            threading.Event().wait(0.05)
        assert _get(service.port, '/mine') == (200, b'GET ok')
    finally:
        service.stop()
    assert len(started) >= threads
    # ...and its own requests never reached the application.
    assert seen == ['/mine']


def test_a_request_after_a_burst_of_long_ones_is_answered_at_once(serve):
    """A request arriving while a burst of long requests (long polls)
    holds threads is answered while they still run."""
    service = serve()  # 4 request threads
    slow = [threading.Thread(target=_get, args=(service.port, '/slow'))
            for _ in range(3)]
    for client in slow:
        client.start()
    try:
        for _ in slow:  # all three hold a thread
            assert _SLOW_STARTED.acquire(timeout=10)
        assert _get(service.port) == (200, b'GET ok')
        assert all(client.is_alive() for client in slow)
    finally:
        _RELEASE.set()
        for client in slow:
            client.join(10)
