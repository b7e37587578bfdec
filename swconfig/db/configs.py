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

"""Software configs: immutable scripts and their declared inputs and
outputs, which deployments reference.

Every deployment creation reads its source config and creates the
derived one, so those two run on Core statements built once; listing and
deleting, rarer, use the ORM. A config still referenced by a deployment
is never deleted.
"""

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db import queries
from swconfig.db.session import reader
from swconfig.db.session import writer

_CONFIG = models.SoftwareConfig.__table__
_INSERT_CONFIG = sa.insert(_CONFIG)
_CONFIG_GET = sa.select(_CONFIG).where(
    _CONFIG.c.id == sa.bindparam('config_id'))
_CONFIG_GET_SCOPED = _CONFIG_GET.where(
    _CONFIG.c.tenant == sa.bindparam('project_id'))


@writer
def software_config_create(context: RequestContext, values: dict) -> dict:
    """Insert a config; the row as stored, not read back (every
    deployment creation derives one)."""
    row = queries.new_row(_CONFIG, values)
    row['created_at'] = row['created_at'] or timeutils.utcnow()
    context.session.connection().execute(_INSERT_CONFIG, row)
    return row


@writer
def software_configs_create_many(context: RequestContext,
                                 values: list[dict]) -> list[dict]:
    """Insert configs in one statement (a batch of deployments derives
    one each); the rows as stored, in the order given."""
    now = timeutils.utcnow()
    rows = []
    for item in values:
        row = queries.new_row(_CONFIG, item)
        row['created_at'] = row['created_at'] or now
        rows.append(row)
    if rows:
        context.session.connection().execute(_INSERT_CONFIG, rows)
    return rows


@reader
def software_config_get(context: RequestContext, config_id: str) -> dict:
    """A config of the caller's project (any, for an admin);
    ConfigNotFound for one of another project too."""
    if context.is_admin:
        found = context.session.connection().execute(
            _CONFIG_GET, {'config_id': config_id})
    else:
        found = context.session.connection().execute(
            _CONFIG_GET_SCOPED, {'config_id': config_id,
                                 'project_id': context.project_id})
    row = found.first()
    if row is None:
        raise exception.ConfigNotFound(config_id=config_id)
    return row._asdict()


@reader
def software_configs_get_many(context: RequestContext,
                              config_ids: list[str]) -> dict[str, dict]:
    """{config id: row} of the configs among ``config_ids`` the caller
    may see (as ``software_config_get``): one query for a batch of
    deployments; an id missing from the answer is "not found"."""
    ids = sorted(set(config_ids))
    if not ids:
        return {}
    query = sa.select(_CONFIG).where(_CONFIG.c.id.in_(ids))
    if not context.is_admin:
        query = query.where(_CONFIG.c.tenant == context.project_id)
    return {row.id: row._asdict()
            for row in context.session.connection().execute(query)}


def _derived(model: type[models.SoftwareConfig]) -> sa.Exists:
    """The config is the one the engine derived for a deployment (what
    its agent runs); configs people create never are."""
    deployment = models.SoftwareDeployment
    return sa.exists().where(deployment.config_id == model.id,
                             deployment.source_config_id.is_not(None))


@reader
def software_config_get_all(context: RequestContext, limit: int | None = None,
                            marker: str | None = None,
                            all_projects: bool = False,
                            derived: bool | None = None) -> list[dict]:
    """Newest first (created_at, id descending), Heat's paging rules: the
    marker is looked up in any project and ignored when unknown.
    ``all_projects`` is for callers the global_index policy allowed.
    ``derived``: True only the configs the engine derived for
    deployments, False all but those, None all (Heat's list)."""
    model = models.SoftwareConfig
    query = queries.visible_configs(context, all_projects).order_by(
        model.created_at.desc(), model.id.desc())
    if derived is not None:
        query = query.where(_derived(model) if derived
                            else ~_derived(model))
    if marker:
        mark = context.session.get(model, marker)
        if mark is not None:
            query = query.where(sa.or_(
                model.created_at < mark.created_at,
                sa.and_(model.created_at == mark.created_at,
                        model.id < mark.id)))
    if limit is not None:
        query = query.limit(limit)
    return [row.to_dict() for row in context.session.scalars(query)]


@reader
def software_config_names(context: RequestContext,
                          config_ids: list[str]) -> dict[str, str | None]:
    """{config id: name} of the configs ``config_ids`` names (an id with
    no config is absent): the names deployment views show. Not scoped to
    the caller's project: the ids come from deployments the caller may
    see (a stack user project's included), whose configs belong to the
    deployment's project."""
    ids = sorted(set(config_ids))
    if not ids:
        return {}
    return dict(context.session.connection().execute(
        sa.select(_CONFIG.c.id, _CONFIG.c.name)
        .where(_CONFIG.c.id.in_(ids))).all())


@reader
def software_config_count(context: RequestContext) -> int:
    """The project's configs, for its quota."""
    query = sa.select(sa.func.count()).select_from(
        models.SoftwareConfig).where(
            models.SoftwareConfig.tenant == context.project_id)
    return context.session.scalar(query)


@oslo_db_api.retry_on_deadlock
@writer
def software_config_delete(context: RequestContext, config_id: str) -> None:
    """Delete a config; ConfigInUse while a deployment uses it as its
    config or its source, so no deployment loses what it runs."""
    query = queries.visible_configs(context).where(
        models.SoftwareConfig.id == config_id)
    row = context.session.scalars(query).first()
    if row is None:
        raise exception.ConfigNotFound(config_id=config_id)
    deployment = models.SoftwareDeployment
    referenced = context.session.scalar(
        sa.select(deployment.id).where(sa.or_(
            deployment.config_id == config_id,
            deployment.source_config_id == config_id)).limit(1))
    if referenced is not None:
        raise exception.ConfigInUse(config_id=config_id)
    try:
        context.session.delete(row)
        context.session.flush()
    except db_exc.DBReferenceError:
        # A deployment referencing it was committed in between.
        raise exception.ConfigInUse(config_id=config_id)
