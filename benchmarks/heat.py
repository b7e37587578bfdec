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

"""Heat 27 beside swconfig, for the deployment-creation comparison.

Heat (PyPI ``openstack-heat``) is installed at benchmark time into a
virtualenv of its own under ``~/.cache/swconfig-bench`` (never into the
project's), and run as ``heat-api`` + ``heat-engine`` on a MariaDB
database of its own and the machine's RabbitMQ, on an exchange of its
own, with Heat's ``noauth`` paste flavor (no Keystone: the same trust as
swconfig's noauth). It gets the API workers and threads of swconfig's
production setup, and as many engine workers as it has engines.

The workload is what a Heat client must send per deployment to get what
swconfig's one request does: Heat has no server-side derivation, so
``openstack software deployment create`` POSTs a derived config and then
the deployment. Both the pair and the deployment POST alone (a config
made beforehand) are measured. Servers made that way (each deployment of
its own derived config) are then read through the tenant metadata view,
as swconfig's tenant view is.
"""

from concurrent import futures
import http.client
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from typing import Any
import uuid

import psutil

from benchmarks import common
from benchmarks import loadgen
from benchmarks import phases
from benchmarks import seed
from benchmarks import stack

HEAT_VERSION = '27.0.1'
VENV = os.path.expanduser('~/.cache/swconfig-bench/heat-venv')
DATABASE = 'swconfig_bench_heat'
PROJECT = 'admin'  # noauth's project when no X-Auth-Project is sent
READY_TIMEOUT = 120
#: Servers of the tenant view (x the run's deployments per server): the
#: view reads one server's rows by an indexed column, so a few hundred
#: servers cost what many thousands would, and seeding them through the
#: API stays within seconds.
TENANT_SERVERS = 200
SEED_THREADS = 8


def ensure_installed() -> str:
    """The venv's bin directory, with Heat installed."""
    bin_dir = os.path.join(VENV, 'bin')
    if os.path.exists(os.path.join(bin_dir, 'gunicorn')):
        return bin_dir
    common.log(f'installing Heat {HEAT_VERSION} into {VENV} '
               '(once; a few minutes)')
    subprocess.run([sys.executable, '-m', 'venv', VENV], check=True)
    subprocess.run([os.path.join(bin_dir, 'pip'), 'install', '-q',
                    f'openstack-heat=={HEAT_VERSION}', 'PyMySQL',
                    'gunicorn'], check=True)
    return bin_dir


def _paste_ini(bin_dir: str) -> str:
    found = os.path.join(os.path.dirname(bin_dir), 'etc', 'heat',
                         'api-paste.ini')
    if not os.path.exists(found):
        raise RuntimeError(f'no api-paste.ini in the Heat venv: {found}')
    return found


