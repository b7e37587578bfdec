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

"""Candidate servers for the embedded default (issue 25).

``swconfig-all`` serves with granian's compiled server on a thread of
its process (``swconfig.api.server``); it served with cheroot, a
pure-Python HTTP server, before. This phase (``--phases servers``)
measures what the same closed-loop polls get from the in-memory
reference and from the API application (on the embedded default's SQLite
database and configuration) under each candidate, one process with
swconfig-all's request threads and pollers:

* swconfig, as ``swconfig-all`` runs it (``swconfig.api.server``);
* cheroot, the former server, with swconfig-all's former settings;
* granian's own command (Rust, wheels), one worker process,
  ``--blocking-threads``;
* uWSGI (``pyuwsgi``, wheels), one process, keep-alive
  (``--http11-socket``), ``--threads``.

The API application alone, without the engine ``swconfig-all`` runs
beside it: what each server would leave of a poll. cheroot is installed
into the venv when missing (a benchmark tool, not a requirement).
"""

import subprocess
import sys

from benchmarks import common
from benchmarks import stack
from tests.fixtures import processes

#: Candidate servers, in the order measured.
SERVERS = ('swconfig', 'cheroot', 'granian', 'uwsgi')
APPS = {'reference': 'benchmarks.reference:application',
        'swconfig': 'swconfig.api.wsgi:application'}


def ensure_cheroot() -> None:
    try:
        import cheroot  # noqa: F401
    except ImportError:
        common.log('installing cheroot into the venv')
        subprocess.run([sys.executable, '-m', 'pip', 'install', '-q',
                        'cheroot'], check=True, timeout=300)


def _cheroot(app: str, port: int, threads: int) -> list[str]:
    code = ('import importlib, sys; from cheroot import wsgi; '
            f'sys.path.insert(0, {stack.REPOSITORY!r}); '
            f'module, _, name = {app!r}.partition(":"); '
            'app = getattr(importlib.import_module(module), name); '
            f'server = wsgi.Server(({common.HOST!r}, {port}), app, '
            f'numthreads={threads}, request_queue_size=1024); '
            'server.keep_alive_conn_limit = 1024; server.safe_start()')
    return [sys.executable, '-c', code]


def _swconfig(app: str, port: int, threads: int) -> list[str]:
    """``app`` under swconfig-all's server (``benchmarks.reference``)."""
    return [sys.executable, '-m', 'benchmarks.reference', '--port',
            str(port), '--threads', str(threads), '--app', app]


def argv(server: str, app: str, port: int, threads: int) -> list[str]:
    """The command serving ``app`` with ``server`` in one process (plus
    a supervising parent for granian's command and uWSGI)."""
    if server == 'swconfig':
        return _swconfig(app, port, threads)
    if server == 'cheroot':
        return _cheroot(app, port, threads)
    if server == 'granian':
        return [processes.script('granian'), '--interface', 'wsgi',
                '--workers', '1', '--blocking-threads', str(threads),
                '--host', common.HOST, '--port', str(port), '--no-ws',
                '--log-level', 'warning', '--working-dir', stack.REPOSITORY,
                app]
    return stack.uwsgi_argv('uwsgi-keepalive', app, port, 1, threads)


def start(server: str, app: str, workdir: str, config_file: str,
          threads: int) -> stack.Setup:
    """``app`` (``APPS``) under ``server``; the rows' setup is named
    ``server <name>``."""
    port = processes.free_port()
    process = stack.Process(
        f'api-{server}-{app}', argv(server, APPS[app], port, threads),
        workdir, env={'SWCONFIG_CONFIG_FILES': config_file}).start()
    setup = stack.Setup(f'server {server}', port, config_file, [process])
    stack.wait_ready(setup)
    return setup
