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

"""A project's rows read out whole and written back with their ids: what
``swconfig-manage export`` and ``import`` move between databases. Part
of the DB facade (``swconfig.db.api``).

A project is its configs, servers (with their labels), deployments (with
their events), server groups (with their explicit members) and rollouts
(with their targets and events). What only the running service needs is
left out: the signal inbox (every signal in it is applied or applies
before the export matters), Idempotency-Keys (they expire within a day),
the server change log and the engines' heartbeats.

Rows are plain dicts of column values without ``tenant``, which the
project gives. Ids are kept; the events' integer ids too, unless the
database already uses one of them, when that table's imported events are
numbered anew (in the same order).
"""

from collections.abc import Iterable
from collections.abc import Mapping

from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db.session import reader
from swconfig.db.session import writer

_CONFIG = models.SoftwareConfig.__table__
_SERVER = models.Server.__table__
_DEPLOYMENT = models.SoftwareDeployment.__table__
_GROUP = models.ServerGroup.__table__
_ROLLOUT = models.Rollout.__table__
_CHANGE = models.ServerChange.__table__

#: The tables of a project, parents before children.
TABLES: tuple[sa.Table, ...] = (
    _CONFIG, _SERVER, models.ServerLabel.__table__, _DEPLOYMENT,
    models.DeploymentEvent.__table__, _GROUP,
    models.ServerGroupMember.__table__, _ROLLOUT,
    models.RolloutTarget.__table__, models.RolloutEvent.__table__)
#: Child table -> (its column naming the parent row, the parent table).
PARENTS: dict[str, tuple[str, sa.Table]] = {
    'server_label': ('server_id', _SERVER),
    'deployment_event': ('deployment_id', _DEPLOYMENT),
    'server_group_member': ('group_id', _GROUP),
    'rollout_target': ('rollout_id', _ROLLOUT),
    'rollout_event': ('rollout_id', _ROLLOUT),
}
#: Tables whose rows are objects with ids of their own: what an import
#: may find in the database already.
OBJECTS = (_CONFIG, _SERVER, _DEPLOYMENT, _GROUP, _ROLLOUT)
#: Tables whose integer ids the database hands out.
NUMBERED = ('deployment_event', 'rollout_event')
#: What of a deployment changes after it is made: what an import with
#: ``refresh`` brings up to date in a deployment the database has.
MUTABLE = ('config_id', 'source_config_id', 'signal_transport',
           'input_values', 'output_values', 'action', 'status',
           'status_reason', 'updated_at')
#: Ids per IN list: far below every backend's limit on parameters.
_CHUNK = 500


def _owned_by(table: sa.Table, tenant: str) -> sa.ColumnElement:
    """The rows of ``table`` that are project ``tenant``'s."""
    if 'tenant' in table.c:
        return table.c.tenant == tenant
    # A child without a project column of its own (events, members,
    # targets) is the project's through its parent.
    column, parent = PARENTS[table.name]
    return table.c[column].in_(
        sa.select(parent.c.id).where(parent.c.tenant == tenant))


@reader
def project_ids(context: RequestContext) -> list[str]:
    """Every project that owns a row of the tables above, sorted."""
    found: set[str] = set()
    for table in OBJECTS:
        found.update(context.session.execute(
            sa.select(table.c.tenant).distinct()).scalars())
    return sorted(found)


@reader
def project_rows_get(context: RequestContext,
                     tenant: str) -> dict[str, list[dict]]:
    """Table name -> project ``tenant``'s rows (``tenant`` left out), in
    primary key order, for every table of ``TABLES``: read as of one
    moment, so no deployment is read without its config."""
    if context.session.get_bind().dialect.name in ('mysql', 'postgresql'):
        # Both read each statement's own snapshot by default (READ
        # COMMITTED); a SQLite transaction reads one state throughout.
        context.session.connection(
            execution_options={'isolation_level': 'REPEATABLE READ'})
    rows = {}
    for table in TABLES:
        columns = [column for column in table.c if column.name != 'tenant']
        query = sa.select(*columns).where(_owned_by(table, tenant)).order_by(
            *table.primary_key.columns)
        rows[table.name] = [dict(row) for row in
                            context.session.execute(query).mappings()]
    return rows


