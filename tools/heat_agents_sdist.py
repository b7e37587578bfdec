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

"""heat-agents' scripts, from its source distribution on PyPI.

heat-agents publishes a wheel without the things a server runs
(``55-heat-config``, ``heat-config-notify``, the hooks): only its sdist has
them. ``fetch`` downloads it with pip into the git-ignored
``.cache/heat-agents`` on first use and extracts it once, safely when
several processes (pytest-xdist workers, two local agents) ask at the same
time. Standard library only: ``tools/dev.py agent`` uses it before any
virtualenv of swconfig's exists, and the tests' agent fixture
(``tests/fixtures/agents.py``) uses it too, so both run the same scripts.
"""

from collections.abc import Iterator
import contextlib
import dataclasses
import errno
import fcntl
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

VERSION = '13.0.0'
REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]
CACHE_DIR = REPO_ROOT / '.cache' / 'heat-agents'
DOWNLOAD_TIMEOUT = 600.0

# Paths inside the heat-agents source distribution.
_HEAT_CONFIG = 'heat-config/os-refresh-config/configure.d/55-heat-config'
_NOTIFY = 'heat-config/bin/heat-config-notify'
_HOOK_SCRIPT = 'heat-config-script/install.d/hook-script.py'
_TEMPLATES = 'heat-config/os-apply-config'
_DEPLOYMENTS_TEMPLATE = _TEMPLATES + '/var/run/heat-config'


@dataclasses.dataclass(frozen=True)
class HeatAgents:
    """The extracted heat-agents source distribution."""

    version: str
    root: pathlib.Path

    @property
    def heat_config(self) -> pathlib.Path:
        """``55-heat-config``."""
        return self.root / _HEAT_CONFIG

    @property
    def notify(self) -> pathlib.Path:
        """``heat-config-notify``."""
        return self.root / _NOTIFY

    @property
    def hook_script(self) -> pathlib.Path:
        """The ``script`` group's hook, ``hook-script.py``."""
        return self.root / _HOOK_SCRIPT

    @property
    def deployments_template(self) -> pathlib.Path:
        """The heat-config element's os-apply-config template that writes
        the ``deployments`` list to ``/var/run/heat-config/heat-config``."""
        return self.root / _DEPLOYMENTS_TEMPLATE / 'heat-config'

    @property
    def templates(self) -> pathlib.Path:
        """The heat-config element's os-apply-config template root: what
        ``os-apply-config -t`` renders a server's files from
        (``/etc/os-collect-config.conf`` among them)."""
        return self.root / _TEMPLATES

    def check(self) -> 'HeatAgents':
        for path in (self.heat_config, self.notify, self.hook_script,
                     self.deployments_template):
            if not path.is_file():
                raise RuntimeError(f'heat-agents {self.version}: {path} '
                                   'missing from the source distribution')
        return self


@contextlib.contextmanager
def file_lock(path: pathlib.Path, timeout: float) -> Iterator[None]:
    """An exclusive ``flock`` on *path*, shared by every process."""
    with open(path, 'a') as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() > deadline:
                    raise RuntimeError(f'timed out waiting for {path}')
                time.sleep(0.2)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _download_sdist(version: str, cache: pathlib.Path, timeout: float,
                    python: str) -> pathlib.Path:
    """pip-download the sdist into *cache*; the file appears atomically."""
    sdist = cache / f'heat_agents-{version}.tar.gz'
    if sdist.is_file():
        return sdist
    scratch = pathlib.Path(tempfile.mkdtemp(prefix='.download-', dir=cache))
    try:
        command = [python, '-m', 'pip', 'download', '--no-deps',
                   '--no-binary', ':all:', '--disable-pip-version-check',
                   '--no-input', f'heat-agents=={version}',
                   '-d', str(scratch)]
        try:
            proc = subprocess.run(command, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise RuntimeError(f'{shlex.join(command)} timed out after '
                               f'{timeout}s') from exc
        found = sorted(scratch.glob('*.tar.gz'))
        if proc.returncode or not found:
            raise RuntimeError(
                f'{shlex.join(command)} failed ({proc.returncode}):\n'
                f'{proc.stdout}{proc.stderr}')
        os.replace(found[0], sdist)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return sdist


def _extract(sdist: pathlib.Path, version: str, target: pathlib.Path) -> None:
    """Unpack *sdist* to *target*, which appears complete or not at all."""
    scratch = pathlib.Path(
        tempfile.mkdtemp(prefix='.extract-', dir=target.parent))
    try:
        with tarfile.open(sdist) as archive:
            archive.extractall(scratch, filter='data')
        HeatAgents(version, scratch / f'heat_agents-{version}').check()
        os.rename(scratch / f'heat_agents-{version}', target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def fetch(version: str = VERSION,
          cache_dir: str | os.PathLike | None = None,
          timeout: float = DOWNLOAD_TIMEOUT,
          python: str = sys.executable) -> HeatAgents:
    """The heat-agents scripts, downloaded and extracted once per cache.

    The sdist is fetched with ``<python> -m pip download`` into
    *cache_dir* (default: ``<repo>/.cache/heat-agents``) and unpacked to
    ``<cache_dir>/heat_agents-<version>/``. An flock serialises the work
    between processes, and both the tarball and the tree are moved into
    place with an atomic rename, so a reader never sees half of either.
    """
    cache = pathlib.Path(cache_dir) if cache_dir else CACHE_DIR
    target = cache / f'heat_agents-{version}'
    if target.is_dir():
        return HeatAgents(version, target).check()
    cache.mkdir(parents=True, exist_ok=True)
    with file_lock(cache / f'.heat-agents-{version}.lock', timeout + 60):
        if not target.is_dir():
            sdist = _download_sdist(version, cache, timeout, python)
            _extract(sdist, version, target)
    return HeatAgents(version, target).check()
