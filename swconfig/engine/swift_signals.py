"""Finding TEMP_URL_SIGNAL signals in Swift, in the background.

Each engine lists the signal containers it owns (``coordination``), one
request per container whatever the number of deployments waiting in it.
An object is a signal when its deployment waits for that action revision
and its ETag (the MD5 of its content) was not fetched before: new content
is found by content, never by a modification time, so a signal written
in the same second as the action started is not missed, and the same
signal written twice is stored once (``remote_signals``). Objects no
deployment waits for (applied, stale, or left by a deleted deployment)
are removed.
"""

from typing import Any

from oslo_log import log

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common import signal_body
from swconfig.common import states
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import background
from swconfig.engine import coordination
from swconfig.engine import remote_signals
from swconfig.transports import swift
from swconfig.transports import temp_url_signal

LOG = log.getLogger(__name__)
TRANSPORT = temp_url_signal.TempUrlSignalTransport.name


class SwiftSignalPoller(background.Worker):
    name = 'swift-signals'

    def __init__(self) -> None:
        # container -> {object name: ETag fetched}; only what this engine
        # owns and saw in its last listing.
        self._seen: dict[str, dict[str, str]] = {}
        self._owned: list[int] | None = None

    def interval(self) -> float:
        return CONF.swift.signal_poll_interval

    def max_interval(self) -> float:
        return CONF.swift.max_retry_interval

    def run_once(self) -> None:
        swift.ensure_signal_containers()  # no request once all exist
        coordinator = coordination.get()
        coordinator.refresh()
        owned = [shard for shard in range(swift.SIGNAL_CONTAINERS)
                 if coordinator.owns(swift.signal_container_name(shard))]
        if owned != self._owned:
            # Tests and operators read which engine polls what from this.
            LOG.info('Signal containers this engine lists: %d of %d (%s)',
                     len(owned), swift.SIGNAL_CONTAINERS,
                     ','.join(f'{shard:02d}' for shard in owned) or 'none')
            self._owned = owned
        for shard in range(swift.SIGNAL_CONTAINERS):
            container = swift.signal_container_name(shard)
            if shard in owned:
                self.poll(container)
            else:
                self._seen.pop(container, None)

    def poll(self, container: str) -> int:
        """One listing of ``container``; returns how many signals it
        stored."""
        try:
            _headers, listing = swift.call('get_container', container,
                                           full_listing=True)
        except exception.NotFound:
            # Nothing was ever written there; agents need it to exist.
            swift.forget_container(container)
            swift.ensure_container(container)
            return 0
        objects = {}
        for item in listing:
            parsed = temp_url_signal.parse_object_name(item['name'])
            if parsed is not None:
                objects[item['name']] = (parsed, item)
        waiting = {row['id']: row['action_revision']
                   for row in db_api.software_deployments_waiting(
                       swconfig_context.get_admin_context(), TRANSPORT,
                       sorted({deployment_id for (deployment_id, _), _item
                               in objects.values()}))}
        seen = self._seen.get(container, {})
        still_seen = {}
        stored = 0
        for name, ((deployment_id, revision), item) in sorted(
                objects.items()):
            if waiting.get(deployment_id) != revision:
                self._remove(container, name)
                continue
            if seen.get(name) == item['hash']:
                still_seen[name] = item['hash']
                continue
            etag, applied = self._fetch(container, name, deployment_id,
                                        revision, item)
            if etag is not None:
                still_seen[name] = etag
            stored += applied
        self._seen[container] = still_seen
        return stored

    def _fetch(self, container: str, name: str, deployment_id: str,
               revision: int, item: dict) -> tuple[str | None, int]:
        """Store and apply the object's content as a signal; returns the
        ETag fetched and whether a signal was stored."""
        limit = CONF.agent.max_signal_size
        if item['bytes'] > limit:
            payload: Any = states.oversized_signal(item['bytes'], True, limit)
            etag = item['hash']
        else:
            try:
                headers, body = swift.call('get_object', container, name)
            except exception.NotFound:
                return None, 0
            etag = headers.get('etag', '').strip('"')
            try:
                payload, notes = signal_body.load(body)
            except exception.SwconfigException as exc:
                LOG.warning('Signal object %s/%s of deployment %s cannot '
                            'be used: %s', container, name, deployment_id,
                            exc)
                return etag, 0
            if notes:
                LOG.info('Signal object %s/%s: %s', container, name,
                         '; '.join(notes))
        result = remote_signals.store_and_apply(
            deployment_id, revision, payload, f'swift:{revision}:{etag}')
        return etag, int(result is not None)

    def _remove(self, container: str, name: str) -> None:
        try:
            swift.call('delete_object', container, name)
        except exception.NotFound:
            return
        LOG.debug('Removed signal object %s/%s: no deployment waits for '
                  'it', container, name)
