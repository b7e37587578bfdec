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

"""A local agent: the real os-collect-config and heat-agents for one
server, on this machine, against a running swconfig.

    python3 tools/dev.py agent SERVER [--once] [--interval S]

A server built for Heat software configs runs os-collect-config, which
polls the server's metadata URL and, when the document changes, runs
os-refresh-config; its ``configure.d`` runs os-apply-config (which writes
the ``deployments`` list to ``/var/run/heat-config/heat-config``) and
heat-agents' ``55-heat-config``, which runs each new deployment with the
hook of its group and signals the result with ``heat-config-notify``.

This module builds exactly that, without root and outside the system:

* a virtualenv of its own (``.cache/local-agent/venv``, or
  ``$SWCONFIG_AGENT_VENV``) with os-collect-config, os-refresh-config and
  os-apply-config from PyPI, installed on first use and re-used after;
* heat-agents' scripts from its source distribution
  (tools/heat_agents_sdist.py: the wheel has none of them);
* per server, in ``.cache/local-agent/servers/<SERVER>`` (or under
  ``$SWCONFIG_AGENT_STATE``), what the heat-config and heat-config-script
  image elements install: os-refresh-config's ``configure.d`` with
  ``20-os-apply-config`` and ``55-heat-config``, the os-apply-config
  template, the ``script`` hook, and the agent's state (os-collect-config's
  caches, heat-config's ``deployed`` markers). os-refresh-config,
  os-apply-config and heat-agents read their directories from the
  variables in ``agent.env`` there (``OS_REFRESH_CONFIG_BASE_DIR``,
  ``OS_CONFIG_APPLIER_TEMPLATES``, ``HEAT_*``);
* ``os-collect-config.conf`` from the service's own settings for the
  server (``GET .../servers/SERVER/agent-config``, which claims the server
  for the project on first use), with the ``command`` and directories of
  this agent.

The service is the one the ``swconfig`` command would use: ``OS_ENDPOINT``
(``http://127.0.0.1:8004/v1/demo``, the local ``serve``, by default) with
no token under ``OS_AUTH_TYPE=none``, or the Keystone token in
``OS_TOKEN``. Every step and command is printed, prefixed ``==>``.

``--once`` makes one collection (``os-collect-config --one-time``), then
follows every deployment of the collected document until the service
shows it finished, and exits 0 when all are ``COMPLETE`` (1 when one
failed, was not run, or did not finish in time, or when the service
cannot be reached). Without it, os-collect-config replaces this process
and polls until it is stopped.
"""

import argparse
import configparser
import dataclasses
import json
import os
import pathlib
import shlex
import subprocess
import sys
import time
from typing import Any
from typing import TextIO
import urllib.error
import urllib.parse
import urllib.request
import venv

if __package__:  # imported as tools.local_agent (the tests)
    from tools import heat_agents_sdist
else:  # imported by tools/dev.py, run as a script
    import heat_agents_sdist

ROOT = pathlib.Path(__file__).resolve().parents[1]
CACHE = ROOT / '.cache' / 'local-agent'
DEFAULT_ENDPOINT = 'http://127.0.0.1:8004/v1/demo'
#: What the agent's virtualenv holds (heat-config-notify's ``requests``
#: comes with os-collect-config).
REQUIREMENTS = ('os-collect-config>=14.0', 'os-refresh-config>=14.0',
                'os-apply-config>=14.0')
#: Seconds between two polls of the metadata URL when not ``--once``.
DEFAULT_INTERVAL = 5.0
#: How long ``--once`` waits for the service to apply the signals.
SIGNAL_WAIT = 120.0
HTTP_TIMEOUT = 30.0
FINISHED = ('COMPLETE', 'FAILED')
#: The inputs heat-config-notify signals through: a URL (HEAT_SIGNAL and
#: the TempURL transports), a Zaqar queue, or Heat's own API.
SIGNAL_INPUTS = ('deploy_signal_id', 'deploy_queue_id', 'deploy_auth_url')
#: OS_AUTH_TYPE values that send no token (the CLI's noauth).
NO_AUTH = ('none', 'noauth', '')
PROG = 'python3 tools/dev.py agent'


