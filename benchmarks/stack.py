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

"""Starting the setups under test and watching their CPU and memory.

* production-like: the API under gunicorn (``gthread`` workers, so agents'
  keep-alive connections are served by a thread pool), two
  ``swconfig-engine`` processes, MariaDB, RabbitMQ;
* embedded default: one ``swconfig-all`` (SQLite, in-process messaging);
* uWSGI: the API under uWSGI (``pyuwsgi``), one process x ``threads``,
  per connection (``--http-socket``: uWSGI closes each connection after
  its answer, as agents poll) or keep-alive (``--http11-socket``, as
  behind a load balancer), on the production-like database.

Every process gets its own log file in the work directory; every process
started here is stopped here, by its own process group.
"""

import dataclasses
import math
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from typing import Any

import psutil

from benchmarks import common
from benchmarks import profiling
from tests.fixtures import processes as fixture_processes
from tests.fixtures import services

#: ``[api] poll_time_interval`` of every setup, seconds.
POLL_TIME_INTERVAL = 1


def service_config(workdir: str, name: str, connection: str, port: int,
                   transport_url: str | None, pool_size: int,
                   cache_size: int) -> str:
    """The config file every process of one setup shares; each API worker
    keeps ``cache_size`` documents in memory."""
    default = {
        'auth_strategy': 'noauth',
        'state_path': os.path.join(workdir, f'state-{name}'),
        'max_software_configs_per_tenant': -1,
        'max_software_deployments_per_tenant': -1,
        'default_deployment_signal_transport': 'HEAT_SIGNAL',
        'debug': False,
        # as many RPC handler threads as pooled DB connections: more only
        # contend for the GIL and churn overflow connections
        'executor_thread_pool_size': pool_size,
    }
    if transport_url:
        default['transport_url'] = transport_url
    path = os.path.join(workdir, f'{name}.conf')
    return fixture_processes.write_config(path, {
        'DEFAULT': default,
        'database': {'connection': connection,
                     'max_pool_size': pool_size, 'max_overflow': pool_size},
        'agent': {'signing_keys': common.SIGNING_KEY},
        'api': {'bind_host': common.HOST, 'bind_port': port,
                'public_url': f'http://{common.HOST}:{port}',
                'metadata_cache_size': cache_size,
                # Rounds of last-poll-time writes every second, not every
                # 15 (the default): each phase then pays its share of
                # them, where a 15 s round fell inside a phase or not by
                # chance and made a phase cost up to twice another.
                'poll_time_interval': POLL_TIME_INTERVAL},
    })


class Process:
    """One child process (and its children) with a log file."""

    def __init__(self, name: str, argv: list[str], workdir: str,
                 env: dict[str, str] | None = None) -> None:
        self.name = name
        self.argv = argv
        self.log_path = os.path.join(workdir, f'{name}.log')
        self.env = env
        self.popen: subprocess.Popen | None = None

    def start(self) -> 'Process':
        log = open(self.log_path, 'ab')
        env = dict(os.environ, **(self.env or {}))
        self.popen = subprocess.Popen(self.argv, stdout=log,
                                      stderr=subprocess.STDOUT, env=env,
                                      start_new_session=True)
        log.close()
        return self

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def check(self) -> None:
        if not self.alive():
            raise RuntimeError(f'{self.name} exited; see {self.log_path}:\n'
                               f'{self.tail()}')

    def tail(self, lines: int = 30) -> str:
        try:
            with open(self.log_path, errors='replace') as handle:
                return ''.join(handle.readlines()[-lines:])
        except OSError:
            return ''

    def stop(self, timeout: float = 20) -> None:
        if not self.alive():
            return
        os.killpg(self.popen.pid, signal.SIGTERM)
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout)

    def tree(self) -> list[psutil.Process]:
        """The process and its children (gunicorn's workers)."""
        if not self.alive():
            return []
        try:
            root = psutil.Process(self.popen.pid)
            return [root, *root.children(recursive=True)]
        except psutil.Error:
            return []


@dataclasses.dataclass
class Setup:
    name: str
    port: int
    config_file: str
    processes: list[Process]

    def check(self) -> None:
        for process in self.processes:
            process.check()

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.stop()

    def api_processes(self) -> list[Process]:
        return [p for p in self.processes if not p.name.startswith('engine')]

    def api_log_count(self, text: str) -> int:
        """Lines of the API processes' logs holding ``text``."""
        count = 0
        for process in self.api_processes():
            with open(process.log_path, errors='replace') as handle:
                count += sum(text in line for line in handle)
        return count


def worker_connections(clients: int, workers: int, threads: int) -> int:
    """gunicorn's ``--worker-connections`` for ``clients`` keep-alive
    clients: a quarter more than an even share. gthread workers accept
    from one shared socket, and uncapped, whichever is awake takes the
    connections: 37/2/16/9 of 64 pollers, or all 64 on one worker (one
    GIL), whose queue then made the paced p99 anything from 10 to 170 ms.
    A worker at its cap stops accepting, so the others take the rest."""
    return max(threads, math.ceil(1.25 * clients / workers))


