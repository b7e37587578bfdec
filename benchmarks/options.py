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

"""The benchmark command's options, what they select and how the
report names them."""

import argparse

from benchmarks import stack

SIGNAL_WARMUP = 128
PHASES = ('polls', 'tenant-view', 'signals', 'creation', 'list-creation',
          'rpc-floor', 'heat-creation', 'heat-tenant-view', 'servers')
#: The most deployments one list may create ([api] max_batch_deployments
#: of the setups: the default).
MAX_LIST = 1000
HEAT_PHASES = ('heat-creation', 'heat-tenant-view')
#: Phases run only when named: the embedded default's candidate servers
#: (it installs granian into the venv).
OPT_IN = ('servers',)
SETUPS = ('production', *stack.UWSGI_MODES, 'embedded')
#: The uWSGI setups poll this many servers of the main group.
UWSGI_SERVERS = 100
#: swconfig-all's request threads: the default [api] threads.
EMBEDDED_THREADS = 64
#: The main group is also polled on its first 1, 100 and 10,000 servers
#: only: the cost of a poll must not depend on how many servers poll.
POLLED_SERVERS = (1, 100, 10000)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog='python3 -m benchmarks.run', description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add = parser.add_argument
    add('--servers', type=int, default=100000,
        help='servers of the main group (default 100000)')
    add('--deployments', type=int, default=5,
        help='deployments per server of the main group (default 5)')
    add('--small-servers', type=int, default=1000,
        help='servers of the small database, for the poll cost at few '
             'servers (default 1000)')
    add('--few-deployments-servers', type=int, default=1000,
        help='servers with 1 deployment (default 1000)')
    add('--many-deployments', type=int, default=100,
        help='deployments per server of the "many" group (default 100)')
    add('--many-deployments-servers', type=int, default=100,
        help='servers of the "many" group (default 100)')
    add('--concurrency', type=int, default=64,
        help='concurrent pollers (default 64)')
    add('--duration', type=float, default=15,
        help='seconds of each polling phase (default 15)')
    add('--rate', type=float, default=2000,
        help='requests/s of the paced (open-loop) polling phase, which '
             'checks the latency target (default 2000)')
    add('--conditional-every', type=int, default=4,
        help='every n-th GET sends If-None-Match (default 4)')
    add('--tenant-concurrency', type=int, default=8,
        help='concurrent clients of the tenant metadata view (default 8)')
    add('--signals', type=int, default=5000,
        help='signals in the burst (default 5000)')
    add('--signal-concurrency', type=int, default=64)
    add('--creations', type=int, default=1500,
        help='deployments to create (default 1500)')
    add('--creation-concurrency', type=int, default=32)
    add('--list-size', type=int, default=MAX_LIST,
        help='deployments of the list creation phase: made one POST each, '
             'then as many in one POST of a list (default and most '
             f'{MAX_LIST})')
    add('--rollout-size', type=int, default=10000,
        help='servers of the rollout the list creation phase makes last, '
             'max_concurrency 100%% (default 10000)')
    add('--phase-time-limit', type=float, default=60,
        help='upper bound, seconds, of the signal and creation phases')
    add('--workers', type=int, default=4, help='gunicorn workers')
    add('--threads', type=int, default=8, help='threads per worker')
    add('--engines', type=int, default=2, help='swconfig-engine processes')
    add('--buffer-pool-mb', type=int, default=2048,
        help='InnoDB buffer pool of MariaDB during the run, MB (raised if '
             'smaller, restored afterwards; default 2048)')
    add('--metadata-cache-size', type=int,
        help='[api] metadata_cache_size of the API workers (default: every '
             'seeded server, at least 10,000: each worker holds every '
             'polled document, as in a cloud that sized it for its '
             'servers)')
    add('--pool-size', type=int, default=16,
        help='[database] max_pool_size (and max_overflow) per process')
    add('--uwsgi-threads', type=int, default=8,
        help='threads of the uWSGI setups\' one process, and their '
             'pollers (default 8)')
    add('--setups', default=','.join(SETUPS),
        help=f'comma-separated: {", ".join(SETUPS)} (default: all)')
    add('--phases', default=','.join(p for p in PHASES if p not in OPT_IN),
        help='comma-separated phases to run on each setup: '
             f'{", ".join(PHASES)} (default: all but '
             f'{", ".join(OPT_IN)})')
    add('--quick', action='store_true',
        help='small sizes and short phases: a smoke run in about 2 min')
    add('--workdir', help='where configs and logs go (default: a new '
                          'temporary directory, removed unless --keep)')
    add('--keep', action='store_true',
        help='keep the work directory and the benchmark databases')
    add('--no-readme', action='store_true',
        help='do not write the figures into benchmarks/README.rst')
    add('--json', help='also write the raw figures to this file')
    add('--profile', metavar='DIR',
        help='profile the production setup\'s API workers and engines '
             'with yappi into DIR (python -m benchmarks.profiling --show '
             'DIR prints them); slows them by about a third')
    args = parser.parse_args(argv)
    if args.quick:
        args.servers = min(args.servers, 5000)
        args.small_servers = min(args.small_servers, 500)
        args.few_deployments_servers = min(args.few_deployments_servers, 200)
        args.many_deployments_servers = min(args.many_deployments_servers,
                                            20)
        args.duration = min(args.duration, 5)
        args.signals = min(args.signals, 1000)
        args.creations = min(args.creations, 300)
        args.list_size = min(args.list_size, 500)
    if args.metadata_cache_size is None:
        args.metadata_cache_size = max(
            10000, args.servers + args.few_deployments_servers
            + args.many_deployments_servers)
    args.phases = [p.strip() for p in args.phases.split(',') if p.strip()]
    unknown = set(args.phases) - set(PHASES)
    if unknown:
        parser.error(f'unknown phases: {", ".join(sorted(unknown))}')
    if not 1 <= args.list_size <= MAX_LIST:
        parser.error(f'--list-size must be 1 to {MAX_LIST}')
    args.signals = min(args.signals, args.servers - SIGNAL_WARMUP)
    args.creations = min(args.creations,
                         args.servers - args.signals - SIGNAL_WARMUP)
    return args


