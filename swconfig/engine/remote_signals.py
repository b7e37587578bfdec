"""Signals an engine fetches from Swift or Zaqar, applied exactly once.

They join the signals agents send to swconfig itself: stored in the inbox
(once per ``source_key``: where they came from and what they hold), then
applied by ``signals.process`` with every rule of the signed-URL path
(stale action revisions, finished actions, cancelled ones).
"""

import json
from typing import Any

from oslo_log import log

from swconfig.common import context as swconfig_context
from swconfig.db import api as db_api
from swconfig.engine import signals

LOG = log.getLogger(__name__)


def parse(body: bytes, where: str) -> Any:
    """The signal an agent wrote: a JSON document. Anything else cannot
    be interpreted; it is recorded as a deployment failure by the caller
    rather than applied as "no outputs"."""
    try:
        return json.loads(body)
    except ValueError:
        LOG.warning('Signal at %s is not JSON (%d bytes)', where, len(body))
        return None


def store_and_apply(deployment_id: str, action_revision: int, payload: Any,
                    source_key: str) -> str | None:
    """Store the fetched signal unless it was stored before, and apply it.

    Returns what became of it (``COMPLETE``, ``STALE``, ...) or None if
    another fetch stored it already (that one applies it).
    """
    admin = swconfig_context.get_admin_context()
    inbox_id = db_api.signal_inbox_add_once(admin, deployment_id,
                                            action_revision, payload,
                                            source_key)
    if inbox_id is None:
        LOG.info('Signal %s of deployment %s was stored before; not '
                 'stored again', source_key, deployment_id)
        return None
    LOG.info('Stored signal %s of deployment %s (action revision %d) from '
             '%s', inbox_id, deployment_id, action_revision, source_key)
    result = signals.process(inbox_id)
    if isinstance(result, Exception):
        # Stored: the sweep applies it.
        LOG.warning('Signal %s stored, not applied yet: %s', inbox_id,
                    result)
        return None
    return result