class AgentError(Exception):
    """Why the local agent stopped, as one sentence for the user."""


def say(message: str, out: TextIO | None = None) -> None:
    """One step of the agent, on stdout (or *out*)."""
    print(f'==> {message}', file=out or sys.stdout, flush=True)


# -- the agent's virtualenv --------------------------------------------------

def _run_installer(command: list[str], failure: str) -> None:
    """Run an installer, showing the command; its output only if it
    fails, then ``failure``."""
    say(f'$ {shlex.join(command)}')
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode:
        sys.stderr.write(result.stdout + result.stderr)
        raise AgentError(failure)


def _pip(python: pathlib.Path, *args: str) -> None:
    _run_installer(
        [str(python), '-m', 'pip', 'install', '--disable-pip-version-check',
         '--no-input', '--quiet', '--progress-bar', 'off', *args],
        f'pip could not install {" ".join(args)} into '
        f'{python.parent.parent} (its output is above).')


def _uv() -> pathlib.Path | None:
    """uv as ``tools/dev.py`` finds it (None: install with pip)."""
    if __package__:  # imported as tools.local_agent (the tests)
        from tools import dev
    else:  # tools/ is on sys.path
        import dev
    return dev.find_uv()


def ensure_venv(path: pathlib.Path) -> pathlib.Path:
    """The agent's virtualenv at *path*, created and filled on first use
    (under a lock: two agents may start at once); its bin directory."""
    stamp = path / '.swconfig-agent-installed'
    wanted = '\n'.join(REQUIREMENTS)
    if stamp.is_file() and stamp.read_text() == wanted:
        return path / 'bin'
    path.parent.mkdir(parents=True, exist_ok=True)
    with heat_agents_sdist.file_lock(path.parent / f'.{path.name}.lock', 900):
        if stamp.is_file() and stamp.read_text() == wanted:
            return path / 'bin'
        say(f'Setting up {path} ({", ".join(REQUIREMENTS)}); this takes '
            f'seconds with uv, a minute with pip, the first time')
        python = path / 'bin' / 'python'
        uv = _uv()
        if uv is not None:
            failure = f'uv could not set up {path} (its output is above).'
            if not python.exists():
                _run_installer([str(uv), 'venv', '--quiet', '--seed',
                                '--python', sys.executable, str(path)],
                               failure)
            _run_installer([str(uv), 'pip', 'install', '--quiet', '--python',
                            str(python), *REQUIREMENTS], failure)
        else:
            if not python.exists():
                creating = [sys.executable, '-m', 'venv', str(path)]
                say(f'$ {shlex.join(creating)}')
                venv.EnvBuilder(with_pip=True).create(path)
            _pip(python, '--upgrade', 'pip')
            _pip(python, *REQUIREMENTS)
        stamp.write_text(wanted)
    return path / 'bin'


# -- swconfig's REST API -----------------------------------------------------

def _error_message(error: urllib.error.HTTPError) -> str:
    """Heat's error body as ``<title> (HTTP <code>): <message>``."""
    text = error.read().decode('utf-8', 'replace')
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    title, message = error.reason, text.strip()
    if isinstance(body, dict):
        title = body.get('title') or title
        message = ((body.get('error') or {}).get('message')
                   or body.get('explanation') or message)
    return f'{title} (HTTP {error.code}): {" ".join(message.split())}'


