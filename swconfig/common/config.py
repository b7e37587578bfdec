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

"""Parsing the command line and config files, shared by every process,
and the checks that turn a bad configuration into one clear message at
start-up instead of a failure at the first request."""

import difflib
import glob
from importlib import metadata
import os

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg
from oslo_db import options as db_options
from oslo_log import log

from swconfig import version
from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.conf import opts as swconfig_opts

LOG = log.getLogger(__name__)

SQLITE_FILE = 'swconfig.sqlite'
AUTHTOKEN = 'keystone_authtoken'


def parse_args(argv: list[str], default_config_files: list[str] | None = None,
               conf: cfg.ConfigOpts = CONF,
               description: str | None = None) -> None:
    """Parse options and set the defaults that depend on other options."""
    log.register_options(conf)
    conf(argv[1:], project='swconfig', version=version.version_string(),
         default_config_files=default_config_files,
         description=description, epilog=help_epilog())
    if not conf.database.connection:
        db_options.set_defaults(conf, connection=sqlite_url(conf.state_path))


def _namespace_opts(*names: str) -> list:
    """The options the ``oslo.config.opts`` entry points called ``names``
    list: the transports' and the libraries' (whose modules the
    configuration layer cannot import itself)."""
    listed = []
    for entry_point in metadata.entry_points(group='oslo.config.opts'):
        if entry_point.name in names:
            listed.extend(entry_point.load()())
    return listed


def _swconfig_opts() -> list:
    """swconfig's own options and those of its installed transports."""
    return [*swconfig_opts.list_opts(),
            *_namespace_opts(swconfig_opts.TRANSPORT_NAMESPACE)]


def help_epilog() -> str:
    """The end of ``--help``: the command line has only the logging flags,
    so name the configuration file's sections and options too."""
    sections = []
    for group, group_opts in _swconfig_opts():
        name = getattr(group, 'name', group)
        if name == 'database':
            sections.append('[database] connection and the other oslo.db '
                            'options')
        else:
            sections.append(f'[{name}] ' + ', '.join(
                opt.dest for opt in group_opts))
    return ('Every other option is set in the configuration files '
            '(--config-file, --config-dir; without them, the swconfig.conf '
            'found in ~/.swconfig/, ~/, /etc/swconfig/ or /etc/): ' +
            '; '.join(sections) +
            '; and the sections of the libraries: transport_url and '
            '[oslo_messaging_rabbit] (oslo.messaging), [keystone_authtoken] '
            '(keystonemiddleware, with auth_strategy = keystone), '
            '[oslo_policy]. Each option is described in the sample '
            'configuration, etc/swconfig/swconfig.conf.sample in the '
            'source tree, or: oslo-config-generator --namespace '
            + ' --namespace '.join(('swconfig',
                                    swconfig_opts.TRANSPORT_NAMESPACE,
                                    *swconfig_opts.LIBRARY_NAMESPACES)))


def sqlite_url(state_path: str) -> str:
    """The embedded default database: a SQLite file inside state_path."""
    return 'sqlite:///' + os.path.join(state_path, SQLITE_FILE)


def ensure_state_path(conf: cfg.ConfigOpts = CONF) -> None:
    os.makedirs(conf.state_path, mode=0o700, exist_ok=True)


def _registered(conf: cfg.ConfigOpts) -> dict[str, set[str]]:
    """{group: option names} of the options registered so far."""
    found: dict[str, set[str]] = {'DEFAULT': set()}
    for name in conf:
        try:
            value = conf[name]
        except cfg.ConfigFileValueError:
            value = None  # an option of [DEFAULT] with a bad value
        if isinstance(value, cfg.ConfigOpts.GroupAttr):
            found.setdefault(name, set()).update(value)
        else:
            found['DEFAULT'].add(name)
    return found


def check_values(conf: cfg.ConfigOpts = CONF) -> None:
    """Read every registered option once, so that a value of the wrong
    type fails now (oslo.config converts values only when they are read)
    with a ConfigurationError naming the option and the file."""
    for group, names in _registered(conf).items():
        namespace = conf if group == 'DEFAULT' else conf[group]
        for name in sorted(names):
            try:
                getattr(namespace, name)
            except cfg.ConfigFileValueError as exc:
                detail = str(exc).rpartition(' is not valid: ')[2]
                raise exception.ConfigurationError(
                    reason=f'[{group}] {name}{where_set(conf, group, name)}'
                           f': {detail}') from None


def where_set(conf: cfg.ConfigOpts, group: str, name: str) -> str:
    """`` in <file>``: the last configuration file that sets the option
    (the one whose value counts), or '' when no file does, so a message
    can say where to fix it."""
    files = [path for path, sections in _parsed_files(conf)
             if name in _section(sections, group)]
    return f' in {files[-1]}' if files else ''


