#!/usr/bin/env python3
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

"""Set up a private virtualenv and run swconfig or its test suite.

The only prerequisite is python3: this script creates ``.venv`` next to the
repository and installs swconfig (editable) into it: with its runtime
requirements only for ``serve``, with the test requirements as well for
``test``, with the documentation tools as well for ``docs``. It installs
with uv (the one on PATH, or one it installs into a small virtualenv of
its own, ``.cache/uv``), which takes seconds where pip takes most of a
minute; where uv cannot be had it says so in one line and uses pip
(``SWCONFIG_INSTALLER=pip`` chooses pip outright). It
installs again only when a requirements file or ``setup.cfg`` changed,
and shows the installer's output only when it fails. ``agent`` needs
none of it: it runs the real os-collect-config and heat-agents for a
server from a virtualenv of their own (tools/local_agent.py).

    python3 tools/dev.py serve [--port N] [swconfig-all args...]
    python3 tools/dev.py test [pytest args...]  # 3 processes; -n 0: one
    python3 tools/dev.py agent SERVER [--once]  # a local agent for SERVER
    python3 tools/dev.py docs        # doc/build/html, warnings are errors
    python3 tools/dev.py releasenotes  # check them, print them as rst
    python3 tools/dev.py genconfig   # etc/swconfig/swconfig.conf.sample
    python3 tools/dev.py genpolicy   # etc/swconfig/policy.yaml.sample
"""

import configparser
import errno
import hashlib
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import venv

if __package__:  # imported as tools.dev (the tests)
    from tools import local_agent
else:  # run as a script: tools/ is on sys.path
    import local_agent

ROOT = pathlib.Path(__file__).resolve().parent.parent
VENV = pathlib.Path(os.environ.get('SWCONFIG_VENV', ROOT / '.venv'))
BIN = VENV / 'bin'
#: The virtualenv that holds uv, where the machine has none on PATH.
UV_HOME = ROOT / '.cache' / 'uv'
# What each command needs installed, beyond swconfig itself (whose runtime
# requirements come from requirements.txt, through setup.cfg).
EXTRA_REQUIREMENTS = {
    'serve': [],
    'test': ['test-requirements.txt'],
    # The test requirements too: one venv serves both, with no reinstall
    # when switching between them.
    'docs': ['test-requirements.txt', 'doc/requirements.txt'],
    'releasenotes': ['test-requirements.txt', 'doc/requirements.txt'],
    'genconfig': [],
    'genpolicy': [],
}
# What each command other than serve and test runs (tox.ini runs the same).
COMMANDS = {
    'docs': [['reno', 'lint'],
             ['sphinx-build', '-W', '--keep-going', '-b', 'html',
              'doc/source', 'doc/build/html']],
    'releasenotes': [['reno', 'lint'], ['reno', 'report']],
    'genconfig': [['oslo-config-generator', '--config-file',
                   'etc/swconfig/swconfig-config-generator.conf']],
    'genpolicy': [['oslopolicy-sample-generator', '--config-file',
                   'etc/swconfig/swconfig-policy-generator.conf']],
}


def _fingerprint(files: list[str]) -> str:
    digest = hashlib.sha256()
    for name in ['requirements.txt', 'setup.cfg', *files]:
        digest.update(name.encode() + (ROOT / name).read_bytes())
    return digest.hexdigest()


def _run_quietly(command: list[str], what: str) -> None:
    """Run an installer; its output is shown only when it fails."""
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        sys.stderr.write(result.stdout + result.stderr)
        sys.exit(f'{what} failed: {" ".join(command)}')


def _pip_install(*args: str) -> None:
    _run_quietly([str(BIN / 'python'), '-m', 'pip', 'install',
                  '--disable-pip-version-check', '--no-input', '--quiet',
                  '--progress-bar', 'off', *args], 'pip install')


def find_uv() -> pathlib.Path | None:
    """uv: the one on PATH, else the one in ``UV_HOME``, installed there
    from PyPI the first time (a few seconds); None where it cannot be
    had (no index reachable, no wheel for this platform) or where
    ``SWCONFIG_INSTALLER=pip`` asks for pip."""
    if os.environ.get('SWCONFIG_INSTALLER') == 'pip':
        return None
    found = shutil.which('uv')
    if found:
        return pathlib.Path(found)
    uv = UV_HOME / 'bin' / 'uv'
    if not uv.exists():
        install = ['install', '--disable-pip-version-check', '--no-input',
                   '--quiet', 'uv']
        python = str(UV_HOME / 'bin' / 'python')
        try:
            # The pip of this python3 installs into a venv without one of
            # its own (half the time); a venv with pip where it cannot.
            venv.EnvBuilder(clear=True).create(UV_HOME)
            result = subprocess.run(
                [sys.executable, '-m', 'pip', '--python', python, *install],
                capture_output=True, text=True)
            if result.returncode:
                venv.EnvBuilder(with_pip=True, clear=True).create(UV_HOME)
                result = subprocess.run([python, '-m', 'pip', *install],
                                        capture_output=True, text=True)
        except (OSError, subprocess.SubprocessError):
            return None
        if result.returncode:
            return None
    return uv if uv.exists() else None