class Heat:
    """heat-api and heat-engine, started and stopped together."""

    name = 'heat 27'

    def __init__(self, workdir: str, port: int, api_workers: int,
                 threads: int, engine_workers: int, rabbit_url: str) -> None:
        self.workdir = os.path.join(workdir, 'heat')
        self.port = port
        self.api_workers = api_workers
        self.threads = threads
        self.engine_workers = engine_workers
        self.rabbit_url = rabbit_url
        self.processes: list[subprocess.Popen] = []
        self.install_seconds = 0.0
        self.start_seconds = 0.0

    def start(self) -> None:
        started = time.monotonic()
        bin_dir = ensure_installed()
        self.install_seconds = time.monotonic() - started
        os.makedirs(self.workdir, exist_ok=True)
        url = seed.create_mariadb_database(DATABASE)
        config = os.path.join(self.workdir, 'heat.conf')  # ~/heat.conf
        with open(config, 'w') as handle:
            handle.write(
                '[DEFAULT]\n'
                f'transport_url = {self.rabbit_url}\n'
                f'control_exchange = heat-bench-{uuid.uuid4().hex[:8]}\n'
                f'num_engine_workers = {self.engine_workers}\n'
                'debug = false\n'
                f'log_dir = {self.workdir}\n'
                '[database]\n'
                f'connection = {url}\n'
                '[paste_deploy]\n'
                'flavor = noauth\n'
                f'api_paste_config = {_paste_ini(bin_dir)}\n'
                '[oslo_policy]\n'
                f'policy_file = {self._policy_file()}\n'
                'enforce_scope = false\nenforce_new_defaults = false\n')
        subprocess.run([os.path.join(bin_dir, 'heat-manage'),
                        '--config-file', config, 'db_sync'],
                       check=True, capture_output=True, timeout=300)
        # Heat 27 ships its API as a WSGI application only; it parses
        # sys.argv when loaded, so a module of ours clears it first and
        # Heat finds heat.conf in $HOME (oslo.config's search path).
        with open(os.path.join(self.workdir, 'heat_bench_wsgi.py'),
                  'w') as handle:
            handle.write('import sys\nsys.argv = sys.argv[:1]\n'
                         'from heat.wsgi.api import application  '
                         '# noqa\n')
        env = dict(os.environ, HOME=self.workdir)
        commands = {
            'heat-engine': [os.path.join(bin_dir, 'heat-engine'),
                            '--config-file', config],
            'heat-api': [os.path.join(bin_dir, 'gunicorn'),
                         '--pythonpath', self.workdir,
                         '-b', f'127.0.0.1:{self.port}',
                         '-w', str(self.api_workers), '-k', 'gthread',
                         '--threads', str(self.threads),
                         'heat_bench_wsgi:application'],
        }
        for program, argv in commands.items():
            log = open(os.path.join(self.workdir, f'{program}.out'), 'wb')
            self.processes.append(subprocess.Popen(
                argv, stdout=log, stderr=subprocess.STDOUT, env=env,
                cwd=self.workdir, start_new_session=True))
        self._wait_ready()
        self.start_seconds = time.monotonic() - started

    def _policy_file(self) -> str:
        """noauth's callers have the role admin alone, where a Keystone
        token of an admin also lists the roles it implies (member,
        reader); the tenant metadata view asks for reader, so it also
        takes the project's admin here."""
        path = os.path.join(self.workdir, 'policy.yaml')
        project = 'project_id:%(project_id)s'
        with open(path, 'w') as handle:
            handle.write(
                '"software_deployments:metadata": "(role:reader and '
                f'{project}) or (role:admin and {project}) or '
                f'(role:heat_stack_user and {project})"\n')
        return path

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            for process in self.processes:
                if process.poll() is not None:
                    raise RuntimeError(f'Heat exited: {self.tail()}')
            try:
                config = self.create_config()
            except OSError:
                config = None
            if config is not None:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f'Heat not ready: {self.tail()}')
            time.sleep(0.5)

    def post(self, collection: str, body: dict[str, Any]
             ) -> tuple[int, dict[str, Any]]:
        """POST /v1/{project}/{collection}: the status and the body."""
        connection = http.client.HTTPConnection(common.HOST, self.port,
                                                timeout=10)
        try:
            connection.request('POST', f'/v1/{PROJECT}/{collection}',
                               json.dumps(body),
                               {'Content-Type': 'application/json'})
            reply = connection.getresponse()
            answer = reply.read()
        finally:
            connection.close()
        return reply.status, (json.loads(answer) if reply.status == 200
                              else {})

    def create_config(self) -> str | None:
        """A software config (the engine answers: heat-engine is up)."""
        status, body = self.post('software_configs', _CONFIG)
        return body['software_config']['id'] if status == 200 else None

    def groups(self) -> dict[str, list[psutil.Process]]:
        """Heat's processes under swconfig's role names, so the results
        table's API and engine columns read the same for both."""
        found: dict[str, list[psutil.Process]] = {
            'api-master': [], 'api-workers': [], 'engines': []}
        for process in self.processes:
            parent = psutil.Process(process.pid)
            children = parent.children(recursive=True)
            if 'gunicorn' in ' '.join(parent.cmdline()):
                found['api-master'].append(parent)
                found['api-workers'] += children
            else:
                found['engines'] += [parent, *children]
        return dict(found, **stack.external_processes(), client=[])

    def tail(self) -> str:
        text = ''
        for name in ('heat-api.out', 'heat-engine.out', 'heat-api.log',
                     'heat-engine.log'):
            path = os.path.join(self.workdir, name)
            if os.path.exists(path):
                with open(path, errors='replace') as handle:
                    text += f'--- {name}\n{handle.read()[-2000:]}'
        return text

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, 15)
        for process in self.processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)
        self.processes = []
        seed.drop_mariadb_database(DATABASE)
        shutil.rmtree(self.workdir, ignore_errors=True)


_CONFIG = {'name': 'bench', 'group': 'script',
           'config': '#!/bin/sh\necho "$name:$port"\n',
           'inputs': [{'name': 'name'}, {'name': 'port', 'type': 'Number'}],
           'outputs': [{'name': 'result'}], 'options': {}}


def _derived(server_id: str, index: int) -> dict[str, Any]:
    """The derived config python-heatclient would POST for a deployment
    (inputs with values, and heatclient's deploy_* inputs)."""
    inputs = [{'name': 'name', 'value': server_id},
              {'name': 'port', 'type': 'Number', 'value': 9000},
              {'name': 'deploy_server_id', 'value': server_id},
              {'name': 'deploy_action', 'value': 'CREATE'},
              {'name': 'deploy_signal_transport', 'value': 'NO_SIGNAL'}]
    return dict(_CONFIG, name=f'bench-created-{index}', inputs=inputs)


