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

"""Idempotency keys: the Idempotency-Key of each request that made a
deployment (a creation or a trigger), so a retried request gets what the
first one made instead of making it again.

A key is unique per project. It is looked up and stored in the writer
transaction that creates the deployment, so two concurrent requests with
one key cannot both run: the second meets the unique constraint, and its
retry finds the first's row. Expired keys are purged in batches.
"""

import datetime

import sqlalchemy as sa

from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db.session import writer

_KEY = models.RequestKey.__table__
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