def _install(files: list[str]) -> None:
    """swconfig (editable) and the requirements ``files`` into ``VENV``,
    with uv if it can be had, else with pip."""
    requirements = [arg for name in files for arg in ('-r', str(ROOT / name))]
    uv = find_uv()
    if uv is not None:
        if not (BIN / 'python').exists():
            # --seed: pip in the venv too, for what runs ``python -m pip``
            # (the tests fetch heat-agents' sdist with it).
            _run_quietly([str(uv), 'venv', '--quiet', '--seed', '--python',
                          sys.executable, str(VENV)], 'uv venv')
        _run_quietly([str(uv), 'pip', 'install', '--quiet', '--python',
                      str(BIN / 'python'), *requirements, '-e', str(ROOT)],
                     'uv pip install')
        return
    if os.environ.get('SWCONFIG_INSTALLER') != 'pip':
        print('uv could not be had from the package index; installing '
              'with pip instead (slower)', flush=True)
    if not (BIN / 'python').exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    _pip_install('--upgrade', 'pip')
    _pip_install(*requirements, '-e', str(ROOT))


def ensure_venv(command: str) -> None:
    """Create the virtualenv and install what ``command`` needs, if it is
    not installed already (an install for a command that needs more
    also serves)."""
    files = EXTRA_REQUIREMENTS[command]
    # Any install that covers these files will do.
    wanted = {_fingerprint(other) for other in EXTRA_REQUIREMENTS.values()
              if set(files) <= set(other)}
    stamp = VENV / '.swconfig-installed'
    if stamp.exists() and stamp.read_text() in wanted:
        return
    what = (f'with {", ".join(files)}' if files
            else 'runtime requirements')
    print(f'Setting up {VENV} (swconfig, {what}); this takes a few seconds '
          f'the first time...', flush=True)
    _install(files)
    stamp.write_text(_fingerprint(files))


def _serve_port(args: list[str], env: dict[str, str]) -> list[str]:
    """Take ``--port N`` out of ``args`` into ``env``: oslo.config reads
    ``OS_API__BIND_PORT`` over any config file."""
    if '--port' not in args:
        return args
    index = args.index('--port')
    try:
        env['OS_API__BIND_PORT'] = str(int(args[index + 1]))
    except (IndexError, ValueError):
        sys.exit('--port takes a port number')
    return args[:index] + args[index + 2:]


def _config_files(args: list[str]) -> list[str]:
    """The ``--config-file`` arguments among swconfig-all's ``args``."""
    found = []
    for index, arg in enumerate(args):
        if arg == '--config-file' and index + 1 < len(args):
            found.append(args[index + 1])
        elif arg.startswith('--config-file='):
            found.append(arg.split('=', 1)[1])
    return found


def serve_address(args: list[str], env: dict[str, str]) -> tuple[str, str]:
    """Where swconfig-all will listen, for a client on this machine: the
    ``OS_API__BIND_*`` variables over the config files over the defaults
    (a wildcard bind address is reached on 127.0.0.1)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read(_config_files(args))
    except configparser.Error:
        pass  # swconfig-all says what is wrong with it
    host = env.get('OS_API__BIND_HOST') or parser.get(
        'api', 'bind_host', fallback='127.0.0.1')
    port = env.get('OS_API__BIND_PORT') or parser.get(
        'api', 'bind_port', fallback='8004')
    if host in ('0.0.0.0', '::', ''):
        host = '127.0.0.1'
    if ':' in host:
        host = f'[{host}]'
    return host, port


SERVE_HELP = """\
usage: python3 tools/dev.py serve [--port N] [swconfig-all options...]

Run swconfig-all, the embedded default (the REST API and an engine in one
process, SQLite, in-process messaging, no Keystone), on
http://127.0.0.1:8004, after setting up .venv with the runtime
requirements if needed. It prints the lines that point the swconfig
command, a local agent and a browser at it; Ctrl-C stops it.

options:
  -h, --help   show this help and exit (nothing is installed or started)
  --port N     listen on port N instead of 8004 (over the [api] bind_port
               of a --config-file)

