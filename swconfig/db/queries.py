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

"""Query pieces several entity modules share.

Who may see a config or a deployment is decided inside the query (admins
are not scoped), so an object of another project is simply "not found";
both rules live here, side by side. Inserts write Core rows with every
column, and the renderer and the signal applier read joined Core rows
back as one dict per table, without the ORM, because they run on hot
paths.
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from swconfig.common.context import RequestContext
from swconfig.db import models


def visible_configs(context: RequestContext,
                    all_projects: bool = False) -> sa.Select:
    """The software configs the caller may see: its project's, or all of
    them for an admin or when ``all_projects`` is allowed."""
    query = sa.select(models.SoftwareConfig)
    if not (context.is_admin or all_projects):
        query = query.where(
            models.SoftwareConfig.tenant == context.project_id)
    return query


def visible_deployments(context: RequestContext) -> sa.Select:
    """The deployments the caller may see: those of its project, and
    those whose stack user project it is (Heat's rule)."""
    query = sa.select(models.SoftwareDeployment)
    if not context.is_admin:
        model = models.SoftwareDeployment
        query = query.where(sa.or_(
            model.tenant == context.project_id,
            model.stack_user_project_id == context.project_id))
    return query


#: Ids per IN list: within every backend's limit of bound parameters.
IN_CHUNK = 500


def in_chunks(ids: Sequence[str]) -> list[Sequence[str]]:
    """``ids`` in slices of at most ``IN_CHUNK``, one IN list each."""
    return [ids[start:start + IN_CHUNK]
            for start in range(0, len(ids), IN_CHUNK)]


def new_row(table: sa.Table, values: dict) -> dict:
    """A row as the table will hold it: every column, None by default."""
    row = dict.fromkeys(table.columns.keys())
    row.update(values)
    return row


def labelled_columns(model: Any, prefix: str) -> list:
    """Every column of ``model``, labelled ``<prefix><column>``."""
    return [column.label(f'{prefix}{column.key}')
            for column in model.__table__.columns]


def split_row(row: Any, **prefixes: str) -> dict[str, dict | None]:
    """A joined Core row back into one dict per table (None for the
    missing side of an outer join)."""
    values = row._asdict()
    parts = {}
    for name, prefix in prefixes.items():
        part = {key[len(prefix):]: value for key, value in values.items()
                if key.startswith(prefix)}
        parts[name] = part if part.get('id') is not None else None
    return parts


def project_row(context: RequestContext, table: sa.Table, row_id: str,
                not_found: Exception, for_update: bool = False) -> dict:
    """The row of ``table`` with ``row_id`` if the caller may see it (its
    project's ``tenant``; any, for an admin), locked with
    ``for_update``; raises ``not_found`` otherwise."""
    query = sa.select(table).where(table.c.id == row_id)
    if not context.is_admin:
        query = query.where(table.c.tenant == context.project_id)
    if for_update:
        query = query.with_for_update()
    row = context.session.execute(query).first()
    if row is None:
        raise not_found
    return row._asdict()