#: What a Heat client sends per deployment: the deployment POST alone (a
#: config made beforehand); a derived config POST and the deployment's;
#: and what ``openstack software deployment create`` sends (it GETs the
#: source config, POSTs the config it derives, then the deployment).
SHAPES = {
    'deployment': ('create deployments (deployment POST)', 1),
    'config': ('create deployments (config + deployment POST)', 2),
    'client': ('create deployments (config GET + config POST + '
               'deployment POST, as the openstack CLI)', 3),
}


def create_deployments(heat: Heat, count: int, concurrency: int,
                       time_limit: float, shape: str) -> phases.Row:
    """``count`` deployments to new servers, each made with the requests
    of ``SHAPES[shape]``."""
    config_id = heat.create_config()
    counter = itertools.count()
    base = f'/v1/{PROJECT}'
    headers = {'Content-Type': 'application/json'}

    def requests() -> Any:
        for _ in range(count):
            index = next(counter)
            server_id = str(uuid.uuid4())  # Heat's column: 36 characters
            if shape == 'client':
                yield ('GET', f'{base}/software_configs/{config_id}', {},
                       b'')
            if shape in ('config', 'client'):
                yield ('POST', f'{base}/software_configs', headers,
                       json.dumps(_derived(server_id, index)).encode())
            yield ('POST', f'{base}/software_deployments', headers,
                   json.dumps({'config_id': config_id,
                               'server_id': server_id, 'action': 'CREATE',
                               'status': 'IN_PROGRESS'}).encode())

    with stack.Monitor(heat.groups()) as monitor:
        result = loadgen.run_requests(heat.port, requests(), concurrency,
                                      time_limit, lambda s: s < 300)
    phase, per_deployment = SHAPES[shape]
    return _row(heat, phase, result, monitor,
                {'requests per deployment': per_deployment})


def seed_servers(heat: Heat, servers: int, per_server: int) -> list[str]:
    """``servers`` servers with ``per_server`` deployments each, every
    deployment of its own derived config, as heatclient leaves them."""
    server_ids = [str(uuid.uuid4()) for _ in range(servers)]

    def create(job: tuple[int, str]) -> None:
        index, server_id = job
        status, body = heat.post('software_configs',
                                 _derived(server_id, index))
        if status == 200:
            status, body = heat.post('software_deployments', {
                'config_id': body['software_config']['id'],
                'server_id': server_id, 'action': 'CREATE',
                'status': 'IN_PROGRESS'})
        if status != 200:
            raise RuntimeError(f'Heat refused a seed POST ({status}): '
                               f'{heat.tail()}')

    jobs = enumerate(server_ids * per_server)
    with futures.ThreadPoolExecutor(SEED_THREADS) as pool:
        list(pool.map(create, jobs))
    return server_ids


def tenant_view(heat: Heat, server_ids: list[str], per_server: int,
                targets_file: str, wrk: str | None, concurrency: int,
                seconds: float, warmup: float = 3) -> phases.Row:
    """GET /v1/{project}/software_deployments/metadata/{server} of random
    seeded servers, closed loop, as ``phases.tenant_view`` does for
    swconfig (after the same unmeasured warm-up)."""
    targets = [common.Target(server_id, '', '', PROJECT)
               for server_id in server_ids]
    loadgen.write_tenant_targets(targets_file, targets)

    def load(duration: float) -> loadgen.Result:
        if wrk:
            return loadgen.wrk_poll(wrk, heat.port, targets_file,
                                    concurrency, duration, 1,
                                    script=loadgen.TENANT_SCRIPT)
        return loadgen.run_requests(
            heat.port, loadgen.tenant_requests(targets), concurrency,
            duration, lambda status: status == 200)

    load(warmup)
    with stack.Monitor(heat.groups()) as monitor:
        result = load(seconds)
    return _row(heat, f'{phases.TENANT_VIEW} {len(server_ids):,}x'
                f'{per_server}', result, monitor, {'servers': len(targets)})


def _row(heat: Heat, phase: str, result: loadgen.Result,
         monitor: stack.Monitor, extra: dict[str, Any]) -> phases.Row:
    cpu = {role: monitor.cpu(role) for role in monitor.groups}
    cpu['other'] = monitor.other_cpu()
    return phases.Row(heat.name, phase, result, cpu,
                      {role: monitor.rss(role) for role in monitor.groups},
                      monitor.wall, extra)
