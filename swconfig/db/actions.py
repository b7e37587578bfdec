"""The database side of deployment actions: the Idempotency-Keys of the
requests that make deployments (creations and triggers), and the versions
long polls watch. Part of the DB facade (``swconfig.db.api``).

A key is unique per project. It is looked up and stored in the writer
transaction that creates the deployment, so two concurrent requests with
one key cannot both run: the second meets the unique constraint, and its
retry finds the first's row.
"""

import datetime

import sqlalchemy as sa

from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db.session import reader
from swconfig.db.session import writer

_KEY = models.RequestKey.__table__
_DEPLOYMENT = models.SoftwareDeployment.__table__
PURGE_BATCH = 1000


@writer
def request_key_get(context: RequestContext, key: str,
                    now: datetime.datetime) -> dict | None:
    """The live row of ``key`` in the caller's project, or None. An
    expired row still there (not purged yet) is removed, so the key can
    be used again."""
    where = (_KEY.c.tenant == context.project_id,
             _KEY.c.idempotency_key == key)
    connection = context.session.connection()
    row = connection.execute(sa.select(_KEY).where(*where)).first()
    if row is None:
        return None
    if row.expires_at <= now:
        connection.execute(sa.delete(_KEY).where(*where))
        return None
    return dict(row._mapping)


@writer
def request_key_add(context: RequestContext, values: dict) -> None:
    """Store a key; DBDuplicateEntry if a concurrent request stored it
    first (the caller's transaction then starts again)."""
    context.session.connection().execute(sa.insert(_KEY), values)


@writer
def request_key_purge(context: RequestContext,
                      now: datetime.datetime) -> int:
    """Remove up to PURGE_BATCH expired keys; returns how many."""
    connection = context.session.connection()
    ids = connection.scalars(
        sa.select(_KEY.c.id).where(_KEY.c.expires_at <= now)
        .order_by(_KEY.c.expires_at).limit(PURGE_BATCH)).all()
    if ids:
        connection.execute(sa.delete(_KEY).where(_KEY.c.id.in_(ids)))
    return len(ids)


@reader
def software_deployment_versions(context: RequestContext,
                                 deployment_ids: list[str]
                                 ) -> dict[str, int]:
    """The ``version`` of each deployment that still exists: one
    primary-key query for every long poll of an API worker."""
    return dict(context.session.connection().execute(
        sa.select(_DEPLOYMENT.c.id, _DEPLOYMENT.c.version)
        .where(_DEPLOYMENT.c.id.in_(deployment_ids))).all())
