"""Memoized controller signatures for pecan's router.

pecan inspects the signature of every controller method it routes
through (``pecan.util.getargspec``, built on ``inspect``) on every
request: a fifth of the API's CPU for a deployment creation in the
benchmark's profile. Signatures of the controller functions do not change
while the service runs, so each is inspected once.
"""

import threading
from typing import Any

from pecan import core
from pecan import rest
from pecan import routing
from pecan import util

# Controller functions are defined once, so the cache stays small; the
# bound guards against callables made per request (never cached twice).
MAX_ENTRIES = 4096

_lock = threading.Lock()
_specs: dict[Any, Any] = {}
_inspect = util.getargspec


def getargspec(method: Any) -> Any:
    """``pecan.util.getargspec``, once per function. A bound method has
    the signature of its function (``self`` included), so both share an
    entry."""
    function = getattr(method, '__func__', method)
    spec = _specs.get(function)
    if spec is None:
        spec = _inspect(method)
        if getattr(function, '__code__', None) is not None:
            with _lock:
                if len(_specs) < MAX_ENTRIES:
                    _specs[function] = spec
    return spec


def install() -> None:
    """Make pecan's router use ``getargspec``; idempotent."""
    for module in (util, core, rest, routing):
        module.getargspec = getargspec
