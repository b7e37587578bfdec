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

"""How long one ``swconfig`` command takes, start to exit, against the
embedded default.

Tests and scripts run the command hundreds of times, and a user waits for
every one. Almost all of it is importing. Three figures, medians of the
same run: ``swconfig deployment list`` without Keystone
(``OS_AUTH_TYPE=none`` and ``OS_ENDPOINT``, which loads no openstacksdk,
``swconfig.cli.endpoint_only``); the same command with one setting only
openstacksdk reads (``--os-region-name``, ignored beside a fixed
endpoint), which loads it; and the reference, the same interpreter
importing requests and making the same GET. Compare the ratios between
runs, not the seconds.

    python3 -m benchmarks.cli_startup [--rounds 7]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks import startup
from tests.fixtures import processes as fixture_processes

REFERENCE = '''
import sys, requests
requests.get(sys.argv[1] + '/software_deployments', timeout=30).json()
'''


def _median_seconds(command: list[str], env: dict[str, str],
                    rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.monotonic()
        subprocess.run(command, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        times.append(time.monotonic() - started)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=7,
                        help='runs of each command, of which the median is '
                             'reported (default 7)')
    args = parser.parse_args(argv)
    swconfig = fixture_processes.script('swconfig')
    with tempfile.TemporaryDirectory() as state:
        port = fixture_processes.free_port()
        service_env = dict(os.environ, OS_API__BIND_PORT=str(port),
                           OS_DEFAULT__STATE_PATH=state)
        service = subprocess.Popen(
            [fixture_processes.script('swconfig-all')], env=service_env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            startup.wait_for_answer(port, service)
            endpoint = f'http://127.0.0.1:{port}/v1/demo'
            env = {key: value for key, value in os.environ.items()
                   if not key.startswith('OS_')}
            env.update(OS_AUTH_TYPE='none', OS_ENDPOINT=endpoint)
            command = [swconfig, 'deployment', 'list']
            endpoint_only = _median_seconds(command, env, args.rounds)
            with_sdk = _median_seconds(
                [swconfig, '--os-region-name', 'RegionOne', *command[1:]],
                env, args.rounds)
            reference = _median_seconds(
                [sys.executable, '-c', REFERENCE, endpoint], env,
                args.rounds)
        finally:
            service.terminate()
            service.wait(30)
    print(f'swconfig deployment list, without openstacksdk: '
          f'{endpoint_only:.2f} s (ratio {endpoint_only / reference:.1f})')
    print(f'the same, openstacksdk loaded: {with_sdk:.2f} s '
          f'(ratio {with_sdk / reference:.1f})')
    print(f'reference (python3, requests, the same GET): {reference:.2f} s')
    return 0


if __name__ == '__main__':
    sys.exit(main())
