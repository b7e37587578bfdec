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

"""Finding TEMP_URL_SIGNAL signals in Swift, in the background.

Each engine lists the signal containers it owns (the engine's partition),
one request per container whatever the number of deployments waiting in
it. An object is a signal when its deployment waits for that action
revision and its ETag (the MD5 of its content) was not fetched before:
new content is found by content, never by a modification time, so a
signal written in the same second as the action started is not missed,
and the same signal written twice is stored once (the sink's source key).
Objects no deployment waits for (applied, stale, or left by a deleted
deployment) are removed.
"""

from collections.abc import Iterable
from collections.abc import Iterator

from oslo_log import log

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.transports import base
from swconfig.transports.swift import client

LOG = log.getLogger(__name__)


def parse_object_name(name: str) -> tuple[str, int] | None:
    """(deployment id, action revision) of a signal object, or None for
    a name swconfig did not make."""
    deployment_id, _, revision = name.rpartition('/')
    if not deployment_id or not revision.isdigit():
        return None
    return deployment_id, int(revision)


class SignalPoller(base.SharedTask):
    name = 'swift-signals'

    def __init__(self, transport: str, sink: base.SignalSink) -> None:
        self.transport = transport
        self.sink = sink
        # container -> {object name: ETag fetched}; only what this engine
        # owns and saw in its last listing.
        self._seen: dict[str, dict[str, str]] = {}
        self._owned: list[str] | None = None

    def interval(self) -> float:
        return CONF.swift.signal_poll_interval

    def max_interval(self) -> float:
        return CONF.swift.max_retry_interval

    def items(self) -> Iterable[tuple[str, str]]:
        client.ensure_signal_containers()  # no request once all exist
        return [(container, container) for container in
                map(client.signal_container_name,
                    range(client.SIGNAL_CONTAINERS))]

    def handle(self, owned: Iterator[str]) -> None:
        containers = list(owned)
        if containers != self._owned:
            # Tests and operators read which engine polls what from this.
            LOG.info('Signal containers this engine lists: %d of %d (%s)',
                     len(containers), client.SIGNAL_CONTAINERS,
                     ','.join(name.rpartition('-')[2] for name in containers)
                     or 'none')
            self._owned = containers
        for container in set(self._seen) - set(containers):
            del self._seen[container]
        for container in containers:
            self.poll(container)

    def poll(self, container: str) -> int:
        """One listing of ``container``; returns how many signals it
        stored."""
        try:
            _headers, listing = client.call('get_container', container,
                                            full_listing=True)
        except exception.NotFound:
            # Nothing was ever written there; agents need it to exist.
            client.forget_container(container)
            client.ensure_container(container)
            return 0
        objects = {}
        for item in listing:
            parsed = parse_object_name(item['name'])
            if parsed is not None:
                objects[item['name']] = (parsed, item)
        waiting = {row['id']: row['action_revision']
                   for row in db_api.software_deployments_waiting(
                       swconfig_context.get_admin_context(), self.transport,
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
        """Hand the object's content to the sink; returns the ETag
        fetched and whether a signal was stored."""
        body = None
        etag = item['hash']
        if item['bytes'] <= CONF.agent.max_signal_size:
            try:
                headers, body = client.call('get_object', container, name)
            except exception.NotFound:
                return None, 0
            etag = headers.get('etag', '').strip('"')
        stored = self.sink.receive(
            deployment_id, revision, f'swift:{revision}:{etag}', body=body,
            size=item['bytes'], where=f'object {container}/{name}')
        return etag, int(stored)

    def _remove(self, container: str, name: str) -> None:
        try:
            client.call('delete_object', container, name)
        except exception.NotFound:
            return
        LOG.debug('Removed signal object %s/%s: no deployment waits for '
                  'it', container, name)