def _chunks(values: list) -> Iterable[list]:
    for start in range(0, len(values), _CHUNK):
        yield values[start:start + _CHUNK]


def _present(context: RequestContext, table: sa.Table,
             ids: list) -> dict:
    """Id -> project (None for a table without one) of those of ``ids``
    that ``table`` holds."""
    owner = table.c.tenant if 'tenant' in table.c else sa.null()
    found = {}
    for chunk in _chunks(ids):
        found.update(context.session.execute(
            sa.select(table.c.id, owner).where(table.c.id.in_(chunk))).all())
    return found


def _described(ids: Mapping[str, list[str]], limit: int = 5) -> str:
    """``ids`` (table -> ids) as "software_config 1, 2; server a" with at
    most ``limit`` ids of a table, then how many more."""
    parts = []
    for table, found in ids.items():
        shown = ', '.join(found[:limit])
        if len(found) > limit:
            shown += f' and {len(found) - limit} more'
        parts.append(f'{table} {shown}')
    return '; '.join(parts)


def _skipped_ids(context: RequestContext, tenant: str,
                 rows: Mapping[str, list[dict]],
                 skip_existing: bool) -> dict[str, set]:
    """Table name -> the ids of the objects to leave as the database has
    them; refused when any belongs to another project, or when any
    exists and ``skip_existing`` is false."""
    mine: dict[str, list[str]] = {}
    theirs: dict[str, list[str]] = {}
    for table in OBJECTS:
        ids = [row['id'] for row in rows.get(table.name, [])]
        for row_id, owner in sorted(_present(context, table, ids).items()):
            (mine if owner == tenant else theirs).setdefault(
                table.name, []).append(row_id)
    if theirs:
        raise exception.ImportIdsOfOtherProject(ids=_described(theirs))
    if mine and not skip_existing:
        raise exception.ImportIdsExist(ids=_described(mine))
    return {table: set(ids) for table, ids in mine.items()}


def _check_group_names(context: RequestContext, tenant: str,
                       groups: list[dict]) -> None:
    """A new group whose name another group of the project has is refused
    up front, naming it, rather than by the unique key."""
    names = {row['name']: row['id'] for row in groups}
    for chunk in _chunks(sorted(names)):
        for group_id, name in context.session.execute(
                sa.select(_GROUP.c.id, _GROUP.c.name).where(
                    _GROUP.c.tenant == tenant, _GROUP.c.name.in_(chunk))):
            if group_id != names[name]:
                raise exception.ServerGroupNameExists(name=name)


def _kept(table: sa.Table, rows: list[dict],
          skipped: Mapping[str, set]) -> list[dict]:
    """The rows of ``table`` to insert: not skipped themselves, nor
    children of a skipped parent."""
    if table.name in skipped:
        return [row for row in rows if row['id'] not in skipped[table.name]]
    if table.name in PARENTS:
        column, parent = PARENTS[table.name]
        gone = skipped.get(parent.name, set())
        return [row for row in rows if row[column] not in gone]
    return rows


def _advance_sequence(context: RequestContext, table: sa.Table) -> None:
    """After rows were inserted with their own ids, make PostgreSQL's
    sequence hand out ids above them (MariaDB's AUTO_INCREMENT and
    SQLite follow the largest id by themselves)."""
    if context.session.get_bind().dialect.name != 'postgresql':
        return
    context.session.execute(sa.select(sa.func.setval(
        sa.func.pg_get_serial_sequence(table.name, 'id'),
        sa.select(sa.func.max(table.c.id)).scalar_subquery())))


