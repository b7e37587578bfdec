"""Signal and metadata transports: how an agent reports a deployment back,
and how it learns its deployments.

Each is a stevedore plugin, named as the API and the configuration name
it: ``swconfig.transports`` (``HEAT_SIGNAL``, ``TEMP_URL_SIGNAL``, ...)
and ``swconfig.metadata_transports`` (``POLL_SERVER_URL``, ...).
"""

from typing import Any

from stevedore import driver
from stevedore import extension

from swconfig.common import exception
from swconfig.transports import base

NAMESPACE = 'swconfig.transports'
METADATA_NAMESPACE = 'swconfig.metadata_transports'
_LOADED: dict[tuple[str, str], Any] = {}
_NAMES: dict[str, list[str]] = {}


def _configured(namespace: str) -> list[str]:
    """The plugins of ``namespace`` this configuration supports. Entry
    points are scanned once per process (the health check asks on every
    probe); whether each is configured is asked every time, since tests
    change the configuration."""
    if namespace not in _NAMES:
        _NAMES[namespace] = extension.ExtensionManager(namespace).names()
    return sorted(name for name in _NAMES[namespace]
                  if (transport := _load(namespace, name)) is not None
                  and transport.missing_configuration() is None)


def _load(namespace: str, name: str) -> Any:
    if (namespace, name) not in _LOADED:
        try:
            manager = driver.DriverManager(namespace, name,
                                           invoke_on_load=True)
        except Exception:
            return None
        _LOADED[namespace, name] = manager.driver
    return _LOADED[namespace, name]


def available() -> list[str]:
    """The signal transports this service's configuration supports."""
    return _configured(NAMESPACE)


def pushing_metadata_available() -> bool:
    """Whether a metadata transport that pushes documents is
    configured (servers may have been registered with it)."""
    return any(_load(METADATA_NAMESPACE, name).pushes_document
               for name in _configured(METADATA_NAMESPACE))


def service_problems() -> dict[str, str]:
    """What is wrong now with the services of the configured transports
    (by service problem, the transports that report it)."""
    problems: dict[str, str] = {}
    for namespace in (NAMESPACE, METADATA_NAMESPACE):
        for name in _configured(namespace):
            problem = _load(namespace, name).service_problem()
            if problem is not None:
                problems.setdefault(problem, name)
    return {name: problem for problem, name in problems.items()}


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
            reason=f'unknown software config transport {name}')
    return transport


def check_defaults(signal: str, metadata: str) -> None:
    """ConfigurationError, in one line, when a configured default names a
    transport whose option group is missing."""
    for option, transport in (
            ('default_deployment_signal_transport',
             _load(NAMESPACE, signal)),
            ('default_software_config_transport',
             _load(METADATA_NAMESPACE, metadata))):
        if transport is None:
            raise exception.ConfigurationError(
                reason=f'{option} names no installed transport')
        missing = transport.missing_configuration()
        if missing is not None:
            raise exception.ConfigurationError(
                reason=f'{option} = {transport.name} but {missing}')
