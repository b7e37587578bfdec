"""Heat 27 beside swconfig, for the deployment-creation comparison.

Heat (PyPI ``openstack-heat``) is installed at benchmark time into a
virtualenv of its own under ``~/.cache/swconfig-bench`` (never into the
project's), and run as ``heat-api`` + ``heat-engine`` on a MariaDB
database of its own and the machine's RabbitMQ, on an exchange of its
own, with Heat's ``noauth`` paste flavor (no Keystone: the same trust as
swconfig's noauth). It gets the API workers of swconfig's production
setup and two engine workers, as swconfig has two engines.

The workload is what a Heat client must send per deployment to get what
swconfig's one request does: Heat has no server-side derivation, so
``openstack software deployment create`` POSTs a derived config and then
the deployment. Both the pair and the deployment POST alone (a config
made beforehand) are measured.
"""

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
ENGINE_WORKERS = 2
READY_TIMEOUT = 120


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
                 threads: int, rabbit_url: str) -> None:
        self.workdir = os.path.join(workdir, 'heat')
        self.port = port
        self.api_workers = api_workers
        self.threads = threads
        self.rabbit_url = rabbit_url
        self.processes: list[subprocess.Popen] = []

    def start(self) -> None:
        bin_dir = ensure_installed()
        os.makedirs(self.workdir, exist_ok=True)
        url = seed.create_mariadb_database(DATABASE)
        config = os.path.join(self.workdir, 'heat.conf')  # ~/heat.conf
        with open(config, 'w') as handle:
            handle.write(
                '[DEFAULT]\n'
                f'transport_url = {self.rabbit_url}\n'
                f'control_exchange = heat-bench-{uuid.uuid4().hex[:8]}\n'
                f'num_engine_workers = {ENGINE_WORKERS}\n'
                'debug = false\n'
                f'log_dir = {self.workdir}\n'
                '[database]\n'
                f'connection = {url}\n'
                '[paste_deploy]\n'
                'flavor = noauth\n'
                f'api_paste_config = {_paste_ini(bin_dir)}\n'
                '[oslo_policy]\n'
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

    def create_config(self) -> str | None:
        """A software config (the engine answers: heat-engine is up)."""
        import http.client
        connection = http.client.HTTPConnection('127.0.0.1', self.port,
                                                timeout=10)
        try:
            connection.request('POST', f'/v1/{PROJECT}/software_configs',
                               json.dumps(_CONFIG),
                               {'Content-Type': 'application/json'})
            reply = connection.getresponse()
            body = reply.read()
        finally:
            connection.close()
        if reply.status != 200:
            return None
        return json.loads(body)['software_config']['id']

    def groups(self) -> dict[str, list[psutil.Process]]:
        found: dict[str, list[psutil.Process]] = {'heat-api': [],
                                                  'heat-engine': []}
        for process in self.processes:
            parent = psutil.Process(process.pid)
            role = ('heat-api' if 'gunicorn' in ' '.join(parent.cmdline())
                    else 'heat-engine')
            found[role] += [parent, *parent.children(recursive=True)]
        return dict(found, **stack.external_processes())

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


def create_deployments(heat: Heat, count: int, concurrency: int,
                       time_limit: float, with_config: bool
                       ) -> phases.Row:
    """``count`` deployments to new servers: the deployment POST of a
    config made beforehand, or (``with_config``) a derived config POST
    and then the deployment's, as heatclient sends them."""
    config_id = heat.create_config()
    counter = itertools.count()
    base = f'/v1/{PROJECT}'
    headers = {'Content-Type': 'application/json'}

    def requests() -> Any:
        for _ in range(count):
            index = next(counter)
            server_id = str(uuid.uuid4())  # Heat's column: 36 characters
            if with_config:
                yield ('POST', f'{base}/software_configs', headers,
                       json.dumps(_derived(server_id, index)).encode())
            yield ('POST', f'{base}/software_deployments', headers,
                   json.dumps({'config_id': config_id,
                               'server_id': server_id, 'action': 'CREATE',
                               'status': 'IN_PROGRESS'}).encode())

    groups = heat.groups()
    with stack.Monitor(groups) as monitor:
        result = loadgen.run_requests(heat.port, requests(), concurrency,
                                      time_limit, lambda s: s < 300)
    phase = ('create deployments (config + deployment POST)'
             if with_config else 'create deployments (deployment POST)')
    cpu = {role: monitor.cpu(role) for role in monitor.groups}
    cpu['other'] = monitor.other_cpu()
    return phases.Row(heat.name, phase, result, cpu,
                      {role: monitor.rss(role) for role in monitor.groups},
                      monitor.wall,
                      {'requests per deployment': 2 if with_config else 1})