def _refresh_deployments(context: RequestContext,
                         rows: Mapping[str, list[dict]],
                         skipped: Mapping[str, set]) -> list[dict]:
    """Bring the kept deployments whose ``MUTABLE`` columns differ from
    ``rows`` up to date (a new version each); those changed, as they
    were."""
    given = {row['id']: row for row in rows.get('software_deployment', [])
             if row['id'] in skipped.get('software_deployment', set())}
    changed = []
    for chunk in _chunks(sorted(given)):
        for row in context.session.execute(sa.select(
                _DEPLOYMENT.c.id, _DEPLOYMENT.c.server_id,
                *(_DEPLOYMENT.c[name] for name in MUTABLE)).where(
                    _DEPLOYMENT.c.id.in_(chunk))).mappings():
            wanted = given[row['id']]
            if all(row[name] == wanted.get(name) for name in MUTABLE):
                continue
            context.session.execute(
                sa.update(_DEPLOYMENT).where(_DEPLOYMENT.c.id == row['id'])
                .values(version=_DEPLOYMENT.c.version + 1,
                        **{name: wanted.get(name) for name in MUTABLE}))
            changed.append(dict(row))
    return changed


@writer
def project_rows_insert(context: RequestContext, tenant: str,
                        rows: Mapping[str, list[dict]],
                        skip_existing: bool = False,
                        refresh: bool = False) -> dict:
    """Insert ``rows`` (as ``project_rows`` gives them) as project
    ``tenant``'s, in one transaction: all of them or, on an error, none.

    Objects whose ids the database has are refused (ImportIdsExist) or,
    with ``skip_existing``, left as they are with their children; ids of
    another project's objects are always refused; with ``refresh`` too,
    a kept deployment takes the ``MUTABLE`` values of ``rows``. Returns
    ``inserted``, ``skipped`` and ``updated`` (table name -> rows),
    ``renumbered`` (the event tables whose ids were taken) and
    ``servers``: the servers whose documents the caller renders in the
    same transaction (those inserted, and those kept whose deployments
    were imported or updated).
    """
    skipped = _skipped_ids(context, tenant, rows, skip_existing)
    groups = _kept(_GROUP, list(rows.get('server_group', [])), skipped)
    _check_group_names(context, tenant, groups)
    report: dict = {'inserted': {}, 'skipped': {}, 'renumbered': [],
                    'updated': {}}
    for table in TABLES:
        given = list(rows.get(table.name, []))
        kept = _kept(table, given, skipped)
        report['skipped'][table.name] = len(given) - len(kept)
        report['inserted'][table.name] = len(kept)
        if not kept:
            continue
        if 'tenant' in table.c:
            kept = [dict(row, tenant=tenant) for row in kept]
        keep_ids = True
        if table.name in NUMBERED:
            keep_ids = not _present(context, table,
                                    [row['id'] for row in kept])
            if not keep_ids:
                report['renumbered'].append(table.name)
                kept = [{k: v for k, v in row.items() if k != 'id'}
                        for row in kept]
        context.session.execute(sa.insert(table), kept)
        if table.name in NUMBERED and keep_ids:
            _advance_sequence(context, table)
    servers = _kept(_SERVER, list(rows.get('server', [])), skipped)
    if servers:
        # API workers may hold "no such server" for an id polled before.
        now = timeutils.utcnow()
        context.session.execute(sa.insert(_CHANGE), [
            {'server_id': row['id'], 'changed_at': now} for row in servers])
    updated = _refresh_deployments(context, rows, skipped) if refresh else []
    report['updated'] = {_DEPLOYMENT.name: len(updated)}
    # Servers kept as they were whose deployments were imported or
    # updated: their documents change too.
    deployed = {row['server_id'] for row in [*_kept(
        _DEPLOYMENT, list(rows.get('software_deployment', [])), skipped),
        *updated]}
    kept_servers = sorted(deployed & skipped.get('server', set()))
    report['servers'] = [dict(row, tenant=tenant) for row in servers] + [
        row for chunk in _chunks(kept_servers) for row in
        context.session.execute(sa.select(_SERVER).where(
            _SERVER.c.id.in_(chunk))).mappings()]
    return report