def _add_opts(known: dict[str, set[str]], group: str,
              group_opts: list) -> None:
    names = known.setdefault(group, set())
    for opt in group_opts:
        names.add(opt.dest)
        for old in opt.deprecated_opts:
            old_group = old.group or group
            if old.name:
                known.setdefault(old_group, set()).add(
                    old.name.replace('-', '_'))


def _known_options(conf: cfg.ConfigOpts) -> dict[str, set[str]]:
    """{group: option names}: what is registered now and what swconfig's
    libraries register later (the sample configuration's namespaces)."""
    known = _registered(conf)
    listed = [*_swconfig_opts(),
              *_namespace_opts(*swconfig_opts.LIBRARY_NAMESPACES)]
    for group, group_opts in listed:
        name = getattr(group, 'name', group) or 'DEFAULT'
        _add_opts(known, name, group_opts)
    return known


def _plugin_options(values: dict[str, list[str]]) -> set[str]:
    """Options of the keystoneauth plugin a section's auth_type names
    (auth_url, username, ...): registered only when the plugin loads."""
    plugin = (values.get('auth_type') or [''])[-1].strip()
    if not plugin:
        return set()
    try:
        plugin_opts = ks_loading.get_auth_plugin_conf_options(plugin)
    except ks_exc.NoMatchingPlugin:
        return set()  # the [keystone_authtoken] check says so
    known: dict[str, set[str]] = {}
    _add_opts(known, 'plugin', plugin_opts)
    return known['plugin']


def config_files(conf: cfg.ConfigOpts = CONF) -> list[str]:
    """The configuration files read, in order."""
    files = list(conf.config_file or [])
    if conf.config_dir:
        files += sorted(glob.glob(os.path.join(conf.config_dir, '*.conf')))
    return files


def _parsed_files(conf: cfg.ConfigOpts
                  ) -> list[tuple[str, dict[str, dict[str, list[str]]]]]:
    """(file, {section: {option: [values]}}) of each file read."""
    parsed = []
    for path in config_files(conf):
        sections: dict[str, dict[str, list[str]]] = {}
        try:
            cfg.ConfigParser(path, sections).parse()
        except (OSError, cfg.ParseError):
            continue  # oslo.config has refused it already
        parsed.append((path, sections))
    return parsed


def _section(sections: dict[str, dict[str, list[str]]],
             group: str) -> dict[str, list[str]]:
    """The options a file sets in ``group`` (section names other than
    DEFAULT are not case-sensitive)."""
    found: dict[str, list[str]] = {}
    for section, values in sections.items():
        if section == group or (group != 'DEFAULT' and
                                section.lower() == group):
            found.update(values)
    return found


def unknown_options(conf: cfg.ConfigOpts = CONF
                    ) -> list[tuple[str, str, str, str | None]]:
    """(file, section, option, likely meant) for every option set in a
    known section that nothing reads: a typo such as ``bind_prot`` that
    oslo.config silently ignores. Unknown sections are left alone: a
    shared file may hold other services' sections."""
    parsed = _parsed_files(conf)
    if not parsed:
        return []  # nothing to check, and the libraries' options unloaded
    known = _known_options(conf)
    found = []
    for path, sections in parsed:
        for section, values in sections.items():
            group = section if section == 'DEFAULT' else section.lower()
            if group not in known:
                continue
            names = known[group] | _plugin_options(values)
            for name in values:
                if name.replace('-', '_') not in names:
                    close = difflib.get_close_matches(name, names, n=1)
                    found.append((path, section, name,
                                  close[0] if close else None))
    return found


def warn_unknown_options(conf: cfg.ConfigOpts = CONF) -> None:
    for path, section, name, meant in unknown_options(conf):
        LOG.warning('Unknown option %s in section [%s] of %s is ignored%s',
                    name, section, path,
                    f' (did you mean {meant}?)' if meant else '')


def keystone_authtoken_problem(conf: cfg.ConfigOpts = CONF) -> str | None:
    """What keeps keystonemiddleware from validating tokens, or None.

    Without an auth plugin and its credentials auth_token answers every
    request 500 (MissingAuthPlugin); say so at start-up instead.
    """
    where = f'auth_strategy = keystone needs [{AUTHTOKEN}]'
    # auth_type and auth_section, as auth_token itself registers them.
    ks_loading.register_auth_conf_options(conf, AUTHTOKEN)
    try:
        plugin = ks_loading.load_auth_from_conf_options(conf, AUTHTOKEN)
    except ks_exc.MissingRequiredOptions as exc:
        names = ', '.join(opt.dest for opt in exc.options)
        return (f'{where} {names} for auth_type = '
                f'{conf[AUTHTOKEN].auth_type}')
    except ks_exc.NoMatchingPlugin as exc:
        return f'{where} auth_type to name a keystoneauth plugin: {exc}'
    if plugin is None:
        return (f'{where} auth_type (e.g. password) with auth_url and the '
                f'credentials of the service user, and www_authenticate_uri')
    return None