def labels(args: argparse.Namespace) -> dict[str, str]:
    def size(servers: int, deployments: int) -> str:
        return f'{servers:,}x{deployments}'
    main = size(args.servers, args.deployments)
    return {'rate': f'{args.rate:,.0f}',
            'main': main,
            'small': size(args.small_servers, args.deployments),
            'd1': size(args.few_deployments_servers, 1),
            'dmany': size(args.many_deployments_servers,
                          args.many_deployments),
            **{f'n{count}': f'{count:,} of {main}'
               for count in POLLED_SERVERS if count < args.servers}}


def clients(args: argparse.Namespace) -> int:
    """The most concurrent connections any phase opens."""
    return max(args.concurrency, args.signal_concurrency,
               args.creation_concurrency)


def settings(args: argparse.Namespace) -> str:
    capped = stack.worker_connections(clients(args), args.workers,
                                      args.threads)
    return (f'{args.concurrency} pollers (HEAD+GET pairs, every '
            f'{args.conditional_every}th GET conditional; "steady": every '
            f'GET conditional), {args.duration:.0f}s per polling phase; '
            f'gunicorn {args.workers} gthread workers x {args.threads} '
            f'threads (at most {capped} connections each), {args.engines} '
            f'engines, MariaDB + RabbitMQ; [api] metadata_cache_size '
            f'{args.metadata_cache_size:,}, warmed up before the polls; '
            f'uWSGI setups 1 process x {args.uwsgi_threads} threads, '
            f'{args.uwsgi_threads} pollers of {UWSGI_SERVERS} servers; '
            f'tenant view at {args.tenant_concurrency} connections; '
            f'{args.signals} signals, {args.creations} creations, '
            f'{args.list_size} deployments one by one and in one list')
