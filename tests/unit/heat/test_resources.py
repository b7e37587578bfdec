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

"""The Heat plug-in's unit checks (``heat_checks.py``), each reported here.

They import Heat, whose global options share names with swconfig's, so
they run in a pytest of their own (no conftest, nothing of swconfig's
service imported) once per session; each check function here is one test
that passes only when every case of it passed there.
"""

import ast
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

CHECKS = pathlib.Path(__file__).with_name('heat_checks.py')
ROOT = CHECKS.parents[3]


def _check_names() -> list[str]:
    tree = ast.parse(CHECKS.read_text())
    return [node.name for node in tree.body
            if isinstance(node, ast.FunctionDef)
            and node.name.startswith('test_')]


@pytest.fixture(scope='module')
def outcomes(tmp_path_factory) -> dict[str, list[tuple[str, str]]]:
    """check function -> [(case id, failure text or '')] from one run."""
    report = tmp_path_factory.mktemp('heat-checks') / 'report.xml'
    run = subprocess.run(
        [sys.executable, '-m', 'pytest', '-q', '--noconftest',
         '-p', 'no:cacheprovider', f'--junitxml={report}', str(CHECKS)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    if not report.exists():
        pytest.fail(f'the checks did not run:\n{run.stdout[-3000:]}'
                    f'{run.stderr[-3000:]}')
    found: dict[str, list[tuple[str, str]]] = {}
    # The report is the file the child pytest just wrote.
    for case in ElementTree.parse(report).iter('testcase'):  # noqa: S314
        name = case.get('name', '')
        problems = [element.text or element.get('message', '')
                    for element in case
                    if element.tag in ('failure', 'error', 'skipped')]
        found.setdefault(name.split('[')[0], []).append(
            (name, '\n'.join(problems)))
    return found


@pytest.mark.parametrize('check', _check_names())
def test_heat_check(check, outcomes):
    cases = outcomes.get(check)
    assert cases, f'{check} did not run'
    failed = [f'{name}:\n{text}' for name, text in cases if text]
    assert not failed, '\n\n'.join(failed)