class Service:
    """The REST calls the agent makes, to one project's endpoint."""

    def __init__(self, endpoint: str, token: str | None) -> None:
        self.endpoint = endpoint.rstrip('/')
        self.token = token

    @classmethod
    def from_environ(cls, environ: dict[str, str]) -> 'Service':
        """The service the ``swconfig`` command would use, as far as the
        agent can tell without Keystone: ``OS_ENDPOINT`` and, unless
        ``OS_AUTH_TYPE`` is ``none``, the token in ``OS_TOKEN``."""
        endpoint = environ.get('OS_ENDPOINT') or DEFAULT_ENDPOINT
        if urllib.parse.urlsplit(endpoint).scheme not in ('http', 'https'):
            raise AgentError(f'OS_ENDPOINT={endpoint} is not an http(s) '
                             f'URL such as {DEFAULT_ENDPOINT}.')
        auth_type = environ.get('OS_AUTH_TYPE', '').lower()
        token = environ.get('OS_TOKEN') or None
        if auth_type in ('none', 'noauth'):
            token = None
        elif auth_type not in NO_AUTH and token is None:
            raise AgentError(
                f'OS_AUTH_TYPE={auth_type} needs a Keystone token, which '
                f'the local agent takes from OS_TOKEN (export OS_TOKEN='
                f'$(openstack token issue -f value -c id)); with the '
                f'embedded default use OS_AUTH_TYPE=none.')
        return cls(endpoint, token)

    def get(self, path: str) -> Any:
        url = self.endpoint + path
        headers = {'Accept': 'application/json'}
        if self.token:
            headers['X-Auth-Token'] = self.token
        # from_environ let only http(s) endpoints through.
        request = urllib.request.Request(url, headers=headers)  # noqa: S310
        try:
            with urllib.request.urlopen(request,  # noqa: S310
                                        timeout=HTTP_TIMEOUT) as reply:
                return json.load(reply)
        except urllib.error.HTTPError as error:
            raise AgentError(f'GET {url} answered '
                             f'{_error_message(error)}') from error
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, 'reason', error)
            reason = getattr(reason, 'strerror', None) or reason
            raise AgentError(
                f'Cannot reach swconfig at {self.endpoint} ({reason}). '
                f'Start it with "python3 tools/dev.py serve", or set '
                f'OS_ENDPOINT to the service you use.') from error
        except ValueError as error:
            raise AgentError(f'GET {url} answered with a body that is not '
                             f'JSON.') from error

    def agent_settings(self, server: str) -> dict:
        """The ``os-collect-config`` settings of *server*."""
        say(f'GET {self.endpoint}/servers/{server}/agent-config')
        answer = self.get(f'/servers/{_quote(server)}/agent-config')
        return answer['os-collect-config']

    def deployments(self, server: str) -> list[dict]:
        return self.get(f'/software_deployments?server_id='
                        f'{_quote(server)}')['software_deployments']

    def deployment(self, deployment_id: str) -> dict:
        return self.get(f'/software_deployments/'
                        f'{_quote(deployment_id)}')['software_deployment']


def _quote(value: str) -> str:
    return urllib.parse.quote(value, safe='')


# -- one server's directory --------------------------------------------------

# os-apply-config writes under / by default: this server's directory here.
_APPLY_CONFIG = '''#!/bin/sh
# heat-config's configure.d/20-os-apply-config, with its output under this
# agent's directory instead of /.
set -eu
exec os-apply-config --output {root}
'''
#: Variables a server's shell should not pass on to the agent.
_UNSET = ('LC_ALL', 'LC_CTYPE', 'OS_CONFIG_FILES', 'PYTHONPATH',
          'PYTHONHOME', 'VIRTUAL_ENV', 'OS_TOKEN')


