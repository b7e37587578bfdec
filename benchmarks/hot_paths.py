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

"""Per-request work of the API's hottest paths, counted in-process.

The application is loaded as uWSGI loads it (``swconfig.api.wsgi:
application``; noauth, SQLite, an in-process engine on the fake
transport) with a few servers created through the REST API, and is then
called directly with environs shaped like uWSGI's for:

* ``poll_head``, ``poll_get``, ``poll_304``: an agent's poll of its
  signed metadata URL (HEAD, GET, GET with a matching If-None-Match);
* ``tenant``: ``GET /v1/{project}/software_deployments/metadata/{server}``
  as the server's owner;
* ``limit``: the benchmark's in-memory limit (``benchmarks.reference``)
  answering the poll GET, the Python work no poll can go below;
* ``null``: a do-nothing WSGI app through the same calls, the harness's
  own share of every figure.

Instructions are counted with callgrind, only while the requests run and
only in the thread that sends them (valgrind and gcc needed: ``apt-get
install -y valgrind gcc``); with ``--profile KIND``, cProfile shows where
one kind's time goes instead::

    python3 -m benchmarks.hot_paths                 # instructions
    python3 -m benchmarks.hot_paths --profile tenant
"""

import argparse
import collections.abc
import ctypes
import glob
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from typing import Any
import uuid

from benchmarks import reference

KINDS = ('null', 'limit', 'poll_head', 'poll_get', 'poll_304', 'tenant')
#: Requests of each kind before counting: caches and decisions warm.
WARM_UP = 50
_CALLGRIND_C = '''#include <valgrind/callgrind.h>
void start(void) { CALLGRIND_START_INSTRUMENTATION; }
void zero(void) { CALLGRIND_ZERO_STATS; }
void dump(const char *label) { CALLGRIND_DUMP_STATS_AT(label); }
'''
_BASE_ENVIRON = {
    'SERVER_PROTOCOL': 'HTTP/1.1', 'SERVER_NAME': 'bench',
    'SERVER_PORT': '8004', 'HTTP_HOST': '10.0.0.1:8004',
    'HTTP_USER_AGENT': 'os-collect-config', 'HTTP_CONNECTION': 'keep-alive',
    'REMOTE_ADDR': '10.0.0.2', 'REMOTE_PORT': '40000', 'SCRIPT_NAME': '',
    'wsgi.version': (1, 0), 'wsgi.url_scheme': 'http',
    'wsgi.multithread': True, 'wsgi.multiprocess': False,
    'wsgi.run_once': False, 'wsgi.errors': sys.stderr,
    'uwsgi.version': b'2.0.28', 'uwsgi.node': b'bench',
}


def _load_application(state: str) -> tuple[Any, Any]:
    """The WSGI application and a started engine, on a new database."""
    conf = os.path.join(state, 'swconfig.conf')
    with open(conf, 'w') as handle:
        handle.write(f'''[DEFAULT]
auth_strategy = noauth
transport_url = fake://
state_path = {state}
[agent]
generate_signing_key = true
[api]
public_url = http://localhost
metadata_cache_freshness = 30
[database]
connection = sqlite:///{state}/swconfig.sqlite
[engine]
topic = hot-paths-{uuid.uuid4().hex[:8]}
''')
    os.environ['SWCONFIG_CONFIG_FILES'] = conf
    sys.argv = [sys.argv[0]]
    from swconfig.api import background
    from swconfig.api import wsgi
    from swconfig.db import migration
    from swconfig.engine import service

    migration.upgrade('head')
    # The worker's background work started with the application, before
    # the schema: started again on it, so no task retries in the middle
    # of a count (the warm-up's retry after its backoff did).
    background.stop()
    background.start()
    engine = service.EngineService()
    engine.start()
    return wsgi.application, engine


def _caller(application: Any) -> collections.abc.Callable[..., tuple]:
    def call(method: str, path: str, query: str = '',
             headers: dict | None = None, body: bytes = b'',
             app: Any = None) -> tuple[str, list, bytes]:
        environ = dict(_BASE_ENVIRON, REQUEST_METHOD=method, PATH_INFO=path,
                       QUERY_STRING=query,
                       REQUEST_URI=path + ('?' + query if query else ''),
                       CONTENT_LENGTH=str(len(body)) if body else '')
        environ['wsgi.input'] = io.BytesIO(body)
        if body:
            environ['CONTENT_TYPE'] = 'application/json'
        environ.update(headers or {})
        answer = []

        def start_response(status: str, headers: list,
                           exc_info: Any = None) -> None:
            answer[:] = (status, headers)

        chunks = (app or application)(environ, start_response)
        content = b''.join(chunks)
        if hasattr(chunks, 'close'):
            chunks.close()
        return answer[0], answer[1], content
    return call


