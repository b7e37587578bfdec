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

"""Creating many software deployments at once: the engine's side.

One deployment per request costs an RPC call and a transaction each; a
list of deployments (``POST .../software_deployments`` with a list body,
a rollout's wave) costs one call, and one transaction per chunk of
``CHUNK_SIZE`` deployments whose statements do not grow with the chunk:
one lock of its servers and one insert of the new ones, one insert each
of derived configs, deployments and events, one read of the servers'
deployments and one write of their documents (each server rendered once,
however many of its deployments the chunk holds).

Two steps, so that nothing is written before everything was checked:
``plan`` checks and derives every request with a few reads, exactly as a
single creation does (``deployments.new_deployment``), and says which
items cannot be created and why; ``write`` stores the planned
deployments a chunk at a time. A chunk that fails (a server another
project claimed meanwhile, a config deleted meanwhile) undoes the chunks
written before it. ``create_many`` is both, all or nothing, with the
quota and the Idempotency-Key: what the API's list creation calls.
"""

from collections.abc import Callable
from collections.abc import Sequence
import dataclasses
import datetime
import uuid

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_log import log
from oslo_utils import timeutils
from oslo_utils import uuidutils

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.common.deployment_request import DeploymentRequest
from swconfig.db import api as db_api
from swconfig.engine import deadlines
from swconfig.engine import deployments
from swconfig.engine import idempotency
from swconfig.engine import metadata
from swconfig.engine import servers

LOG = log.getLogger(__name__)

#: Deployments written per transaction: big enough that a chunk's fixed
#: statements cost little per deployment, small enough that a chunk's
#: locks and its statements' parameters stay modest.
CHUNK_SIZE = 500
WRITE_ATTEMPTS = 5

#: Called in each chunk's transaction once its deployments are written:
#: ``(context, rows, last)``, ``last`` true for the final chunk. What a
#: rollout records beside its targets' deployments; raising rolls the
#: chunk back (and undoes the chunks before it).
ChunkHook = Callable[[RequestContext, list[dict], bool], None]


@dataclasses.dataclass(frozen=True)
class Planned:
    """One deployment checked and derived, ready to be written."""

    #: The request's position in the list.
    index: int
    request: DeploymentRequest
    #: The deployment's row values (``deployments.new_deployment``).
    values: dict
    #: The config the engine derived for it; None for Heat's form.
    derived: dict | None


@dataclasses.dataclass
class Plan:
    """What ``plan`` found: the items that can be created, and a message
    for each that cannot, by index."""

    items: list[Planned]
    problems: dict[int, str]


def deployment_ids(first: str, count: int) -> list[str]:
    """The ids of a list's ``count`` deployments: ``first``, then ids
    derived from it (UUID version 5), so the whole list is found again
    from the first id alone (the one an Idempotency-Key records)."""
    namespace = uuid.UUID(first)
    return [first] + [str(uuid.uuid5(namespace, str(index)))
                      for index in range(1, count)]


def plan(context: RequestContext, requests: Sequence[DeploymentRequest],
         first_id: str | None = None) -> Plan:
    """Check and derive every request as a single creation would (but
    for the quota), reading their configs and servers in two queries;
    nothing is written. The deployments get ``deployment_ids(first_id)``
    (a new first id when None). Deriving issues each item's signal
    transport, which may make something (a Zaqar queue): a caller that
    does not ``write`` the items calls ``forget_transports``. An outage
    (5xx) is raised, not held against an item."""
    ids = deployment_ids(first_id or uuidutils.generate_uuid(),
                         len(requests))
    server_ids = sorted({request.server_id for request in requests
                         if request.server_id})
    known: dict[str, dict] = {}
    with db_api.reader.using(context):
        sources = db_api.software_configs_get_many(
            context, [request.config_id for request in requests
                      if request.config_id])
        # A query per chunk's worth of servers: lists as long as a
        # rollout's stay within every backend's bound parameters.
        for first in range(0, len(server_ids), CHUNK_SIZE):
            known.update(db_api.servers_get_many(
                context, server_ids[first:first + CHUNK_SIZE]))
    found = Plan([], {})
    for index, request in enumerate(requests):
        try:
            deployments.check_request(request)
            source = sources.get(request.config_id)
            if source is None:
                raise exception.ConfigNotFound(config_id=request.config_id)
            server = servers.claim_preview(context, request.server_id,
                                           known.get(request.server_id))
            values, derived = deployments.new_deployment(
                context, request, source, server, ids[index])
        except exception.SwconfigException as exc:
            if exc.code >= 500:
                raise  # an outage (a transport's service): not the item's
            found.problems[index] = exc.message
            continue
        found.items.append(Planned(index, request, values, derived))
    return found


def write(context: RequestContext, items: Sequence[Planned], *,
          in_chunk: ChunkHook | None = None,
          event_reason: str | None = None,
          chunk_size: int = CHUNK_SIZE) -> list[dict]:
    """Store planned deployments, ``chunk_size`` per transaction, in the
    order given (their ``created_at`` too, a microsecond apart, so lists
    show them in that order); the rows. ``event_reason``: the reason of
    their first events (else their status reasons). A chunk that fails
    undoes the chunks written before it, and what the signal transports
    made for every item is removed; the error is raised."""
    start = timeutils.utcnow()
    written: list[dict] = []
    try:
        for first in range(0, len(items), chunk_size):
            chunk = items[first:first + chunk_size]
            last = first + chunk_size >= len(items)
            written += _write_chunk(context, chunk, start, first, in_chunk,
                                    event_reason, last)
    except Exception as exc:
        if written:
            _undo(context, written, exc)
        forget_transports(items)
        raise
    return written


