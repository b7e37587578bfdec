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

"""Signal and metadata transports: how an agent reports a deployment back,
and how it learns its deployments.

Each is a stevedore plugin named as the API and the configuration name
it, in ``swconfig.transports`` (``HEAT_SIGNAL``, ``TEMP_URL_SIGNAL``, ...)
or ``swconfig.metadata_transports`` (``POLL_SERVER_URL``, ...). The
entry points are the only list of transports: adding one is a package
and an entry point. Each plugin's options are registered when this
package is imported, so the configuration files can set them before any
transport is used; a plugin that fails to import is logged with its
error, and a configuration that names it says why it cannot be used.
"""

from typing import Any

from oslo_config import cfg
from oslo_log import log
from stevedore import extension

from swconfig.common import exception
from swconfig.common import states
from swconfig.common.context import RequestContext
from swconfig.db import api as db_api
from swconfig.transports import base

LOG = log.getLogger(__name__)

NAMESPACE = 'swconfig.transports'
METADATA_NAMESPACE = 'swconfig.metadata_transports'
NAMESPACES = (NAMESPACE, METADATA_NAMESPACE)

#: namespace -> {name: plugin class}; and the import errors by name.
_CLASSES: dict[str, dict[str, type]] = {}
_BROKEN: dict[str, str] = {}
_LOADED: dict[tuple[str, str], Any] = {}


def _on_load_failure(_manager: Any, entry_point: Any,
                     exc: Exception) -> None:
    _BROKEN[entry_point.name] = f'{type(exc).__name__}: {exc}'
    LOG.error('Transport plugin %s (%s) cannot be loaded: %s',
              entry_point.name, entry_point.value, _BROKEN[entry_point.name])


def _classes(namespace: str) -> dict[str, type]:
    """The installed plugins of ``namespace``, imported once per process
    (the health check asks on every probe)."""
    if namespace not in _CLASSES:
        manager = extension.ExtensionManager(
            namespace, invoke_on_load=False,
            on_load_failure_callback=_on_load_failure)
        _CLASSES[namespace] = {ext.name: ext.plugin for ext in manager}
    return _CLASSES[namespace]


def names(namespace: str = NAMESPACE) -> list[str]:
    """Every installed transport of ``namespace``, configured or not."""
    return sorted(_classes(namespace))


def _load(namespace: str, name: str) -> Any:
    if (namespace, name) not in _LOADED:
        plugin = _classes(namespace).get(name)
        if plugin is None:
            return None
        _LOADED[namespace, name] = plugin()
    return _LOADED[namespace, name]


def _configured(namespace: str) -> list[str]:
    """The plugins of ``namespace`` this configuration supports; asked
    every time, since tests change the configuration."""
    return [name for name in names(namespace)
            if _load(namespace, name).missing_configuration() is None]


def available() -> list[str]:
    """The signal transports this service's configuration supports."""
    return _configured(NAMESPACE)


def service_problems() -> dict[str, str]:
    """What is wrong now with the services of the configured transports
    (by service problem, the transports that report it)."""
    problems: dict[str, str] = {}
    for namespace in NAMESPACES:
        for name in _configured(namespace):
            problem = _load(namespace, name).service_problem()
            if problem is not None:
                problems.setdefault(problem, name)
    return {name: problem for problem, name in problems.items()}


def periodic_tasks(sink: base.SignalSink) -> list[base.PeriodicTask]:
    """The background work of every configured transport, each task
    once (transports sharing a service may declare the same task)."""
    tasks: dict[str, base.PeriodicTask] = {}
    for namespace in NAMESPACES:
        for name in _configured(namespace):
            for task in _load(namespace, name).periodic_tasks(sink):
                tasks.setdefault(task.name, task)
    return list(tasks.values())


def get(name: str) -> base.SignalTransport:
    """The signal transport called ``name``; 400 if there is no such
    plugin or the operator has not configured what it needs."""
    transport = _load(NAMESPACE, name)
    if transport is None or transport.missing_configuration() is not None:
        raise exception.UnknownSignalTransport(
            name=name, supported=', '.join(available()))
    return transport


def get_metadata(name: str | None) -> base.MetadataTransport:
    """The metadata transport called ``name`` (``POLL_SERVER_URL`` for
    None: servers registered before there was a choice)."""
    transport = _load(METADATA_NAMESPACE, name or 'POLL_SERVER_URL')
    if transport is None:
        raise exception.ConfigurationError(
            reason=f'unknown software config transport {name}'
                   f'{_why_missing(name or "")}')
    return transport


def _show_hooks() -> dict[str, base.SignalTransport]:
    """The installed signal transports that look at a deployment when a
    user shows it (``SignalTransport.poll_on_show``): configured or not,
    since a config the client derived uses the client's own service (the
    user's Swift account, not swconfig's)."""
    return {name: transport for name in names(NAMESPACE)
            if type(transport := _load(NAMESPACE, name)).poll_on_show
            is not base.SignalTransport.poll_on_show}


def poll_on_show(context: RequestContext, deployment: dict, headers: Any,
                 sink: base.SignalSink) -> bool:
    """Let the transport of an IN_PROGRESS deployment whose config the
    client derived (no engine watches it) fetch its signal now, as Heat
    does on a GET; returns whether a signal was applied."""
    if (deployment['status'] != states.IN_PROGRESS
            or deployment['source_config_id'] is not None):
        return False
    hooks = _show_hooks()
    if not hooks:
        return False
    config = db_api.software_config_get(context, deployment['config_id'])
    inputs = {item.get('name'): item.get('value')
              for item in config.get('inputs') or []
              if isinstance(item, dict)}
    transport = hooks.get(inputs.get('deploy_signal_transport'))
    if transport is None:
        return False
    return transport.poll_on_show(context, deployment, inputs, headers, sink)


def _why_missing(name: str) -> str:
    if name in _BROKEN:
        return f': its plugin failed to load ({_BROKEN[name]})'
    return ''


def check_defaults(signal: str, metadata: str) -> None:
    """ConfigurationError, in one line, when a configured default names a
    transport that is not installed, or whose option group is missing."""
    for option, namespace, name in (
            ('default_deployment_signal_transport', NAMESPACE, signal),
            ('default_software_config_transport', METADATA_NAMESPACE,
             metadata)):
        transport = _load(namespace, name)
        if transport is None:
            raise exception.ConfigurationError(
                reason=f'{option} = {name} names no installed transport'
                       f'{_why_missing(name)}; installed: '
                       f'{", ".join(names(namespace))}')
        missing = transport.missing_configuration()
        if missing is not None:
            raise exception.ConfigurationError(
                reason=f'{option} = {transport.name} but {missing}')


def list_opts() -> list[tuple[cfg.OptGroup, list[cfg.Opt]]]:
    """Every installed transport's options (the ``swconfig.transports``
    namespace of oslo.config.opts), each group once."""
    groups: dict[str, tuple[cfg.OptGroup, list[cfg.Opt]]] = {}
    for namespace in NAMESPACES:
        for plugin in _classes(namespace).values():
            for group, opts in plugin.list_opts():
                _group, known = groups.setdefault(group.name, (group, []))
                known.extend(opt for opt in opts if opt not in known)
    return list(groups.values())


# Importing the plugins registers their options.
for _namespace in NAMESPACES:
    _classes(_namespace)
del _namespace