def _null_app(environ: dict, start_response: Any) -> list[bytes]:
    start_response('200 OK', [('Content-Length', '0')])
    return [b'']


def requests(application: Any) -> dict[str, collections.abc.Callable]:
    """One request of each kind, by name, on servers made for them."""
    call = _caller(application)

    def created(path: str, body: dict) -> dict:
        status, _, content = call('POST', path,
                                  body=json.dumps(body).encode())
        assert status.startswith('200'), (status, content)
        return json.loads(content)

    project = 'hotpaths'
    config = created(f'/v1/{project}/software_configs',
                     {'name': 'c', 'group': 'script',
                      'config': 'echo hi'})['software_config']
    for number in range(3):
        created(f'/v1/{project}/software_deployments',
                {'config_id': config['id'], 'server_id': f'srv-{number}'})
    _, _, content = call('GET', f'/v1/{project}/servers/srv-1/agent-config')
    url = json.loads(content)['os-collect-config']['request']['metadata_url']
    path, _, query = re.sub('^https?://[^/]*', '', url).partition('?')
    status, headers, _ = call('GET', path, query)
    assert status.startswith('200'), status
    etag = dict(headers)['ETag']
    view = f'/v1/{project}/software_deployments/metadata/srv-1'
    return {
        'null': lambda: call('GET', path, query, app=_null_app),
        'limit': lambda: call('GET', path, query, app=reference.application),
        'poll_head': lambda: call('HEAD', path, query),
        'poll_get': lambda: call('GET', path, query),
        'poll_304': lambda: call('GET', path, query,
                                 {'HTTP_IF_NONE_MATCH': etag}),
        'tenant': lambda: call('GET', view, '',
                               {'HTTP_ACCEPT': 'application/json'}),
    }


def _inside(count: int, helper: str) -> None:
    """Under callgrind: each kind's requests, dumped one kind a file."""
    with tempfile.TemporaryDirectory(prefix='hot-paths-') as state:
        application, engine = _load_application(state)
        try:
            kinds = requests(application)
            for send in kinds.values():
                for _ in range(WARM_UP):
                    send()
            callgrind = ctypes.CDLL(helper)
            callgrind.start()
            for name, send in kinds.items():
                callgrind.zero()
                for _ in range(count):
                    send()
                callgrind.dump(name.encode())
        finally:
            engine.stop()


def count_instructions(count: int) -> dict[str, int]:
    """Instructions per request of each kind, harness included."""
    with tempfile.TemporaryDirectory(prefix='hot-paths-cg-') as work:
        source = os.path.join(work, 'callgrind.c')
        helper = os.path.join(work, 'callgrind.so')
        with open(source, 'w') as handle:
            handle.write(_CALLGRIND_C)
        subprocess.run(['gcc', '-O2', '-shared', '-fPIC', '-o', helper,
                        source], check=True)
        subprocess.run(
            ['valgrind', '--tool=callgrind', '--instr-atstart=no',
             '--separate-threads=yes',
             f'--callgrind-out-file={work}/out.%p', sys.executable, '-m',
             'benchmarks.hot_paths', '--inside', str(count), helper],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        figures = {}
        # Thread 1 of each dump: the one sending the requests.
        for path in glob.glob(os.path.join(work, 'out.*.*-01')):
            with open(path) as handle:
                text = handle.read()
            label = re.search(r'^desc: Trigger: .*: (\w+)$', text, re.M)
            total = re.search(r'^summary: (\d+)', text, re.M)
            if label and total:
                figures[label.group(1)] = int(total.group(1)) // count
        return {name: figures[name] for name in KINDS if name in figures}


def profile(kind: str, count: int, limit: int = 40) -> None:
    """cProfile of ``count`` requests of ``kind``, by inclusive time."""
    import cProfile
    import pstats

    with tempfile.TemporaryDirectory(prefix='hot-paths-') as state:
        application, engine = _load_application(state)
        try:
            send = requests(application)[kind]
            for _ in range(WARM_UP):
                send()
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(count):
                send()
            profiler.disable()
        finally:
            engine.stop()
    pstats.Stats(profiler).sort_stats('cumulative').print_stats(limit)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--requests', type=int, default=300,
                        help='requests of each kind counted (default 300; '
                             '20,000 with --profile)')
    parser.add_argument('--profile', choices=KINDS,
                        help='cProfile this kind instead of counting')
    parser.add_argument('--inside', nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        _inside(int(args.inside[0]), args.inside[1])
    elif args.profile:
        profile(args.profile, args.requests if args.requests != 300
                else 20000)
    else:
        figures = count_instructions(args.requests)
        harness = figures.get('null', 0)
        print(f'{"kind":<10} {"instr/request":>14} {"minus harness":>14}')
        for name, value in figures.items():
            print(f'{name:<10} {value:>14,} {value - harness:>14,}')


if __name__ == '__main__':
    main()
