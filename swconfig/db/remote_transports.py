"""What the engines' Swift and Zaqar transport workers read and write.
Part of the DB facade (``swconfig.db.api``).

Signals fetched from Swift or Zaqar enter the same inbox as those agents
send to swconfig, keyed by where they came from, so fetching one twice
(two engines around a takeover, a retry after a lost answer) stores it
once. Documents of servers that poll Swift or Zaqar are marked when they
change and pushed by an engine, which clears the mark only if the
document did not change again meanwhile.
"""


import sqlalchemy as sa

from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db.session import reader
from swconfig.db.session import writer

_DEPLOYMENT = models.SoftwareDeployment.__table__
_SERVER = models.Server.__table__


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