@dataclasses.dataclass(frozen=True)
class ServerDir:
    """What a Heat software-config image puts in /usr/libexec, /var/lib
    and /var/run, for one server, under *root*."""

    root: pathlib.Path

    @property
    def occ_config(self) -> pathlib.Path:
        return self.root / 'os-collect-config.conf'

    @property
    def cachedir(self) -> pathlib.Path:
        return self.root / 'os-collect-config' / 'cache'

    @property
    def refresh_config(self) -> pathlib.Path:
        """os-refresh-config's base directory (its phases' ``*.d``)."""
        return self.root / 'os-refresh-config'

    @property
    def templates(self) -> pathlib.Path:
        return self.root / 'os-apply-config'

    @property
    def shell_config(self) -> pathlib.Path:
        """Where os-apply-config writes the ``deployments`` list."""
        return self.root / 'var' / 'run' / 'heat-config' / 'heat-config'

    @property
    def deployed(self) -> pathlib.Path:
        return self.root / 'deployed'

    @property
    def hooks(self) -> pathlib.Path:
        return self.root / 'hooks'

    @property
    def env_file(self) -> pathlib.Path:
        return self.root / 'agent.env'

    def build(self, agents: 'heat_agents_sdist.HeatAgents') -> None:
        """Install the heat-config and heat-config-script elements' files
        (again each time: heat-agents' version may have changed)."""
        configure = self.refresh_config / 'configure.d'
        template = self.templates / 'var' / 'run' / 'heat-config'
        for path in (configure, template, self.hooks, self.cachedir,
                     self.shell_config.parent):
            path.mkdir(parents=True, exist_ok=True)
        apply_config = configure / '20-os-apply-config'
        apply_config.write_text(
            _APPLY_CONFIG.format(root=shlex.quote(str(self.root))))
        apply_config.chmod(0o755)
        _link(configure / '55-heat-config', agents.heat_config)
        _link(self.hooks / 'script', agents.hook_script)
        (template / 'heat-config').write_text(
            agents.deployments_template.read_text())

    def variables(self, venv_bin: pathlib.Path,
                  agents: 'heat_agents_sdist.HeatAgents') -> dict[str, str]:
        """What os-collect-config and its command get on top of the
        caller's environment (``PATH`` is prepended to)."""
        return {
            'PATH': str(venv_bin),
            # As the agents' tests do: os-collect-config's collectors fail
            # to restore some locales.
            'LANG': 'C',
            'PYTHONCOERCECLOCALE': '0',
            'OS_REFRESH_CONFIG_BASE_DIR': str(self.refresh_config),
            'OS_CONFIG_APPLIER_TEMPLATES': str(self.templates),
            'HEAT_SHELL_CONFIG': str(self.shell_config),
            'HEAT_CONFIG_DEPLOYED': str(self.deployed),
            # Never let 55-heat-config migrate a real /var/run directory.
            'HEAT_CONFIG_DEPLOYED_OLD': str(self.root / 'deployed-old'),
            'HEAT_CONFIG_HOOKS': str(self.hooks),
            'HEAT_CONFIG_NOTIFY': str(agents.notify),
            'HEAT_SCRIPT_WORKING': str(self.root / 'script' / 'working'),
            'HEAT_SCRIPT_OUTPUTS': str(self.root / 'script' / 'outputs'),
        }

    def environ(self, variables: dict[str, str],
                base: dict[str, str]) -> dict[str, str]:
        """*base* with *variables* applied, as ``agent.env`` does."""
        env = {key: value for key, value in base.items()
               if key not in _UNSET}
        env.update(variables)
        env['PATH'] = os.pathsep.join(
            [variables['PATH'], base.get('PATH', os.defpath)])
        return env

    def write_env_file(self, variables: dict[str, str]) -> None:
        """``agent.env``: source it to run the printed command by hand."""
        lines = ['# The environment of this local agent (tools/dev.py '
                 'agent): source it,', '# then run the command it printed.',
                 f'unset {" ".join(_UNSET)}']
        for key, value in variables.items():
            value = shlex.quote(value)
            if key == 'PATH':
                value += ':"$PATH"'
            lines.append(f'export {key}={value}')
        self.env_file.write_text('\n'.join(lines) + '\n')

    def write_occ_config(self, settings: dict, interval: float) -> None:
        """os-collect-config.conf: the service's collectors and their
        settings, with this agent's command, caches and interval."""
        parser = configparser.ConfigParser(interpolation=None)
        parser['DEFAULT'] = {
            'collectors': '\n'.join(settings.get('collectors') or []),
            'command': shlex.join([
                'os-refresh-config', '--lockfile',
                str(self.root / 'os-refresh-config.lock')]),
            'polling_interval': f'{interval:g}',
            'cachedir': str(self.cachedir),
            'backup_cachedir': str(self.root / 'os-collect-config' /
                                   'backup'),
        }
        for name, values in settings.items():
            if isinstance(values, dict):
                parser[name] = {key: str(value)
                                for key, value in values.items()}
        with open(self.occ_config, 'w') as handle:
            handle.write('# Written by tools/dev.py agent from the '
                         "server's agent-config.\n")
            parser.write(handle)

    def collected(self, collector: str) -> list[dict]:
        """The ``deployments`` of the last document os-collect-config
        fetched with *collector* (and handed to os-refresh-config)."""
        path = self.cachedir / f'{collector}.json'
        if not path.is_file():
            return []
        return json.loads(path.read_text()).get('deployments') or []

    def ran(self, config_id: str) -> bool:
        """Whether heat-config has run this config (now or before)."""
        return (self.deployed / f'{config_id}.json').is_file()


