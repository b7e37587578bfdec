"""Signal transports: how an agent reports a deployment back.

Each is a stevedore plugin in the ``swconfig.transports`` namespace, named
as the API names it (``HEAT_SIGNAL``, ``NO_SIGNAL``, ...).
"""

from stevedore import driver
from stevedore import extension

from swconfig.common import exception
from swconfig.transports import base

NAMESPACE = 'swconfig.transports'
_LOADED: dict[str, base.SignalTransport] = {}


def available() -> list[str]:
    return sorted(extension.ExtensionManager(NAMESPACE).names())


def get(name: str) -> base.SignalTransport:
    """The transport called ``name``; 400 if there is no such plugin."""
    if name not in _LOADED:
        try:
            manager = driver.DriverManager(NAMESPACE, name,
                                           invoke_on_load=True)
        except Exception:
            raise exception.UnknownSignalTransport(
                name=name, supported=', '.join(available()))
        _LOADED[name] = manager.driver
    return _LOADED[name]
