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

"""The suite's own timing report (tests/timing.py): what it adds up, and
that a run with xdist prints it from the workers' records."""

import os
import subprocess
import sys
import textwrap

from tests import timing


def test_merge_adds_counts_and_totals_and_keeps_the_longest():
    total = timing.Timing()
    total.fixture_done('keystone', 4.0)
    total.merge({'fixtures': {'keystone': [2, 10.0, 7.0]},
                 'modules': {'tests/a.py': [3.0, 5.0]}})
    total.merge({'fixtures': {}, 'modules': {'tests/a.py': [1.0, 2.0]}})
    assert total.fixtures == {'keystone': [3, 14.0, 7.0]}
    assert total.modules == {'tests/a.py': [4.0, 7.0]}


def test_the_tail_is_how_long_each_worker_waited_for_the_last():
    records = timing.Timing()
    records.merge({'fixtures': {}, 'modules': {},
                   'finished': {'gw0': 1000.0, 'gw1': 1090.0}})
    records.merge({'fixtures': {}, 'modules': {},
                   'finished': {'gw2': 1100.0}})
    tail = timing.report_lines(records, 1)[-1]
    assert tail.endswith('gw0 100 s, gw1 10 s, gw2 0 s'), tail


def test_report_lists_the_costliest_first_and_only_as_many_as_asked():
    records = timing.Timing()
    records.fixtures = {'cheap': [1, 0.5, 0.5], 'dear': [2, 9.0, 5.0],
                        'middling': [1, 3.0, 3.0]}
    records.modules = {'tests/x.py': [10.0, 1.0], 'tests/y.py': [2.0, 8.0]}
    lines = timing.report_lines(records, 2)
    fixture_rows = lines[1:3]
    assert [row.split()[-1] for row in fixture_rows] == ['dear', 'middling']
    assert fixture_rows[0].split()[:3] == ['9.0', '2', '5.0']
    # Modules by CPU, not wall time.
    assert [row.split()[-1] for row in lines[4:]] == ['tests/y.py',
                                                      'tests/x.py']


def test_a_run_with_xdist_prints_the_workers_fixture_and_module_times(
        tmp_path):
    (tmp_path / 'test_busy.py').write_text(textwrap.dedent('''
        import subprocess
        import sys
        import pytest

        @pytest.fixture(scope='module')
        def child_cpu():
            # CPU in a child process, as a real service's start-up costs:
            # 0.3 s of it whatever the machine's speed (the report shows
            # tenths, and a fixed amount of work can round to 0.0).
            subprocess.run([sys.executable, '-c',
                            'import time\\n'
                            'while time.process_time() < 0.3: pass'],
                           check=True)

        def test_one(child_cpu):
            pass

        def test_two(child_cpu):
            pass
    '''))
    (tmp_path / 'test_idle.py').write_text('def test_idle():\n    pass\n')
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    result = subprocess.run(
        # loadfile: both tests of test_busy.py on one worker.
        [sys.executable, '-m', 'pytest', '-p', 'tests.timing', '-n', '2',
         '--dist', 'loadfile', '-p', 'no:cacheprovider', '-q',
         str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
        env=dict(os.environ, PYTHONPATH=root, SWCONFIG_TEST_TIMING='5'))
    assert result.returncode == 0, result.stdout + result.stderr
    report = result.stdout.split('where the time went', 1)[1]
    fixture_row = next(line for line in report.splitlines()
                       if 'child_cpu' in line)
    # Set up once (module scope) although two tests use it.
    assert fixture_row.split()[1] == '1'
    module_rows = report.split('busiest test modules', 1)[1].splitlines()[1:]
    busy = next(row for row in module_rows if 'test_busy.py' in row)
    idle = next(row for row in module_rows if 'test_idle.py' in row)
    # The child's CPU counts for its module.
    assert float(busy.split()[0]) > float(idle.split()[0])
    tail = next(line for line in report.splitlines()
                if line.startswith('workers idle at the end'))
    assert 'gw0' in tail and 'gw1' in tail
