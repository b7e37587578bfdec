"""What the engines' Swift and Zaqar transport workers read and write.
Part of the DB facade (``swconfig.db.api``).

Signals fetched from Swift or Zaqar enter the same inbox as those agents
send to swconfig, keyed by where they came from, so fetching one twice
(two engines around a takeover, a retry after a lost answer) stores it
once. Documents of servers that poll Swift or Zaqar are marked when they
change and pushed by an engine, which clears the mark only if the
document did not change again meanwhile.
"""

from typing import Any

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import states
from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db.session import reader
from swconfig.db.session import writer

_INBOX = models.SignalInbox.__table__
_DEPLOYMENT = models.SoftwareDeployment.__table__
_SERVER = models.Server.__table__


@writer
def _inbox_insert(context: RequestContext, values: dict) -> int:
    return context.session.execute(
        sa.insert(_INBOX).values(**values)).inserted_primary_key[0]


def signal_inbox_add_once(context: RequestContext, deployment_id: str,
                          action_revision: int, payload: Any,
                          source_key: str) -> int | None:
    """Store a fetched signal in a transaction of its own; None if the
    signal with this ``source_key`` was stored before."""
    try:
        return _inbox_insert(context, {
            'deployment_id': deployment_id,
            'action_revision': action_revision, 'payload': payload,
            'received_at': timeutils.utcnow(),
            'request_id': context.request_id, 'source_key': source_key})
    except db_exc.DBDuplicateEntry:
        return None


@reader
def software_deployments_waiting(context: RequestContext, transport: str,
                                 deployment_ids: list[str] | None = None
                                 ) -> list[dict]:
    """The IN_PROGRESS deployments of ``transport`` (among
    ``deployment_ids`` if given): what its workers watch."""
    query = sa.select(_DEPLOYMENT.c.id, _DEPLOYMENT.c.server_id,
                      _DEPLOYMENT.c.action_revision).where(
        _DEPLOYMENT.c.status == states.IN_PROGRESS,
        _DEPLOYMENT.c.signal_transport == transport)
    if deployment_ids is not None:
        if not deployment_ids:
            return []
        query = query.where(_DEPLOYMENT.c.id.in_(deployment_ids))
    return [row._asdict() for row in context.session.execute(query)]


@reader
def server_push_pending(context: RequestContext, limit: int,
                        after: str = '') -> list[dict]:
    """Servers whose document waits to be pushed, in id order after
    ``after``, with the document."""
    rows = context.session.execute(
        sa.select(_SERVER.c.id, _SERVER.c.tenant, _SERVER.c.config_transport,
                  _SERVER.c.token_revision, _SERVER.c.document,
                  _SERVER.c.etag, _SERVER.c.document_revision)
        .where(_SERVER.c.push_pending == sa.true(), _SERVER.c.id > after)
        .order_by(_SERVER.c.id).limit(limit))
    return [row._asdict() for row in rows]


@writer
def server_push_done(context: RequestContext, server_id: str,
                     document_revision: int) -> bool:
    """Clear the push mark unless the document changed since
    ``document_revision`` was read (then it is pushed again)."""
    return context.session.execute(
        sa.update(_SERVER)
        .where(_SERVER.c.id == server_id,
               _SERVER.c.document_revision == document_revision)
        .values(push_pending=False)).rowcount == 1
