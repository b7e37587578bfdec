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

"""The dashboard's files ship in the sdist and the wheel: pbr takes
package data from git's file list, so a file that is on disk but not in
git (or a suffix the build leaves out) would be missing from an
installed dashboard."""

import os
import pathlib
import subprocess
import sys
import tarfile

from swconfig import dashboard

ROOT = pathlib.Path(__file__).resolve().parents[3]
RELATIVE = dashboard.STATIC_DIR.relative_to(ROOT)
#: pbr would otherwise write release notes, a ChangeLog and AUTHORS into
#: the tree while building.
QUIET = {'SKIP_GENERATE_RENO': '1', 'SKIP_WRITE_GIT_CHANGELOG': '1',
         'SKIP_GENERATE_AUTHORS': '1'}


def _files() -> set[str]:
    found = {path.name for path in dashboard.STATIC_DIR.iterdir()}
    assert {'index.html', 'app.js', 'style.css', 'validate.js'} <= found
    return found


def _setup(out: pathlib.Path, *args: str) -> None:
    """A setup.py command whose egg-info goes to ``out``: nothing is
    written into the tree."""
    subprocess.run([sys.executable, 'setup.py', '-q', 'egg_info',
                    '--egg-base', str(out), *args], cwd=ROOT,
                   check=True, capture_output=True,
                   env={**os.environ, **QUIET})


def test_the_wheel_holds_every_file(tmp_path):
    # build_py is what bdist_wheel packs: the modules and package data.
    _setup(tmp_path, 'build_py', '--build-lib', str(tmp_path / 'lib'))
    built = {path.name for path in (tmp_path / 'lib' / RELATIVE).iterdir()}
    assert built == _files()


def test_the_sdist_holds_every_file(tmp_path):
    _setup(tmp_path, 'sdist', '-d', str(tmp_path / 'sdist'))
    (archive,) = (tmp_path / 'sdist').glob('*.tar.gz')
    with tarfile.open(archive) as tar:
        names = {pathlib.PurePosixPath(name) for name in tar.getnames()}
    shipped = {name.name for name in names
               if name.parent.parts[1:] == RELATIVE.parts}
    assert shipped == _files()
