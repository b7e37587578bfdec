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

"""CPU profiles of the services under load (``run.py --profile DIR``).

yappi (CPU clock, every thread) runs in each gunicorn worker, from its
fork to its exit (gunicorn's ``post_fork`` and ``worker_exit`` hooks),
and in each engine, started by this module as a launcher::

    python -m benchmarks.profiling OUT.prof -- /path/swconfig-engine ...

Each process writes a pstats file when it stops (``api-<pid>.prof``,
``engine-<n>.prof``, ``engine-<n>-child<pid>.prof`` for the service
process the engine forks); ``python -m benchmarks.profiling --show DIR``
merges them by role and prints where the CPU went. Profiling costs
CPU itself (about a third more): compare its shares, not its rates.
"""

import atexit
import glob
import os
import pstats
import runpy
import sys
import threading
import time

GUNICORN_HOOKS = '''
import os

def post_fork(server, worker):
    import yappi
    yappi.set_clock_type('cpu')
    yappi.start(builtins=False, profile_threads=True)

def worker_exit(server, worker):
    import yappi
    yappi.stop()
    yappi.get_func_stats().save(
        os.path.join({directory!r}, 'api-%d.prof' % os.getpid()),
        type='pstat')
'''


def gunicorn_config(directory: str) -> str:
    """A gunicorn config file that profiles every worker into
    ``directory``."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, 'gunicorn_profile.py')
    with open(path, 'w') as handle:
        handle.write(GUNICORN_HOOKS.format(directory=directory))
    return path


def launcher(output: str, argv: list[str]) -> list[str]:
    """``argv`` run under yappi, its profile written to ``output``."""
    return [sys.executable, '-m', 'benchmarks.profiling', output, '--',
            *argv]


def _run(output: str, argv: list[str]) -> None:
    import yappi

    def save() -> None:
        yappi.stop()
        yappi.get_func_stats().save(output, type='pstat')

    def dump_every(path: str, seconds: float) -> None:
        while True:
            time.sleep(seconds)
            yappi.get_func_stats().save(path, type='pstat')

    def in_child() -> None:
        # The engine's service runs in a child that ends with os._exit:
        # its profile is saved every second instead of at exit.
        yappi.stop()
        yappi.clear_stats()
        yappi.start(builtins=False, profile_threads=True)
        base, ext = os.path.splitext(output)
        threading.Thread(target=dump_every, daemon=True,
                         args=(f'{base}-child{os.getpid()}{ext}',
                               1.0)).start()

    yappi.set_clock_type('cpu')
    yappi.start(builtins=False, profile_threads=True)
    atexit.register(save)
    os.register_at_fork(after_in_child=in_child)
    sys.argv = argv
    runpy.run_path(argv[0], run_name='__main__')


def show(directory: str, limit: int = 60) -> None:
    """Print the merged profile of each role found in ``directory``."""
    for role in ('api', 'engine'):
        files = sorted(glob.glob(os.path.join(directory, f'{role}-*.prof')))
        if not files:
            continue
        stats = pstats.Stats(*files)
        print(f'==== {role}: {len(files)} processes, '
              f'{stats.total_tt:.2f} s CPU')
        stats.sort_stats('cumulative').print_stats(limit)


if __name__ == '__main__':
    if sys.argv[1] == '--show':
        show(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 60)
    else:
        _run(sys.argv[1], sys.argv[sys.argv.index('--') + 1:])