def _link(link: pathlib.Path, target: pathlib.Path) -> None:
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(target)


# -- running it --------------------------------------------------------------

@dataclasses.dataclass
class Options:
    server: str
    once: bool
    interval: float


def _collect_once(command: list[str], env: dict[str, str]) -> None:
    """Run os-collect-config ``--one-time``, its output passed through;
    fail when it could not fetch the document or its command failed."""
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            errors='replace', stdin=subprocess.DEVNULL)
    unavailable = False
    for line in proc.stdout:
        sys.stdout.write(line)
        unavailable = unavailable or 'Unavailable' in line
    sys.stdout.flush()
    code = proc.wait()
    if unavailable:
        raise AgentError("os-collect-config could not fetch the server's "
                         "metadata (see its message above).")
    if code:
        raise AgentError(f'os-collect-config exited with status {code}: '
                         f'a step of the agent failed (see above).')


def _signals(item: dict) -> bool:
    """Whether heat-config-notify reports this item to the service (an
    item without these inputs, NO_SIGNAL or Heat's client-side form, is
    run and never reported)."""
    return any(i.get('name') in SIGNAL_INPUTS
               for i in item.get('inputs') or [])


def _follow(service: Service, server: ServerDir, item: dict,
            deployment_id: str, deadline: float) -> tuple[str, bool]:
    """What became of one collected deployment, and whether that counts
    as success: the service's final status once the agent's signal is
    applied."""
    current = service.deployment(deployment_id)
    if current['status'] not in FINISHED and not server.ran(item['id']):
        return (f'not run: this agent has no hook for group '
                f'{item.get("group")!r} (it installs the script hook)',
                False)
    if not _signals(item):
        return (f'{current["status"]}: run, with no signal transport to '
                f'report it', current['status'] != 'FAILED')
    while (current['status'] not in FINISHED
           and time.monotonic() < deadline):
        time.sleep(0.3)
        current = service.deployment(deployment_id)
    if current['status'] not in FINISHED:
        return (f'still {current["status"]}: the service had not applied '
                f'its signal after {SIGNAL_WAIT:g} s', False)
    reason = current.get('status_reason')
    return (current['status'] + (f', {reason}' if reason else ''),
            current['status'] == 'COMPLETE')


