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

"""What one rollout target costs the engine, and the database statements
of a wave.

The engine's own functions run in this process, on a scratch MariaDB
database (``--backend sqlite`` for a SQLite file): no API and no RPC in
between, so the figures are the engine's work alone (the creation phases
of ``benchmarks.run`` measure the whole request path). Single-threaded:
every statement counted is the engine's.

1. Reference, in the same run: ``--targets`` deployments created one at a
   time (``engine.deployments.create``, what one POST asks of the engine)
   and signalled as the rollout's are (below).
2. A rollout to as many new servers (``--max-concurrency``, default 10%):
   its creation (the rollout, its targets and the first wave), then
   rounds until it is COMPLETE; each round signals the running targets as
   the engine applies agents' signals (stored, then applied in batches of
   ``--signal-batch``) and advances the rollout (notes the finished
   targets, starts the next wave).

Prints the engine CPU per target (create, signal, complete) beside the
reference's, and the statements of each wave (the advance that starts
it) and per target.

    python3 -m benchmarks.rollout_cost [--targets 2000]
        [--max-concurrency 10%] [--backend mysql|sqlite]
"""

import argparse
import contextlib
import dataclasses
import tempfile
import threading
import time
from typing import Any
import uuid

import sqlalchemy as sa

from benchmarks import common
from benchmarks import seed

PROJECT = 'bench-rollout'
SIGNAL = {'deploy_status_code': 0, 'deploy_stdout': 'done',
          'deploy_stderr': ''}


class StatementCounter:
    """Counts the statements this thread sends to any database."""

    def __init__(self) -> None:
        self.count = 0
        self._thread = threading.get_ident()

    def _seen(self, *args: Any) -> None:
        if threading.get_ident() == self._thread:
            self.count += 1

    def __enter__(self) -> 'StatementCounter':
        sa.event.listen(sa.engine.Engine, 'before_cursor_execute',
                        self._seen)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        sa.event.remove(sa.engine.Engine, 'before_cursor_execute',
                        self._seen)


@dataclasses.dataclass
class Cost:
    """CPU seconds and statements spent on ``what``."""

    cpu: float = 0.0
    statements: int = 0

    @contextlib.contextmanager
    def measure(self, counter: StatementCounter) -> Any:
        before, statements = time.process_time(), counter.count
        yield
        self.cpu += time.process_time() - before
        self.statements += counter.count - statements


def _configure(backend: str, workdir: str) -> str | None:
    """Options as an engine has them, on a fresh database; the MariaDB
    database's name to drop afterwards."""
    from swconfig.common import config
    from swconfig.common import rpc
    from swconfig.conf import CONF
    from swconfig.db import migration

    config.parse_args(['rollout_cost'], default_config_files=[])
    CONF.set_override('state_path', workdir)
    CONF.set_override('signing_keys', [common.SIGNING_KEY], group='agent')
    CONF.set_override('max_software_deployments_per_tenant', -1)
    name = None
    if backend == 'mysql':
        name = f'bench_rollout_{uuid.uuid4().hex[:8]}'
        url = seed.create_mariadb_database(name)
    else:
        url = config.sqlite_url(workdir)
    CONF.set_override('connection', url, group='database')
    migration.upgrade('head')
    rpc.init(CONF, default_url='fake://')
    return name


def _signal(context: Any, deployments: list[dict], batch: int,
            cost: Cost, counter: StatementCounter) -> None:
    """Store a success signal for each deployment, as the API does, and
    apply them ``batch`` at a time, as the engine does."""
    from swconfig.db import api as db_api
    from swconfig.engine import signals

    with cost.measure(counter):
        ids = [db_api.signal_inbox_add(context, row['id'],
                                       row['action_revision'], SIGNAL)
               for row in deployments]
        for first in range(0, len(ids), batch):
            results = signals.apply_batch(ids[first:first + batch])
            if set(results.values()) != {'COMPLETE'}:
                raise RuntimeError(f'signals not applied: {results}')


def reference(context: Any, config_id: str, count: int, batch: int,
              counter: StatementCounter) -> dict[str, Cost]:
    """``count`` deployments created one by one, then signalled."""
    from swconfig.common.deployment_request import DeploymentRequest
    from swconfig.engine import deployments

    create, signal = Cost(), Cost()
    made = []
    for index in range(count):
        with create.measure(counter):
            made.append(deployments.create(context, DeploymentRequest(
                server_id=f'single-{index:06d}', config_id=config_id,
                input_values={'port': 9000}, action='CREATE',
                signal_transport='HEAT_SIGNAL')))
    _signal(context, made, batch, signal, counter)
    return {'create': create, 'signal': signal}


