"""The database side of deployment actions: idempotency keys of trigger
requests, and the versions long polls watch. Part of the DB facade
(``swconfig.db.api``).

A key is unique per project. It is looked up and stored in the writer
transaction that creates the trigger deployment, so two concurrent
requests with one key cannot both run: the second meets the unique
constraint, and its retry finds the first's row.
"""

import datetime

import sqlalchemy as sa

from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db.session import reader
from swconfig.db.session import writer

_TRIGGER = models.TriggerRequest.__table__
_DEPLOYMENT = models.SoftwareDeployment.__table__
PURGE_BATCH = 1000


@writer
def trigger_request_get(context: RequestContext, key: str,
                        now: datetime.datetime) -> dict | None:
    """The live row of ``key`` in the caller's project, or None. An
    expired row still there (not purged yet) is removed, so the key can
    be used again."""
    where = (_TRIGGER.c.tenant == context.project_id,
             _TRIGGER.c.idempotency_key == key)
    connection = context.session.connection()
    row = connection.execute(sa.select(_TRIGGER).where(*where)).first()
    if row is None:
        return None
    if row.expires_at <= now:
        connection.execute(sa.delete(_TRIGGER).where(*where))
        return None
    return dict(row._mapping)


@writer
def trigger_request_add(context: RequestContext, values: dict) -> None:
    """Store a key; DBDuplicateEntry if a concurrent request stored it
    first (the caller's transaction then starts again)."""
    context.session.connection().execute(sa.insert(_TRIGGER), values)


@writer
def trigger_request_purge(context: RequestContext,
                          now: datetime.datetime) -> int:
    """Remove up to PURGE_BATCH expired keys; returns how many."""
    connection = context.session.connection()
    ids = connection.scalars(
        sa.select(_TRIGGER.c.id).where(_TRIGGER.c.expires_at <= now)
        .order_by(_TRIGGER.c.expires_at).limit(PURGE_BATCH)).all()
    if ids:
        connection.execute(sa.delete(_TRIGGER).where(_TRIGGER.c.id.in_(ids)))
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
