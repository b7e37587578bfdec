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


"""The fault suite's rig: one backend's real processes (a private
database server, a private RabbitMQ node, ``swconfig-api`` with two
workers, ``swconfig-engine`` processes) and read-only SQL on its
database, for the tests that inject faults into them."""

import concurrent.futures
import json
import time
import uuid

import sqlalchemy as sa

from tests.fixtures import agent_stacks
from tests.fixtures import fault_agents
from tests.fixtures import private_db
from tests.fixtures import processes
from tests.fixtures import services

APPLIED = 'Outputs received'
#: How long signals may take to be applied once the fault is over.
SETTLE_TIMEOUT = 90
CONFIG = '#!/bin/sh\necho unused: the test is the agent\n'
OUTPUTS = [{'name': 'result', 'type': 'String'}]


class Rig:
    """One backend's processes: private database server, private broker,
    API (two workers) and engines, plus read-only SQL."""

    def __init__(self, backend: str, server: private_db.PrivateDatabaseServer,
                 broker: agent_stacks.PrivateRabbitMQ,
                 stack: agent_stacks.Stack) -> None:
        self.backend = backend
        self.server = server
        self.broker = broker
        self.stack = stack
        self.project = f'p-faults-{uuid.uuid4().hex[:8]}'
        self.sql = sa.create_engine(stack.db_url, pool_pre_ping=True,
                                    isolation_level='AUTOCOMMIT')
        self.config_id = stack.create_config(
            self.project, CONFIG, outputs=OUTPUTS, name='faults')['id']

    @property
    def api(self) -> processes.SwconfigProcess:
        return self.stack.processes['api']

    def engines(self) -> list[processes.SwconfigProcess]:
        return [process for name, process in self.stack.processes.items()
                if name.startswith('engine') and process.process.poll()
                is None]

    def ensure_engines(self, count: int = 2) -> None:
        started = [self.stack.start_engine()
                   for _ in range(count - len(self.engines()))]
        for engine in started:
            engine.wait_for_log(processes.ENGINE_READY)

    def api_workers(self, count: int = 2, timeout: float = 60,
                    gone: int | None = None) -> set[int]:
        """Wait until the API launcher has *count* live workers (and
        worker *gone* is no longer one of them)."""
        deadline = time.monotonic() + timeout
        while True:
            workers = {pid for pid in self.api.children()
                       if process_alive(pid)}
            if len(workers) == count and gone not in workers:
                return workers
            if time.monotonic() > deadline:
                raise AssertionError(f'API has workers {workers}, not '
                                     f'{count}\n{self.api.log_tail()}')
            time.sleep(0.2)

    def restore(self) -> None:
        """Every part running again, whatever the fault left."""
        self.server.start()
        if not services.port_open(self.broker.port):
            self.broker.start_app()
        self.ensure_engines()
        self.api_workers()

    def deploy(self, count: int, fault: str) -> list[fault_agents.Signal]:
        """*count* server-derived deployments and their signal URLs."""
        def one(index: int) -> fault_agents.Signal:
            server = f'faults-{fault}-{index}-{uuid.uuid4().hex[:6]}'
            deployment = self.stack.deploy(self.project, self.config_id,
                                           server)
            url = self.stack.signal_url(self.project, deployment)
            return fault_agents.Signal(
                index, server, deployment['id'], url,
                f'{fault}-{index}-{uuid.uuid4().hex[:8]}')
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            return list(pool.map(one, range(count)))

    # -- read-only SQL --------------------------------------------------------

    def rows(self, ids: list[str]) -> dict[str, dict]:
        """Per deployment: status, output value, how many times a signal
        was applied, and its stored signals."""
        found = {i: {'status': None, 'result': None, 'applied events': 0,
                     'inbox': []} for i in ids}
        params = {'ids': ids}
        expanding = sa.bindparam('ids', expanding=True)
        with self.sql.connect() as connection:
            for row in connection.execute(sa.text(
                    'SELECT id, status, output_values FROM '
                    'software_deployment WHERE id IN :ids'
            ).bindparams(expanding), params):
                values = row.output_values
                if isinstance(values, str | bytes):
                    values = json.loads(values)
                found[row.id].update(status=row.status,
                                     result=(values or {}).get('result'))
            # The event an engine writes each time it applies a signal
            # (swconfig.engine.signals.interpret), whatever the statuses.
            for row in connection.execute(sa.text(
                    'SELECT deployment_id, COUNT(*) AS n FROM '
                    'deployment_event WHERE deployment_id IN :ids AND '
                    'reason = :applied GROUP BY deployment_id'
            ).bindparams(expanding), dict(params, applied=APPLIED)):
                found[row.deployment_id]['applied events'] = row.n
            for row in connection.execute(sa.text(
                    'SELECT deployment_id, id, payload, processed_at, '
                    'result FROM signal_inbox WHERE deployment_id IN :ids '
                    'ORDER BY id').bindparams(expanding), params):
                stored = row.payload
                if isinstance(stored, str | bytes):
                    stored = json.loads(stored)
                found[row.deployment_id]['inbox'].append({
                    'id': row.id, 'value': (stored or {}).get('result'),
                    'processed': row.processed_at is not None,
                    'result': row.result})
        return found

    def wait_settled(self, ids: list[str], timeout: float
                     ) -> tuple[bool, float]:
        """Until every deployment is final and every stored signal
        handled, or *timeout*; returns (settled, seconds)."""
        started = time.monotonic()
        while True:
            rows = self.rows(ids)
            if all(r['status'] in fault_agents.FINAL and all(
                    s['processed'] for s in r['inbox'])
                    for r in rows.values()):
                return True, time.monotonic() - started
            if time.monotonic() - started > timeout:
                return False, time.monotonic() - started
            time.sleep(0.5)

    def pending_signals(self, ids: list[str]) -> int:
        """Stored signals of *ids* no engine has handled yet."""
        query = sa.text('SELECT COUNT(*) FROM signal_inbox WHERE '
                        'deployment_id IN :ids AND processed_at IS NULL'
                        ).bindparams(sa.bindparam('ids', expanding=True))
        with self.sql.connect() as connection:
            return connection.execute(query, {'ids': ids}).scalar()

    def close(self) -> None:
        self.sql.dispose()


def process_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, not yet reaped, does not)."""
    try:
        with open(f'/proc/{pid}/stat') as handle:
            return handle.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False
