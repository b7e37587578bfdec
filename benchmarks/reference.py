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

"""The in-memory reference: what serving an agent's poll costs at best.

A minimal WSGI app that answers every GET or HEAD with one pre-built
JSON document of about 4.5 KB (the size of a 5-deployment document) with
an ETag, a Last-Modified and ``Cache-Control: no-cache``, and a 304 when
If-None-Match matches: the agent poll with nothing but the HTTP work, no
routing, no token check, no database. It runs under the same server as
each setup (swconfig's own server in one process, as ``swconfig-all``;
gunicorn with the same workers, threads and flags as the production-like
setup; uWSGI as the uWSGI setups run it), and the poll figures are
reported as a fraction of it, measured in the same run on the same
machine.

    python3 -m benchmarks.reference --port 8099   # swconfig-all's server
"""

import argparse
import hashlib
import json
import sys
from typing import Any

from benchmarks import common
from benchmarks import stack
from tests.fixtures import processes as fixture_processes

DOCUMENT_SIZE = 4500


def _document(size: int = DOCUMENT_SIZE) -> bytes:
    """A metadata-shaped document of ``size`` bytes."""
    entry = {'config': '#!/bin/sh\necho deployed\n', 'group': 'script',
             'id': '00000000-0000-0000-0000-000000000000', 'inputs': [],
             'name': 'reference', 'options': {}, 'outputs': []}
    document = {'deployments': [entry], 'os-collect-config': {
        'collectors': ['request'], 'polling_interval': 30,
        'request': {'metadata_url': 'http://127.0.0.1/agent/servers/x/'
                                    'metadata?token=x'}}, 'padding': ''}
    base = len(json.dumps(document, separators=(',', ':')).encode())
    document['padding'] = 'x' * max(0, size - base)
    return json.dumps(document, separators=(',', ':')).encode()


DOCUMENT = _document()
ETAG = f'"{hashlib.sha256(DOCUMENT).hexdigest()[:32]}"'
VALIDATORS = [('ETag', ETAG),
              ('Last-Modified', 'Sun, 22 Nov 2026 12:00:00 GMT'),
              ('Cache-Control', 'no-cache')]
GET_HEADERS = [('Content-Type', 'application/json'), *VALIDATORS,
               ('Content-Length', str(len(DOCUMENT)))]
HEAD_HEADERS = [('Content-Type', 'application/json'),
                ('Content-Length', '0'), *VALIDATORS]
NOT_MODIFIED_HEADERS = [('Content-Length', '0'), *VALIDATORS]


def application(environ: dict, start_response: Any) -> list[bytes]:
    # Any If-None-Match is the agent's current copy: the benchmark's
    # conditional GETs carry the seeded documents' ETags.
    if environ.get('HTTP_IF_NONE_MATCH'):
        start_response('304 Not Modified', NOT_MODIFIED_HEADERS)
        return []
    if environ['REQUEST_METHOD'] == 'HEAD':
        start_response('200 OK', HEAD_HEADERS)
        return []
    start_response('200 OK', GET_HEADERS)
    return [DOCUMENT]


def serve(port: int, threads: int, app: str | None = None) -> None:
    """The reference, or the WSGI application named ``module:name``,
    under the server of ``swconfig-all`` as it runs it
    (swconfig.api.server with the default [api] backlog), until
    SIGTERM."""
    import importlib
    import signal
    import threading

    from swconfig.api import server
    served = application
    if app:
        module, _, name = app.partition(':')
        served = getattr(importlib.import_module(module), name)
    service = server.WSGIService(served, common.HOST, port, threads)
    service.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    service.stop()


def start(setup_name: str, workdir: str, port: int, workers: int,
          threads: int, clients: int) -> stack.Setup:
    """The reference under the server of ``setup_name``: gunicorn with
    the production-like flags, uWSGI with the uWSGI setup's, or
    swconfig-all's server in one process."""
    if setup_name in stack.UWSGI_MODES:
        argv = stack.uwsgi_argv(setup_name, 'benchmarks.reference:'
                                'application', port, 1, threads)
        process = stack.Process(f'api-uwsgi-reference-{setup_name}', argv,
                                workdir)
    elif setup_name == 'production':
        argv = [sys.executable, '-m', 'gunicorn', '--workers', str(workers),
                '--worker-class', 'gthread', '--threads', str(threads),
                '--worker-connections',
                str(stack.worker_connections(clients, workers, threads)),
                '--bind', f'{common.HOST}:{port}', '--backlog', '2048',
                '--keep-alive', '30', '--timeout', '120',
                'benchmarks.reference:application']
        process = stack.Process('api-gunicorn-reference', argv, workdir)
    else:
        argv = [sys.executable, '-m', 'benchmarks.reference', '--port',
                str(port), '--threads', str(threads)]
        process = stack.Process('reference', argv, workdir)
    setup = stack.Setup(setup_name, port, '', [process.start()])
    stack.wait_ready(setup)
    return setup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--port', type=int,
                        default=fixture_processes.free_port())
    parser.add_argument('--threads', type=int, default=64,
                        help='request threads ([api] threads default)')
    parser.add_argument('--app', help='serve this WSGI application '
                                      '(module:name) instead')
    args = parser.parse_args()
    serve(args.port, args.threads, args.app)


if __name__ == '__main__':
    main()