def _wait_for_signals(service: Service, server: ServerDir,
                      server_id: str, items: list[dict]) -> int:
    """Follow the deployments of the collected document until the service
    has applied their signals; print one line each; 0 when all are
    COMPLETE."""
    by_config = {d['config_id']: d for d in service.deployments(server_id)}
    found = [(item, by_config[item['id']]) for item in items
             if item.get('id') in by_config]
    if not found:
        say(f'{server_id} has no deployments to run.')
        return 0
    say(f'The document lists {len(found)} deployment(s); waiting until '
        f'the service has their results')
    deadline = time.monotonic() + SIGNAL_WAIT
    failures = 0
    for item, deployment in found:
        outcome, ok = _follow(service, server, item, deployment['id'],
                              deadline)
        say(f'{deployment["id"]} ({item.get("name")}, '
            f'{deployment.get("action") or "no action"}): {outcome}')
        failures += not ok
    if failures:
        raise AgentError(
            f'{failures} of {len(found)} deployment(s) did not complete '
            f'(see "swconfig deployment events <id>").')
    return 0


def run(options: Options, environ: dict[str, str]) -> int:
    """Set the agent up for ``options.server`` and run it."""
    service = Service.from_environ(environ)
    venv_bin = ensure_venv(pathlib.Path(
        environ.get('SWCONFIG_AGENT_VENV') or CACHE / 'venv'))
    sdist = heat_agents_sdist.CACHE_DIR
    if not (sdist / f'heat_agents-{heat_agents_sdist.VERSION}').is_dir():
        say(f'Fetching heat-agents {heat_agents_sdist.VERSION} from PyPI '
            f'into {sdist} (its source distribution: the wheel has none '
            f'of the scripts)')
    agents = heat_agents_sdist.fetch(python=str(venv_bin / 'python'))
    state = pathlib.Path(environ.get('SWCONFIG_AGENT_STATE')
                         or CACHE / 'servers')
    server = ServerDir(state / _quote(options.server))
    settings = service.agent_settings(options.server)
    server.build(agents)
    server.write_occ_config(settings, options.interval)
    variables = server.variables(venv_bin, agents)
    server.write_env_file(variables)
    say(f'wrote {server.occ_config} and {server.env_file}')
    command = [str(venv_bin / 'os-collect-config'), '--config-file',
               str(server.occ_config)]
    if options.once:
        command.append('--one-time')
    say(f'$ . {shlex.quote(str(server.env_file))} && '
        f'{shlex.join(command)}')
    env = server.environ(variables, environ)
    if not options.once:
        os.execve(command[0], command, env)  # noqa: S606 - the agent
    _collect_once(command, env)
    collector = (settings.get('collectors') or ['request'])[0]
    return _wait_for_signals(service, server, options.server,
                             server.collected(collector))


def parse_args(argv: list[str]) -> Options:
    parser = argparse.ArgumentParser(
        prog=PROG, description=(
            'Run the real os-collect-config and heat-agents (script hook) '
            'for SERVER on this machine, against the swconfig that '
            f'OS_ENDPOINT names ({DEFAULT_ENDPOINT} by default). '
            'Everything lives under .cache/local-agent.'))
    parser.add_argument('server', metavar='SERVER',
                        help='The server id the agent runs as, as given '
                             'to "swconfig deployment create --server".')
    parser.add_argument('--once', action='store_true',
                        help='Collect once, wait until the service has '
                             'the result of every deployment found, and '
                             'exit: 0 if all are COMPLETE, 1 otherwise.')
    parser.add_argument('--interval', type=float, default=DEFAULT_INTERVAL,
                        metavar='SECONDS',
                        help='Seconds between two polls of the metadata '
                             f'URL (default {DEFAULT_INTERVAL:g}; the '
                             "service's own setting for real servers is "
                             '30).')
    args = parser.parse_args(argv)
    if args.interval <= 0:
        parser.error('--interval takes a number of seconds above 0')
    return Options(args.server, args.once, args.interval)


def main(argv: list[str]) -> int:
    options = parse_args(argv)
    try:
        return run(options, dict(os.environ))
    except AgentError as error:
        print(f'{PROG}: error: {error}', file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
