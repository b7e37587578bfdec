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

"""Where the suite's time goes: a pytest plugin printing, after the run,
the slowest fixture set-ups and the test modules that took the most time
and CPU.

pytest's ``--durations`` names slow tests, but a fixture's set-up is
charged to whichever test first needed it, and a module's real cost on a
2-core machine is the CPU its child processes (services, agents, the
swconfig processes under test) burn. So each xdist worker records:

- per fixture: how often it was set up, the total and the longest set-up;
- per test module: wall time and CPU seconds, its own process's and its
  reaped children's (``os.times``), from its first test's set-up to its
  last test's teardown;
- when it finished, so that the controller can say how long the other
  workers waited for the last one (the run's tail).

A child counts when it is reaped: the services of a session fixture,
stopped when a worker's session ends, count for that worker's last module.

and hands them to the controller (``workeroutput``), which adds them up.
``SWCONFIG_TEST_TIMING=N`` prints N rows per table (10 by default; 0
prints none).
"""

import json
import os
import time

import pytest

_KEY = 'swconfig_timing'


def _rows() -> int:
    try:
        return int(os.environ.get('SWCONFIG_TEST_TIMING', '10'))
    except ValueError:
        return 10


def _cpu() -> float:
    """CPU seconds of this process and its reaped children."""
    times = os.times()
    return (times.user + times.system + times.children_user
            + times.children_system)


class Timing:
    """The records of one process (a worker, or the run without xdist)."""

    def __init__(self) -> None:
        #: fixture name -> [set-ups, total seconds, longest seconds]
        self.fixtures: dict[str, list[float]] = {}
        #: module path -> [wall seconds, CPU seconds]
        self.modules: dict[str, list[float]] = {}
        #: worker id -> when its last test finished (epoch seconds)
        self.finished: dict[str, float] = {}
        self._module: str | None = None
        self._started = (0.0, 0.0)

    def fixture_done(self, name: str, seconds: float) -> None:
        entry = self.fixtures.setdefault(name, [0, 0.0, 0.0])
        entry[0] += 1
        entry[1] += seconds
        entry[2] = max(entry[2], seconds)

    def module_starts(self, path: str) -> None:
        if path == self._module:
            return
        self.module_ends()
        self._module = path
        self._started = (time.monotonic(), _cpu())

    def module_ends(self) -> None:
        if self._module is None:
            return
        wall, cpu = self._started
        entry = self.modules.setdefault(self._module, [0.0, 0.0])
        entry[0] += time.monotonic() - wall
        entry[1] += _cpu() - cpu
        self._module = None

    def merge(self, other: dict) -> None:
        for name, (count, total, longest) in other['fixtures'].items():
            entry = self.fixtures.setdefault(name, [0, 0.0, 0.0])
            entry[0] += count
            entry[1] += total
            entry[2] = max(entry[2], longest)
        for path, (wall, cpu) in other['modules'].items():
            entry = self.modules.setdefault(path, [0.0, 0.0])
            entry[0] += wall
            entry[1] += cpu
        self.finished.update(other.get('finished', {}))

    def as_dict(self) -> dict:
        return {'fixtures': self.fixtures, 'modules': self.modules,
                'finished': self.finished}


def report_lines(timing: Timing, rows: int) -> list[str]:
    """The two tables, ``rows`` rows each."""
    lines = [f'slowest fixture set-ups (top {rows}): total s, set-ups, '
             'longest s']
    fixtures = sorted(timing.fixtures.items(), key=lambda item: -item[1][1])
    for name, (count, total, longest) in fixtures[:rows]:
        lines.append(f'{total:9.1f} {int(count):6d} {longest:8.1f}  {name}')
    lines.append(f'busiest test modules (top {rows}): CPU s (with child '
                 'processes), wall s')
    modules = sorted(timing.modules.items(), key=lambda item: -item[1][1])
    for path, (wall, cpu) in modules[:rows]:
        lines.append(f'{cpu:9.1f} {wall:9.1f}  {path}')
    if len(timing.finished) > 1:
        last = max(timing.finished.values())
        lines.append('workers idle at the end, waiting for the last one: '
                     + ', '.join(f'{worker} {last - when:.0f} s'
                                 for worker, when in
                                 sorted(timing.finished.items())))
    return lines


class TimingPlugin:

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.timing = Timing()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        started = time.monotonic()
        yield
        # Where it is defined too: many modules have a "stack" of their own.
        name = fixturedef.argname
        if fixturedef.baseid:
            name += f' ({fixturedef.baseid})'
        self.timing.fixture_done(name, time.monotonic() - started)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        self.timing.module_starts(item.nodeid.split('::', 1)[0])

    def pytest_sessionfinish(self, session):
        self.timing.module_ends()
        workeroutput = getattr(self.config, 'workeroutput', None)
        if workeroutput is not None:  # an xdist worker
            worker = self.config.workerinput['workerid']
            self.timing.finished[worker] = time.time()
            workeroutput[_KEY] = json.dumps(self.timing.as_dict())

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        found = getattr(node, 'workeroutput', {}).get(_KEY)
        if found:
            self.timing.merge(json.loads(found))

    def pytest_terminal_summary(self, terminalreporter):
        rows = _rows()
        if rows <= 0 or not (self.timing.fixtures or self.timing.modules):
            return
        terminalreporter.section('where the time went')
        for line in report_lines(self.timing, rows):
            terminalreporter.write_line(line)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(TimingPlugin(config), 'swconfig-timing')