def forget_transports(items: Sequence[Planned]) -> None:
    """Remove what the signal transports made while ``items`` were
    planned (a Zaqar queue each; most transports make nothing), for
    items that will not be written."""
    for item in items:
        if item.derived is not None:
            deployments.forget_transport(item.values)


@oslo_db_api.wrap_db_retry(max_retries=WRITE_ATTEMPTS, retry_interval=0.05,
                           max_retry_interval=1, jitter=True,
                           retry_on_deadlock=True,
                           exception_checker=lambda exc: isinstance(
                               exc, db_exc.DBDuplicateEntry))
def _write_chunk(context: RequestContext, chunk: Sequence[Planned],
                 start: datetime.datetime, offset: int,
                 in_chunk: ChunkHook | None, event_reason: str | None,
                 last: bool) -> list[dict]:
    """One transaction (started again whole when a concurrent one
    registered one of its servers first, as a single creation is)."""
    configs, values = [], []
    for position, item in enumerate(chunk, offset):
        created_at = start + datetime.timedelta(microseconds=position)
        if item.derived is not None:
            configs.append(dict(item.derived, created_at=created_at))
        values.append(dict(item.values, created_at=created_at))
    with db_api.writer.using(context):
        claimed = servers.claim_many(
            context, [item.request.server_id for item in chunk])
        db_api.software_configs_create_many(context, configs)
        rows = db_api.software_deployments_create_many(context, values,
                                                       event_reason)
        unrendered = metadata.render_many_in_transaction(
            context, list(claimed.values()))
        if in_chunk is not None:
            in_chunk(context, rows, last)
    LOG.info('Created %d deployments on %d servers for project %s',
             len(rows), len(claimed), context.project_id)
    deadlines.expect(min((row['timeout_at'] for row in rows
                          if row['timeout_at'] is not None), default=None))
    for server_id in unrendered:
        metadata.render(server_id)
    return rows


def _undo(context: RequestContext, rows: list[dict],
          reason: Exception) -> None:
    """Delete the deployments of the chunks a list wrote before
    ``reason`` stopped it (with their derived configs and events), and
    render their servers again (``write`` removes what their signal
    transports made). The servers they registered stay registered. An
    outage here is logged: the error that stopped the list is the one
    raised."""
    try:
        with db_api.writer.using(context):
            gone = db_api.software_deployments_delete_many(
                context, [row['id'] for row in rows])
        for server_id in sorted({row['server_id'] for row in gone}):
            metadata.render(server_id)
    except Exception:
        LOG.exception('Could not undo the %d deployments a list wrote '
                      'before it stopped (%s)', len(rows),
                      type(reason).__name__)
        return
    LOG.warning('Undid the %d deployments a list wrote before it stopped '
                '(%s)', len(gone), type(reason).__name__)


class _MadeMeanwhile(Exception):
    """A concurrent request with the same Idempotency-Key made its list
    first: this one's last chunk rolls back."""

    def __init__(self, first_id: str) -> None:
        super().__init__(first_id)
        self.first_id = first_id


def create_many(context: RequestContext,
                requests: Sequence[DeploymentRequest],
                idempotency_key: str | None = None, *,
                in_chunk: ChunkHook | None = None,
                event_reason: str | None = None,
                chunk_size: int = CHUNK_SIZE) -> list[dict]:
    """Create a deployment for each request, all or none: the rows, in
    request order.

    Every request is checked first (``plan``); any that cannot be created
    refuses the whole list with BatchInvalid, one message per bad item;
    the quota counts the whole list. With an ``idempotency_key`` already
    used for the same list, the deployments that list made (nothing is
    created); used for another request, 422. The key is stored with the
    last chunk, so it names a list that was written whole.
    """
    request_digest = None
    if idempotency_key is not None:
        request_digest = idempotency.digest({'create_many': [
            request.to_dict() for request in requests]})
        with db_api.writer.using(context):
            made = idempotency.made_before(context, idempotency_key,
                                           request_digest)
        if made is not None:
            return _repeated(context, idempotency_key, made, len(requests))
    found = plan(context, requests)
    try:
        if found.problems:
            raise exception.BatchInvalid.of(found.problems, len(requests))
        deployments.check_quota(context, adding=len(requests))
    except Exception:
        forget_transports(found.items)
        raise

    def hook(chunk_context: RequestContext, rows: list[dict],
             last: bool) -> None:
        if in_chunk is not None:
            in_chunk(chunk_context, rows, last)
        if not last or idempotency_key is None:
            return
        made = idempotency.made_before(chunk_context, idempotency_key,
                                       request_digest)
        if made is not None:
            raise _MadeMeanwhile(made)
        first_id = found.items[0].values['id']
        idempotency.remember(chunk_context, idempotency_key,
                             request_digest, first_id, first_id)

    try:
        return write(context, found.items, in_chunk=hook,
                     event_reason=event_reason, chunk_size=chunk_size)
    except _MadeMeanwhile as made:
        return _repeated(context, idempotency_key, made.first_id,
                         len(requests))


def _repeated(context: RequestContext, key: str | None, first_id: str,
              count: int) -> list[dict]:
    """The deployments a list with ``key`` made, in its order;
    DeploymentNotFound for the first one deleted since (as a repeated
    single creation)."""
    ids = deployment_ids(first_id, count)
    rows: dict[str, dict] = {}
    for first in range(0, count, CHUNK_SIZE):
        rows.update(db_api.software_deployments_get_many(
            context, ids[first:first + CHUNK_SIZE]))
    for deployment_id in ids:
        if deployment_id not in rows:
            raise exception.DeploymentNotFound(deployment_id=deployment_id)
    LOG.info('Creation of %d deployments with Idempotency-Key %s '
             'repeated: not created again', count, key)
    return [rows[deployment_id] for deployment_id in ids]
