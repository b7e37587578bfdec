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

"""The CPU one engine RPC call costs with nothing behind it.

Every state change goes through the engine over oslo.messaging (see
``doc/source/architecture.rst``), so a deployment creation can never cost
less than one call. This measures that floor on this machine: a client
process calls a no-op endpoint in a server process, through RabbitMQ, the
way the API calls the engine (swconfig's serializer and request context,
``at_least_once``, a reply the size of a created deployment), at the
concurrency of the creation phase; it reports the CPU of the client, the
server and the broker per call.

    python3 -m benchmarks.rpc_floor [--calls 4000] [--concurrency 8]
"""

import argparse
from concurrent import futures
import json
import os
import subprocess
import sys
from typing import Any

import oslo_messaging as messaging
import psutil

from benchmarks import common
from benchmarks import loadgen
from benchmarks import phases
from benchmarks import stack

TOPIC = 'swconfig-rpc-floor'
#: About a created deployment's answer, as the engine returns it.
REPLY = {'id': 'x' * 36, 'config_id': 'y' * 36, 'server_id': 'z' * 36,
         'input_values': {'name': 'server', 'port': 9000},
         'output_values': {}, 'action': 'CREATE', 'status': 'IN_PROGRESS',
         'status_reason': 'Deploy data available', 'tenant': 'p' * 32,
         'creation_time': '2026-11-24T00:00:00Z', 'updated_time': None,
         'signal_transport': 'HEAT_SIGNAL', 'action_revision': 1}
READY = 'ready'
SETUP = 'rpc floor'
PHASE = 'no-op engine RPC call'


class NoOpEndpoint:
    target = messaging.Target(version='1.0')

    def create(self, context: Any, request: dict) -> dict:
        return REPLY


def _init(url: str) -> None:
    from swconfig.common import rpc
    from swconfig.conf import CONF
    CONF([], project='swconfig')
    rpc.init(CONF, default_url=url)


def serve(url: str, threads: int) -> None:
    """The server side, in its own process, until stdin closes."""
    from swconfig.common import rpc
    from swconfig.conf import CONF
    _init(url)
    server = rpc.get_server(messaging.Target(topic=TOPIC, server='floor'),
                            [NoOpEndpoint()])
    # registered by the server's executor, read when it starts
    CONF.set_override('executor_thread_pool_size', threads)
    server.start()
    print(READY, flush=True)
    sys.stdin.read()
    server.stop()
    server.wait()


def measure(url: str, calls: int, concurrency: int) -> dict[str, float]:
    """Per-call CPU (ms) of client, server and broker, and calls/s."""
    from swconfig.common import context as swconfig_context
    from swconfig.common import rpc
    _init(url)
    server = subprocess.Popen(
        [sys.executable, '-m', 'benchmarks.rpc_floor', '--serve',
         '--url', url, '--threads', str(concurrency * 2)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        if server.stdout.readline().strip() != READY:
            raise RuntimeError('the RPC floor server did not start')
        client = rpc.get_client(messaging.Target(topic=TOPIC, version='1.0'),
                                timeout=30).prepare(
            transport_options=messaging.TransportOptions(at_least_once=True))
        context = swconfig_context.RequestContext(
            project_id='p' * 32, user_id='u' * 32, is_admin=False)
        request = {'config_id': 'c' * 36, 'server_id': 's' * 36,
                   'signal_transport': 'HEAT_SIGNAL', 'action': 'CREATE',
                   'input_values': {'name': 'server', 'port': 9000}}

        def call(_index: int) -> None:
            client.call(context, 'create', request=request)

        broker = stack.external_processes()['rabbitmq']
        groups = {'caller': [psutil.Process(os.getpid())],
                  'server': [psutil.Process(server.pid)], 'broker': broker}
        with futures.ThreadPoolExecutor(concurrency) as pool:
            list(pool.map(call, range(concurrency * 20)))  # warm-up
            with stack.Monitor(groups) as monitor:
                list(pool.map(call, range(calls)))
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    client_ms, server_ms, broker_ms = (
        monitor.cpu(group) * 1000 / calls for group in groups)
    return {'calls': calls, 'seconds': monitor.wall,
            'calls_per_s': calls / monitor.wall, 'client_ms': client_ms,
            'server_ms': server_ms, 'broker_ms': broker_ms,
            'total_ms': client_ms + server_ms + broker_ms,
            'broker_seen': bool(broker)}


def floor_row(url: str, calls: int, concurrency: int) -> phases.Row:
    """The measurement as a row of the results (run in a process of its
    own: it configures oslo.config and oslo.messaging for itself)."""
    common.log(f'RPC floor: {calls} no-op calls at {concurrency} threads')
    out = subprocess.run(
        [sys.executable, '-m', 'benchmarks.rpc_floor', '--url', url,
         '--calls', str(calls), '--concurrency', str(concurrency),
         '--json'], check=True, capture_output=True, text=True).stdout
    figures = json.loads(out.strip().splitlines()[-1])
    seconds = {role: figures[key] * calls / 1000 for role, key in (
        ('api-workers', 'client_ms'), ('engines', 'server_ms'),
        ('rabbitmq', 'broker_ms'))}
    return phases.Row(setup=SETUP, phase=PHASE,
                      result=loadgen.Result(requests=calls,
                                            seconds=figures['seconds']),
                      cpu=seconds, rss={}, wall=figures['seconds'],
                      extra=figures)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--url', default=common.RABBIT_URL)
    parser.add_argument('--calls', type=int, default=4000)
    parser.add_argument('--concurrency', type=int, default=8)
    parser.add_argument('--json', action='store_true',
                        help='print the figures as one JSON object')
    parser.add_argument('--serve', action='store_true',
                        help=argparse.SUPPRESS)
    parser.add_argument('--threads', type=int, default=16,
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.url, args.threads)
        return
    figures = measure(args.url, args.calls, args.concurrency)
    if args.json:
        print(json.dumps(figures))
        return
    broker = ('' if figures['broker_seen']
              else ' (RabbitMQ process not visible: not counted)')
    print(f'{args.calls} no-op RPC calls at {args.concurrency} threads: '
          f'{figures["calls_per_s"]:.0f} calls/s; CPU per call '
          f'{figures["client_ms"]:.2f} ms caller + '
          f'{figures["server_ms"]:.2f} ms server + '
          f'{figures["broker_ms"]:.2f} ms RabbitMQ = '
          f'{figures["total_ms"]:.2f} ms{broker}')


if __name__ == '__main__':
    main()
