#!/usr/bin/env python3
"""Set up a private virtualenv and run swconfig or its test suite.

The only prerequisite is python3: this script creates ``.venv`` next to the
repository, installs swconfig (editable) with its test requirements, and
re-installs only when a requirements file or ``setup.cfg`` changed.

    python3 tools/dev.py serve [swconfig-all args...]
    python3 tools/dev.py test [pytest args...]
"""

import hashlib
import os
import pathlib
import subprocess
import sys
import venv

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENV = pathlib.Path(os.environ.get('SWCONFIG_VENV', ROOT / '.venv'))
BIN = VENV / 'bin'
INPUTS = ('requirements.txt', 'test-requirements.txt', 'setup.cfg')


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for name in INPUTS:
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()


def ensure_venv() -> None:
    """Create the virtualenv and install swconfig into it if needed."""
    stamp = VENV / '.swconfig-installed'
    wanted = _fingerprint()
    if stamp.exists() and stamp.read_text() == wanted:
        return
    if not (BIN / 'python').exists():
        print(f'creating virtualenv in {VENV}', flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = [str(BIN / 'python'), '-m', 'pip', '--disable-pip-version-check']
    subprocess.run([*pip, 'install', '-q', '--upgrade', 'pip'], check=True)
    print('installing swconfig and its test requirements', flush=True)
    subprocess.run(
        [*pip, 'install', '-q', '-r', str(ROOT / 'test-requirements.txt'),
         '-e', str(ROOT)],
        check=True)
    stamp.write_text(wanted)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ('serve', 'test'):
        print(__doc__, file=sys.stderr)
        return 2
    ensure_venv()
    env = dict(os.environ, PATH=f'{BIN}{os.pathsep}{os.environ["PATH"]}',
               VIRTUAL_ENV=str(VENV))
    if argv[0] == 'serve':
        cmd = [str(BIN / 'swconfig-all'), *argv[1:]]
    else:
        cmd = [str(BIN / 'python'), '-m', 'pytest', *argv[1:]]
    os.chdir(ROOT)
    os.execve(cmd[0], cmd, env)  # noqa: S606 - replaces this process
    return 0  # not reached


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