def start_production(workdir: str, config_file: str, port: int,
                     workers: int, threads: int, engines: int,
                     clients: int, with_engines: bool = True,
                     tag: str = '', profile_dir: str | None = None) -> Setup:
    """gunicorn + swconfig-engine processes on one config file, for at
    most ``clients`` concurrent keep-alive connections; each profiled
    into ``profile_dir`` if given (``benchmarks.profiling``)."""
    processes = []
    if with_engines:
        for number in range(engines):
            host_file = fixture_processes.write_config(
                os.path.join(workdir, f'engine-{number}{tag}.conf'),
                {'engine': {'host': f'bench-engine-{number}'}})
            argv = [fixture_processes.script('swconfig-engine'),
                    '--config-file', config_file, '--config-file', host_file]
            if profile_dir:
                argv = profiling.launcher(os.path.join(
                    profile_dir, f'engine-{number}{tag}.prof'), argv)
            processes.append(Process(f'engine-{number}{tag}', argv,
                                     workdir).start())
    gunicorn = [
        sys.executable, '-m', 'gunicorn', '--workers', str(workers),
        '--worker-class', 'gthread', '--threads', str(threads),
        '--worker-connections',
        str(worker_connections(clients, workers, threads)),
        '--bind', f'{common.HOST}:{port}', '--backlog', '2048',
        '--keep-alive', '30', '--timeout', '120',
        'swconfig.api.wsgi:application']
    if profile_dir:
        gunicorn[3:3] = ['--config', profiling.gunicorn_config(profile_dir)]
    processes.append(Process(
        f'api-gunicorn{tag}', gunicorn, workdir,
        env={'SWCONFIG_CONFIG_FILES': config_file}).start())
    setup = Setup('production', port, config_file, processes)
    wait_ready(setup)
    return setup


def start_embedded(workdir: str, config_file: str, port: int) -> Setup:
    argv = [fixture_processes.script('swconfig-all'), '--config-file',
            config_file]
    process = Process('swconfig-all', argv, workdir).start()
    setup = Setup('embedded', port, config_file, [process])
    wait_ready(setup)
    return setup