def rollout(context: Any, config_id: str, count: int, concurrency: str,
            batch: int, counter: StatementCounter) -> dict[str, Any]:
    """A rollout to ``count`` new servers, driven to COMPLETE."""
    from swconfig.db import api as db_api
    from swconfig.engine import rollouts

    create, signal, complete = Cost(), Cost(), Cost()
    waves: list[tuple[int, int]] = []  # (targets started, statements)
    servers = [f'rolled-{index:06d}' for index in range(count)]
    with create.measure(counter):
        before = counter.count
        made = rollouts.create(context, {'servers': servers},
                               {'config_id': config_id,
                                'input_values': {'port': 9000},
                                'signal_transport': 'HEAT_SIGNAL'},
                               max_concurrency=concurrency)
    waves.append((made['counts']['IN_PROGRESS'], counter.count - before))
    rollout_id = made['id']
    signalled: set[str] = set()
    while True:
        running = [target['deployment_id'] for target in
                   db_api.rollout_targets_get(context, rollout_id,
                                              state='IN_PROGRESS')
                   if target['deployment_id'] not in signalled]
        rows = list(db_api.software_deployments_get_many(
            context, running).values())
        _signal(context, rows, batch, signal, counter)
        signalled.update(running)
        started_before = len(signalled)
        with complete.measure(counter):
            before = counter.count
            current = rollouts.advance(rollout_id)
        started = (current['counts']['IN_PROGRESS']
                   + current['counts']['COMPLETE'] - started_before)
        if started > 0:
            waves.append((started, counter.count - before))
        if current['finished_at'] is not None:
            break
    if current['status'] != 'COMPLETE':
        raise RuntimeError(f'rollout ended {current["status"]}: '
                           f'{current["status_reason"]}')
    return {'create': create, 'signal': signal, 'complete': complete,
            'waves': waves}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--targets', type=int, default=2000,
                        help='Servers of the rollout, and deployments of '
                             'the reference (default 2000).')
    parser.add_argument('--max-concurrency', default='10%',
                        help="The rollout's max_concurrency (default "
                             '10%%).')
    parser.add_argument('--signal-batch', type=int, default=64,
                        help='Signals applied per engine batch (default '
                             '64).')
    parser.add_argument('--backend', choices=('mysql', 'sqlite'),
                        default='mysql',
                        help='MariaDB on 127.0.0.1 (default) or SQLite.')
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as workdir:
        database = _configure(args.backend, workdir)
        try:
            _run(args)
        finally:
            if database:
                seed.drop_mariadb_database(database)


def _run(args: argparse.Namespace) -> None:
    from swconfig.common.context import RequestContext
    from swconfig.engine import configs

    context = RequestContext(project_id=PROJECT, is_admin=False,
                             overwrite=False)
    config_id = configs.create(
        context, 'bench', 'script', '#!/bin/sh\necho $port\n',
        [{'name': 'port', 'type': 'Number'}], [], {})['id']
    count = args.targets
    with StatementCounter() as counter:
        single = reference(context, config_id, count, args.signal_batch,
                           counter)
        rolled = rollout(context, config_id, count, args.max_concurrency,
                         args.signal_batch, counter)

    def row(what: str, cost: Cost) -> str:
        return (f'{what:34} {cost.cpu / count * 1000:7.3f} ms '
                f'{cost.statements / count:6.2f}')

    common.log(f'{count} targets, max_concurrency {args.max_concurrency}, '
               f'{args.backend}: engine CPU and statements per target')
    print(f'{"":34} {"CPU":>10} {"stmts":>6}')
    print(row('one by one: create', single['create']))
    print(row('one by one: signal', single['signal']))
    print(row('rollout: creation call', rolled['create']))
    print(row('rollout: rounds (note done, start)', rolled['complete']))
    print(row('rollout: signal', rolled['signal']))
    reference_cpu = single['create'].cpu + single['signal'].cpu
    rollout_cpu = sum(rolled[what].cpu
                      for what in ('create', 'complete', 'signal'))
    print(f'{"create + signal + complete":34} one by one '
          f'{reference_cpu / count * 1000:.3f} ms, rollout '
          f'{rollout_cpu / count * 1000:.3f} ms per target: '
          f'{rollout_cpu / reference_cpu:.2f} x')
    waves = rolled['waves']
    started = sum(targets for targets, _ in waves)
    statements = sum(statements for _, statements in waves)
    print(f'{len(waves)} waves; statements of the call or round that '
          f'started each: '
          + ', '.join(f'{statements} ({targets} targets)'
                      for targets, statements in waves[:3])
          + (' ...' if len(waves) > 3 else '')
          + f'; {statements / started:.2f} per target started')


if __name__ == '__main__':
    main()
