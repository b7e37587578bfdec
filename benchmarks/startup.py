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

"""How long ``swconfig-all`` takes from exec to its first answer.

The embedded default is what a newcomer starts first, and every test that
spawns a swconfig process waits for this. Almost all of it is importing
(``python -X importtime`` shows what); the reference, measured in the same
run, is the same interpreter importing SQLAlchemy and oslo.config (what
any swconfig process must load) and answering one request with the
standard library's HTTP server, so the figure to compare between runs is
the ratio, not the seconds.

    python3 -m benchmarks.startup [--rounds 5]

Each round starts a process on a free port of 127.0.0.1 with a state
directory whose SQLite database is already at the current schema (a warm
start; the first, which creates it, is reported apart), asks
``GET /v1/demo/software_configs`` until it answers, and stops it.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from tests.fixtures import processes as fixture_processes

REFERENCE = '''
import http.server, sys
import oslo_config.cfg, sqlalchemy

class Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{}')

http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), Answer).serve_forever()
'''


def time_to_first_answer(command: list[str], port: int,
                         env: dict[str, str], timeout: float = 60) -> float:
    """Seconds from starting ``command`` until ``port`` answers a GET."""
    started = time.monotonic()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        wait_for_answer(port, process, timeout)
        return time.monotonic() - started
    finally:
        process.terminate()
        process.wait(30)


def wait_for_answer(port: int, process: subprocess.Popen,
                    timeout: float = 60) -> None:
    """Until ``port`` answers a GET; RuntimeError if ``process`` exits or
    ``timeout`` seconds pass first."""
    url = f'http://127.0.0.1:{port}/v1/demo/software_configs'
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f'{process.args[0]} exited with '
                               f'{process.returncode}')
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                reply.read()
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.01)
    raise RuntimeError(f'{process.args[0]} did not answer in {timeout} s')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=5,
                        help='warm starts of each, of which the median is '
                             'reported (default 5)')
    args = parser.parse_args(argv)
    swconfig_all = fixture_processes.script('swconfig-all')
    with tempfile.TemporaryDirectory() as state:
        port = fixture_processes.free_port()
        env = dict(os.environ, OS_API__BIND_PORT=str(port),
                   OS_DEFAULT__STATE_PATH=state)
        first = time_to_first_answer([swconfig_all], port, env)
        warm = [time_to_first_answer([swconfig_all], port, env)
                for _ in range(args.rounds)]
        reference = [time_to_first_answer(
            [sys.executable, '-c', REFERENCE, str(port)], port, env)
            for _ in range(args.rounds)]
    warm_median = statistics.median(warm)
    reference_median = statistics.median(reference)
    print(f'swconfig-all, first start (schema created): {first:.2f} s')
    print(f'swconfig-all, warm start (median of {args.rounds}): '
          f'{warm_median:.2f} s')
    print(f'reference (python3, SQLAlchemy + oslo.config, stdlib HTTP '
          f'server): {reference_median:.2f} s')
    print(f'ratio warm / reference: {warm_median / reference_median:.1f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