Any other option goes to swconfig-all (--config-file FILE, --debug, ...;
.venv/bin/swconfig-all --help lists them).
"""


def port_in_use(host: str, port: str) -> bool:
    """Whether something already listens where swconfig-all would."""
    family = socket.AF_INET6 if host.startswith('[') else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host.strip('[]'), int(port)))
        except OSError as error:
            return error.errno == errno.EADDRINUSE
    return False


def serve_banner(args: list[str], env: dict[str, str]) -> str:
    """What ``serve`` prints before it starts: the lines that point the
    ``swconfig`` command (and a local agent) at it from another
    terminal."""
    host, port = serve_address(args, env)
    return (
        f'Starting swconfig-all on http://{host}:{port} (Ctrl-C stops '
        f'it).\n'
        f'In another terminal, from {ROOT}:\n'
        f'    export OS_AUTH_TYPE=none '
        f'OS_ENDPOINT=http://{host}:{port}/v1/demo\n'
        f'    export PATH="{BIN}:$PATH"  # the swconfig command\n'
        f'    python3 tools/dev.py agent SERVER --once  # an agent for '
        f'SERVER\n'
        f'Or in a browser: http://{host}:{port}/dashboard/?project=demo\n')


def _run_all(commands: list[list[str]], args: list[str],
             env: dict[str, str]) -> int:
    """Run ``commands`` from the venv in turn (extra ``args`` go to the
    last one); stop at the first that fails, with its exit status."""
    for index, (program, *rest) in enumerate(commands):
        extra = args if index == len(commands) - 1 else []
        code = subprocess.run([str(BIN / program), *rest, *extra],
                              env=env).returncode
        if code:
            return code
    return 0


#: pytest-xdist's processes for ``test``: most of the suite waits on real
#: services and processes, so three keep a 2-core machine busy.
TEST_WORKERS = 3
#: Arguments by which a ``test`` caller chooses the distribution itself.
_XDIST_CHOICES = ('-n', '--numprocesses', '--dist', 'no:xdist')


def pytest_args(args: list[str]) -> list[str]:
    """pytest's arguments for ``test``: ``args``, run by TEST_WORKERS
    processes a test module each (its fixtures start once), unless
    ``args`` choose (``-n 0`` runs in this one process)."""
    for arg in args:
        if arg.startswith(_XDIST_CHOICES):
            return args
    # --no-loadscope-reorder: modules in the order tests/conftest.py gives
    # them (the longest first), not by their number of tests.
    return ['-n', str(TEST_WORKERS), '--dist', 'loadfile',
            '--no-loadscope-reorder', *args]


#: What ``--help`` lists, in the order of the module's docstring.
_COMMAND_NAMES = ('serve', 'test', 'agent', 'docs', 'releasenotes',
                  'genconfig', 'genpolicy')


def main(argv: list[str]) -> int:
    if argv and argv[0] in ('-h', '--help', 'help'):
        print(__doc__)
        return 0
    if argv and argv[0] == 'agent':
        return local_agent.main(argv[1:])
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    if argv[0] not in EXTRA_REQUIREMENTS:
        print(f'tools/dev.py: unknown command {argv[0]!r}; the commands are '
              f'{", ".join(_COMMAND_NAMES)} (python3 tools/dev.py --help '
              f'says what each does).', file=sys.stderr)
        return 2
    if argv[0] == 'serve' and {'-h', '--help'} & set(argv[1:]):
        print(SERVE_HELP, end='')
        return 0
    env = dict(os.environ, PATH=f'{BIN}{os.pathsep}{os.environ["PATH"]}',
               VIRTUAL_ENV=str(VENV))
    # Where the commands run, and read relative --config-file paths from.
    os.chdir(ROOT)
    if argv[0] == 'serve':
        serve_args = _serve_port(argv[1:], env)
        host, port = serve_address(serve_args, env)
        if port_in_use(host, port):
            print(f'tools/dev.py serve: port {port} of {host} is in use '
                  f'(another swconfig-all?); stop that one, or use '
                  f'"python3 tools/dev.py serve --port N" with a free port '
                  f'N.', file=sys.stderr)
            return 1
    ensure_venv(argv[0])
    if argv[0] in COMMANDS:
        return _run_all(COMMANDS[argv[0]], argv[1:], env)
    if argv[0] == 'serve':
        cmd = [str(BIN / 'swconfig-all'), *serve_args]
        print(serve_banner(serve_args, env), flush=True)
    else:
        cmd = [str(BIN / 'python'), '-m', 'pytest', *pytest_args(argv[1:])]
    os.execve(cmd[0], cmd, env)  # noqa: S606 - replaces this process
    return 0  # not reached


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