#: Where ``benchmarks.reference`` is imported from under uWSGI.
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: The uWSGI setups by name: (label, uWSGI's socket option).
UWSGI_MODES = {'uwsgi': ('per connection', '--http-socket'),
               'uwsgi-keepalive': ('keep-alive', '--http11-socket')}


def uwsgi_argv(setup_name: str, app: str, port: int, processes: int,
               threads: int) -> list[str]:
    """uWSGI as the production page runs it (``lazy-apps``, threads),
    without its request log, for ``setup_name`` of ``UWSGI_MODES``.
    ``--http-socket`` closes each connection after its answer without
    saying so, which wrk counts as an error: the header says it."""
    socket = UWSGI_MODES[setup_name][1]
    return [fixture_processes.script('uwsgi'), socket,
            f'{common.HOST}:{port}', '--module', app, '--master',
            '--processes', str(processes), '--threads', str(threads),
            '--enable-threads', '--lazy-apps', '--need-app',
            '--die-on-term', '--buffer-size', '65535', '--disable-logging',
            '--listen', '1024', '--pythonpath', REPOSITORY,
            *(['--add-header', 'Connection: close']
              if setup_name == 'uwsgi' else [])]


def start_uwsgi(workdir: str, config_file: str, port: int, setup_name: str,
                threads: int) -> Setup:
    """The API under uWSGI, one process x ``threads`` (``UWSGI_MODES``)."""
    argv = uwsgi_argv(setup_name, 'swconfig.api.wsgi:application', port, 1,
                      threads)
    process = Process(f'api-uwsgi-{setup_name}', argv, workdir,
                      env={'SWCONFIG_CONFIG_FILES': config_file}).start()
    setup = Setup(setup_name, port, config_file, [process])
    wait_ready(setup)
    return setup


def wait_ready(setup: Setup) -> None:
    deadline = time.monotonic() + common.START_TIMEOUT
    while time.monotonic() < deadline:
        setup.check()
        try:
            services.wait_for_port(setup.port, timeout=0.5)
            break
        except RuntimeError:
            continue
    else:
        raise RuntimeError(f'{setup.name} did not listen in time')
    _wait_settled(setup)
    setup.check()


def _wait_settled(setup: Setup, busy: float = 0.1) -> None:
    """Wait until the processes stop loading (gunicorn imports the app in
    each worker after the master listens): less than ``busy`` CPU seconds
    in half a second."""
    deadline = time.monotonic() + common.START_TIMEOUT
    while time.monotonic() < deadline:
        processes = [p for proc in setup.processes for p in proc.tree()]
        before = sum(Monitor._cpu(p) or 0.0 for p in processes)
        time.sleep(0.5)
        after = sum(Monitor._cpu(p) or 0.0 for p in processes)
        if after - before < busy:
            return


def ensure_gunicorn() -> None:
    """gunicorn is a test requirement; install it into this venv if the
    venv predates it."""
    try:
        import gunicorn  # noqa: F401
    except ImportError:
        common.log('installing gunicorn into the venv')
        subprocess.run([sys.executable, '-m', 'pip', 'install', '-q',
                        'gunicorn'], check=True, timeout=300)


def external_processes() -> dict[str, list[psutil.Process]]:
    """MariaDB and RabbitMQ, to report what the DB side costs (read only:
    the benchmark never signals a process it did not start)."""
    found: dict[str, list[psutil.Process]] = {'mariadb': [], 'rabbitmq': []}
    for process in psutil.process_iter(['name']):
        name = process.info['name'] or ''
        if name in ('mariadbd', 'mysqld'):
            found['mariadb'].append(process)
        elif name == 'beam.smp':
            found['rabbitmq'].append(process)
    return found


class Monitor:
    """CPU seconds used and the largest RSS of each process during a
    phase, sampled in a background thread."""

    def __init__(self, groups: dict[str, list[psutil.Process]],
                 interval: float = 0.25) -> None:
        self.groups = groups
        self.interval = interval
        self.cpu_start: dict[int, float] = {}
        self.cpu_end: dict[int, float] = {}
        self.rss_max: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.started = 0.0
        self.wall = 0.0
        self.client_cpu = 0.0
        self.system_busy = 0.0

    @staticmethod
    def _cpu(process: psutil.Process) -> float | None:
        try:
            times = process.cpu_times()
            return times.user + times.system
        except psutil.Error:
            return None

    def _sample(self) -> None:
        for processes in self.groups.values():
            for process in processes:
                try:
                    rss = process.memory_info().rss
                except psutil.Error:
                    continue
                self.rss_max[process.pid] = max(
                    rss, self.rss_max.get(process.pid, 0))

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    @staticmethod
    def _own_cpu() -> float:
        """This process and its reaped children (wrk): the client."""
        total = 0.0
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
            usage = resource.getrusage(who)
            total += usage.ru_utime + usage.ru_stime
        return total

    @staticmethod
    def _busy() -> float:
        times = psutil.cpu_times()
        return sum(times) - times.idle - getattr(times, 'iowait', 0.0)

    def __enter__(self) -> 'Monitor':
        self.client_cpu = -self._own_cpu()
        self.system_busy = -self._busy()
        for processes in self.groups.values():
            for process in processes:
                cpu = self._cpu(process)
                if cpu is not None:
                    self.cpu_start[process.pid] = cpu
        self._sample()
        self.started = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.wall = time.monotonic() - self.started
        self.client_cpu += self._own_cpu()
        self.system_busy += self._busy()
        self._stop.set()
        self._thread.join()
        self._sample()
        for processes in self.groups.values():
            for process in processes:
                cpu = self._cpu(process)
                if cpu is not None:
                    self.cpu_end[process.pid] = cpu

    def cpu(self, group: str) -> float:
        """CPU seconds the group's processes used during the phase."""
        if group == 'client':
            return self.client_cpu
        return sum(self.cpu_end.get(p.pid, 0.0) - self.cpu_start.get(
            p.pid, self.cpu_end.get(p.pid, 0.0)) for p in self.groups[group])

    def other_cpu(self) -> float:
        """CPU seconds used by everything else on the machine (other
        users' work competes with the benchmark on a shared machine)."""
        ours = sum(self.cpu(group) for group in self.groups)
        return max(0.0, self.system_busy - ours)

    def rss(self, group: str) -> list[int]:
        """The largest RSS of each process of the group, in bytes."""
        return [self.rss_max[p.pid] for p in self.groups[group]
                if p.pid in self.rss_max]


def groups_for(setup: Setup) -> dict[str, list[psutil.Process]]:
    """The processes to watch, by role. gunicorn's master only forks and
    supervises (uWSGI's too); its workers serve."""
    groups: dict[str, list[psutil.Process]] = {}
    for process in setup.processes:
        tree = process.tree()
        if process.name.startswith(('api-gunicorn', 'api-uwsgi')):
            groups['api-master'] = tree[:1]
            groups['api-workers'] = tree[1:]
        elif process.name.startswith('engine'):
            groups.setdefault('engines', []).extend(tree)
        else:
            groups['swconfig-all'] = tree
    if setup.name != 'embedded':  # uWSGI's: the production database
        groups.update(external_processes())
    groups['client'] = []  # see Monitor.cpu
    return groups
