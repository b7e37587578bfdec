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

"""The one benchmark command.

    python3 -m benchmarks.run                 # the full run (about 10 min)
    python3 -m benchmarks.run --quick         # a small smoke run
    python3 -m benchmarks.run --setups production --servers 20000

Seeds MariaDB (and SQLite for the embedded default) with S servers x D
deployments plus the comparison groups, starts each setup, runs the phases
and prints the results; the figures replace those in benchmarks/README.rst
unless ``--no-readme``. Everything listens on 127.0.0.1, every phase is
bounded in requests and seconds, and every process and database the run
creates is removed at the end (``--keep`` keeps the databases).
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

from benchmarks import common
from benchmarks import heat
from benchmarks import loadgen
from benchmarks import options
from benchmarks import phases
from benchmarks import reference
from benchmarks import report
from benchmarks import rpc_floor
from benchmarks import seed
from benchmarks import servers
from benchmarks import stack
from tests.fixtures import processes

LARGE_DB = 'swconfig_bench_large'
#: Calls of the RPC floor phase (a few seconds).
RPC_CALLS = 4000
SMALL_DB = 'swconfig_bench_small'
HEAT_WARMUP = 64
REFERENCE = report.REFERENCE


def _ensure_services(setups: list[str]) -> None:
    from tests.fixtures import services
    services.ensure_mariadb()  # the seeding always fills MariaDB
    if {'production', *stack.UWSGI_MODES} & set(setups):
        services.ensure_rabbitmq()


def _configure_this_process(workdir: str, connection: str,
                            base_url: str) -> None:
    """Sign and render exactly as the services will (same key, agent
    URLs and polling interval), and let ``seed.verify`` use the engine's
    code."""
    from swconfig.common import config
    path = processes.write_config(os.path.join(workdir, 'seed.conf'), {
        'DEFAULT': {'state_path': os.path.join(workdir, 'state-seed')},
        'database': {'connection': connection},
        'agent': {'signing_keys': common.SIGNING_KEY},
        'api': {'public_url': base_url}})
    config.parse_args(['benchmark', '--config-file', path])


def _poll_phases(setup: stack.Setup, args: argparse.Namespace,
                 seeded: seed.Seeded, files: dict[str, str],
                 labels: dict[str, str], wrk: str | None,
                 polls: tuple[str, ...]) -> list[phases.Row]:
    """``polls`` name seeded groups, with a suffix: " steady" (every GET
    conditional, as an agent whose document did not change), " paced"
    (open loop at ``--rate``) or " half" (open loop at half of it)."""
    rows = []
    for poll in polls:
        name, _, kind = poll.partition(' ')
        label = labels[name]
        rate = 0.0
        if kind == 'steady':
            label += ' steady'
        elif kind in ('paced', 'half'):
            if not wrk:
                continue  # the asyncio client cannot pace
            rate = args.rate if kind == 'paced' else args.rate / 2
            label += f' at {rate:,.0f}/s'
        common.log(f'{setup.name}: polling {label}')
        rows.append(phases.poll(
            setup, label, seeded.targets[name], files[name], wrk,
            args.concurrency, args.duration,
            1 if kind == 'steady' else args.conditional_every, rate=rate))
    return rows


def run(args: argparse.Namespace) -> list[phases.Row]:
    setups = [s.strip() for s in args.setups.split(',') if s.strip()]
    workdir = args.workdir or tempfile.mkdtemp(prefix='swconfig-bench-')
    os.makedirs(workdir, exist_ok=True)
    common.log(f'work directory {workdir}')
    _ensure_services(setups)
    stack.ensure_gunicorn()
    wrk = loadgen.ensure_wrk()
    port = processes.free_port()
    base_url = f'http://{common.HOST}:{port}'
    previous_buffer_pool = seed.size_buffer_pool(args.buffer_pool_mb)
    large_url = seed.create_mariadb_database(LARGE_DB)
    sqlite_path = os.path.join(workdir, 'embedded.sqlite')
    for stale in (sqlite_path, sqlite_path + '-wal', sqlite_path + '-shm'):
        if os.path.exists(stale):  # a kept work directory's earlier run
            os.remove(stale)
    sqlite_url = 'sqlite:///' + sqlite_path
    _configure_this_process(workdir, large_url, base_url)
    labels = options.labels(args)
    rows: list[phases.Row] = []
    try:
        groups = [
            seed.Group('main', args.servers, args.deployments, waiting=True),
            seed.Group('d1', args.few_deployments_servers, 1),
            seed.Group('dmany', args.many_deployments_servers,
                       args.many_deployments)]
        urls = [large_url] + ([sqlite_url] if 'embedded' in setups else [])
        common.log(f'seeding {", ".join(labels.values())} ...')
        seeded = seed.seed(urls, groups, base_url,
                           args.signals + options.SIGNAL_WARMUP,
                           args.creations)
        common.log(f'seeded {seeded.rows} in {seeded.seconds:.0f}s')
        rewritten = seed.verify([t.server_id for t in
                                 seeded.targets['main'][:20]])
        if rewritten:
            raise RuntimeError(f'the engine re-rendered {rewritten} seeded '
                               f'documents: the seed is not what the '
                               f'engine would serve')
        small_url = seed.create_mariadb_database(SMALL_DB)
        small = seed.seed([small_url], [seed.Group(
            'small', args.small_servers, args.deployments)], base_url, 0, 0)
        seeded.targets['small'] = small.targets['small']
        few = [f'n{count}' for count in options.POLLED_SERVERS
               if count < args.servers]
        for name in few:
            seeded.targets[name] = seeded.targets['main'][:int(name[1:])]
        for url in [large_url, small_url] + urls[1:]:
            common.log(f'warmed {url.rsplit("/", 1)[-1]} in '
                       f'{seed.warm(url):.0f}s')
        files = {name: loadgen.write_targets(
            os.path.join(workdir, f'targets-{name}.txt'), targets)
            for name, targets in seeded.targets.items()}
        files['uwsgi'] = loadgen.write_targets(
            os.path.join(workdir, 'targets-uwsgi.txt'),
            seeded.targets['main'][:options.UWSGI_SERVERS])
        files['tenant'] = loadgen.write_tenant_targets(
            os.path.join(workdir, 'targets-tenant.txt'),
            seeded.targets['main'])
        polls = (('main', 'main paced', 'main half', *few, 'd1', 'dmany',
                  'd1 steady', 'dmany steady')
                 if 'polls' in args.phases else ())
        if 'production' in setups:
            rows += _production(args, workdir, port, large_url, small_url,
                                seeded, files, labels, wrk, polls)
        for name in stack.UWSGI_MODES:
            if name in setups:
                rows += _uwsgi(args, workdir, name, large_url, seeded,
                               files, labels, wrk)
        if 'rpc-floor' in args.phases:
            rows.append(rpc_floor.floor_row(common.RABBIT_URL, RPC_CALLS,
                                            args.creation_concurrency))
        if 'embedded' in setups:
            rows += _embedded(args, workdir, port, sqlite_url, seeded,
                              files, labels, wrk, polls)
    finally:
        seed.restore_buffer_pool(previous_buffer_pool)
        if not args.keep:
            seed.drop_mariadb_database(LARGE_DB)
            seed.drop_mariadb_database(SMALL_DB)
            if not args.workdir:
                shutil.rmtree(workdir, ignore_errors=True)
    return rows


def _production(args: argparse.Namespace, workdir: str, port: int,
                large_url: str, small_url: str, seeded: seed.Seeded,
                files: dict[str, str], labels: dict[str, str],
                wrk: str | None, polls: tuple[str, ...]
                ) -> list[phases.Row]:
    rows = []
    config = stack.service_config(workdir, 'production', large_url, port,
                                  common.RABBIT_URL, args.pool_size,
                                  args.metadata_cache_size)
    common.log('starting the production-like setup')
    rows += _reference(args, workdir, 'production', seeded, files, wrk,
                       polls)
    setup = stack.start_production(workdir, config, port, args.workers,
                                   args.threads, args.engines,
                                   options.clients(args),
                                   profile_dir=args.profile)
    rows += _all_phases(setup, 'production', large_url, args, seeded,
                        files, labels, wrk, polls)
    if set(options.HEAT_PHASES) & set(args.phases):
        rows += _heat(args, workdir, port, wrk)
    small_config = stack.service_config(workdir, 'production-small',
                                        small_url, port, common.RABBIT_URL,
                                        args.pool_size,
                                        args.metadata_cache_size)
    if 'polls' not in args.phases:
        return rows
    setup = stack.start_production(workdir, small_config, port, args.workers,
                                   args.threads, args.engines,
                                   options.clients(args), with_engines=False,
                                   tag='-small')
    try:
        _warm(setup, args, seeded.targets['small'])
        rows += _poll_phases(setup, args, seeded, files, labels, wrk,
                             ('small', 'small paced'))
    finally:
        setup.stop()
    return rows


def _uwsgi(args: argparse.Namespace, workdir: str, name: str,
           large_url: str, seeded: seed.Seeded, files: dict[str, str],
           labels: dict[str, str], wrk: str | None) -> list[phases.Row]:
    """The API under uWSGI, one process x ``--uwsgi-threads`` on the
    production-like database, polled on ``options.UWSGI_SERVERS`` servers by as
    many pollers as threads (a keep-alive connection holds its thread),
    and through the tenant view; the in-memory reference under the same
    uWSGI and the polls run twice, before and after the tenant view, and
    each keeps the better run."""
    if 'polls' not in args.phases and 'tenant-view' not in args.phases:
        return []
    threads = args.uwsgi_threads
    targets = seeded.targets['main'][:options.UWSGI_SERVERS]
    label = f'{len(targets):,} of {labels["main"]}'
    port = processes.free_port()
    config = stack.service_config(workdir, name, large_url, port,
                                  common.RABBIT_URL, args.pool_size,
                                  args.metadata_cache_size)
    limit = reference.start(name, workdir, processes.free_port(), 1,
                            threads, threads)

    def poll_limit() -> phases.Row:
        common.log(f'{name}: polling the in-memory reference')
        return phases.poll(limit, REFERENCE, targets, files['uwsgi'], wrk,
                           threads, args.duration, args.conditional_every)

    try:
        limits = [poll_limit()]
        common.log(f'starting the API under uWSGI ({name}, 1 x {threads})')
        setup = stack.start_uwsgi(workdir, config, port, name, threads)
    except BaseException:
        limit.stop()
        raise
    polls: list[phases.Row] = []
    views: list[phases.Row] = []

    def polls_and_view() -> None:
        """One run of the polls (when asked for) and the tenant view."""
        if 'polls' in args.phases:
            common.log(f'{name}: polling {label}')
            polls.append(phases.poll(setup, label, targets, files['uwsgi'],
                                     wrk, threads, args.duration,
                                     args.conditional_every))
        views.extend(_tenant_view(setup, name, args, seeded, files, labels,
                                  wrk))

    try:
        _warm(setup, args, seeded.targets['main'])
        polls_and_view()
        idle = phases.idle_rss(setup)
        # All again: on a shared machine the other work comes and goes,
        # so each keeps the better of its two runs (the limit's better
        # one alone would understate every fraction of it).
        limits.append(poll_limit())
        polls_and_view()
    finally:
        setup.stop()
        limit.stop()
    best = [max(runs, key=lambda row: row.result.rate)
            for runs in (limits, polls, views) if runs]
    return [*best, idle]


def _tenant_view(setup: stack.Setup, name: str, args: argparse.Namespace,
                 seeded: seed.Seeded, files: dict[str, str],
                 labels: dict[str, str], wrk: str | None
                 ) -> list[phases.Row]:
    """The tenant metadata view phase, if asked for."""
    if 'tenant-view' not in args.phases:
        return []
    common.log(f'{name}: tenant metadata view')
    return [phases.tenant_view(setup, labels['main'], seeded.targets['main'],
                               files['tenant'], wrk, args.tenant_concurrency,
                               args.duration)]


def _heat(args: argparse.Namespace, workdir: str, port: int,
          wrk: str | None) -> list[phases.Row]:
    """Heat 27 on the same machine, right after swconfig's phases: the
    same number of deployments at the same concurrency, and the tenant
    view at the same connections."""
    common.log('starting Heat 27 (heat-api under gunicorn, heat-engine)')
    service = heat.Heat(workdir, port, args.workers, args.threads,
                        args.engines, common.RABBIT_URL)
    try:
        service.start()
        common.log(f'Heat 27 up in {service.start_seconds:.0f}s (of which '
                   f'{service.install_seconds:.0f}s installing)')
        rows = []
        if 'heat-creation' in args.phases:
            # Unmeasured: each worker's first requests open its RPC and
            # database connections.
            heat.create_deployments(service, HEAT_WARMUP,
                                    args.creation_concurrency,
                                    args.phase_time_limit, 'client')
        for shape in (heat.SHAPES if 'heat-creation' in args.phases
                      else ()):
            common.log(f'Heat: {heat.SHAPES[shape][0]}')
            rows.append(heat.create_deployments(
                service, args.creations, args.creation_concurrency,
                args.phase_time_limit, shape))
        if 'heat-tenant-view' in args.phases:
            servers = min(args.servers, heat.TENANT_SERVERS)
            common.log(f'Heat: seeding {servers}x{args.deployments} '
                       f'through its API')
            server_ids = heat.seed_servers(service, servers,
                                           args.deployments)
            common.log('Heat: tenant metadata view')
            rows.append(heat.tenant_view(
                service, server_ids, args.deployments,
                os.path.join(workdir, 'targets-heat-tenant.txt'), wrk,
                args.tenant_concurrency, args.duration))
        return rows
    finally:
        service.stop()


def _reference(args: argparse.Namespace, workdir: str, name: str,
               seeded: seed.Seeded, files: dict[str, str],
               wrk: str | None, polls: tuple[str, ...],
               threads: int | None = None) -> list[phases.Row]:
    """The in-memory reference under the server of setup ``name``, polled
    as the main group is (closed loop), before the setup starts."""
    if not polls and 'tenant-view' not in args.phases:
        return []
    common.log(f'{name}: polling the in-memory reference')
    setup = reference.start(name, workdir, processes.free_port(),
                            args.workers, threads or args.threads,
                            options.clients(args))
    try:
        return [phases.poll(setup, REFERENCE, seeded.targets['main'],
                            files['main'], wrk, args.concurrency,
                            args.duration, args.conditional_every)]
    finally:
        setup.stop()


def _warm(setup: stack.Setup, args: argparse.Namespace,
          targets: list) -> None:
    workers = args.workers if setup.name == 'production' else 1
    seconds = phases.warm_caches(setup, targets, workers)
    common.log(f'{setup.name}: {workers} API worker caches warmed up in '
               f'{seconds:.0f}s')


def _all_phases(setup: stack.Setup, name: str, db_url: str,
                args: argparse.Namespace, seeded: seed.Seeded,
                files: dict[str, str], labels: dict[str, str],
                wrk: str | None, polls: tuple[str, ...]) -> list[phases.Row]:
    """Polls, a signal burst, creations and idle memory on one setup,
    which is stopped afterwards."""
    try:
        if polls or 'tenant-view' in args.phases:
            _warm(setup, args, seeded.targets['main'])
        rows = _poll_phases(setup, args, seeded, files, labels, wrk, polls)
        rows += _tenant_view(setup, name, args, seeded, files, labels, wrk)
        if 'signals' in args.phases:
            common.log(f'{name}: signal burst')
            rows.append(phases.signal_burst(
                setup, db_url, seeded.signals, args.signal_concurrency,
                args.phase_time_limit))
        if 'creation' in args.phases:
            common.log(f'{name}: creating deployments')
            rows.append(phases.create_deployments(
                setup, seeded.creations, args.creation_concurrency,
                args.phase_time_limit))
        if 'list-creation' in args.phases:
            common.log(f'{name}: {args.list_size} deployments one by one, '
                       f'then in one list')
            project, _server, config_id = seeded.creations[0]
            rows += phases.list_creation(
                setup, project, config_id, args.list_size,
                args.creation_concurrency, args.phase_time_limit,
                args.rollout_size)
        rows.append(phases.idle_rss(setup))
        return rows
    finally:
        setup.stop()


def _embedded(args: argparse.Namespace, workdir: str, port: int,
              sqlite_url: str, seeded: seed.Seeded, files: dict[str, str],
              labels: dict[str, str], wrk: str | None,
              polls: tuple[str, ...]) -> list[phases.Row]:
    rows = []
    config = stack.service_config(workdir, 'embedded', sqlite_url, port,
                                  None, args.pool_size,
                                  args.metadata_cache_size)
    rows += _reference(args, workdir, 'embedded', seeded, files, wrk,
                       polls, threads=options.EMBEDDED_THREADS)
    common.log('starting the embedded default (swconfig-all)')
    setup = stack.start_embedded(workdir, config, port)
    rows += _all_phases(setup, 'embedded', sqlite_url, args, seeded, files,
                        labels, wrk, polls)
    if 'servers' in args.phases:
        rows += _servers(args, workdir, config, seeded, files, wrk)
    return rows


def _servers(args: argparse.Namespace, workdir: str, config: str,
             seeded: seed.Seeded, files: dict[str, str],
             wrk: str | None) -> list[phases.Row]:
    """The embedded default's candidate servers (``benchmarks.servers``):
    the reference and the API application under each, polled as the
    embedded default is (closed loop, the main group)."""
    servers.ensure_cheroot()
    rows = []
    for server in servers.SERVERS:
        for app in servers.APPS:
            common.log(f'server {server}: polling {app}')
            setup = servers.start(server, app, workdir, config,
                                  options.EMBEDDED_THREADS)
            try:
                if app == 'swconfig':
                    _warm(setup, args, seeded.targets['main'])
                rows.append(phases.poll(
                    setup, REFERENCE if app == 'reference' else
                    f'{app} {len(seeded.targets["main"]):,} servers',
                    seeded.targets['main'], files['main'], wrk,
                    args.concurrency, args.duration,
                    args.conditional_every))
            finally:
                setup.stop()
    return rows


def main(argv: list[str] | None = None) -> int:
    args = options.parse_args(sys.argv[1:] if argv is None else argv)
    speed = common.python_speed()  # before any load
    rows = run(args)
    text = report.render(rows, options.labels(args),
                         options.settings(args), speed)
    print(text)
    if not args.no_readme:
        report.update_readme(text)
        common.log(f'figures written to {report.README}')
    if args.json:
        with open(args.json, 'w') as handle:
            json.dump([{'setup': r.setup, 'phase': r.phase,
                        'requests': r.result.requests,
                        'seconds': r.result.seconds,
                        'statuses': r.result.statuses,
                        'errors': r.result.errors, 'p50_ms': r.result.p50_ms,
                        'p99_ms': r.result.p99_ms, 'cpu': r.cpu,
                        'rss': r.rss, 'wall': r.wall, 'extra': r.extra}
                       for r in rows], handle, indent=1, default=str)
    return 0


if __name__ == '__main__':
    sys.exit(main())
