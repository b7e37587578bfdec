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

"""The documentation builds with warnings as errors, as
``python3 tools/dev.py docs`` builds it: a broken reference, a page left
out of every toctree, an option or policy the generated references cannot
render, or a release note reno cannot read fails the suite."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_docs_build_without_warnings(tmp_path):
    result = subprocess.run(
        [sys.executable, '-m', 'sphinx', '-W', '--keep-going', '-q',
         '-b', 'html', str(ROOT / 'doc' / 'source'), str(tmp_path / 'html')],
        capture_output=True, text=True, timeout=600, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / 'html' / 'index.html').exists()
    assert (tmp_path / 'html' / 'admin' / 'configuration.html').exists()


def test_release_notes_lint():
    result = subprocess.run(
        [str(pathlib.Path(sys.executable).parent / 'reno'), 'lint'],
        capture_output=True,
        text=True, timeout=300, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
