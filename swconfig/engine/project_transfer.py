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

"""Whole projects as a versioned JSON document, and back: ``swconfig-manage
export`` and ``import``, for backups, restores and moves between regions
or database backends.

The document keeps every id, so heatclient users, scripts and agents
find the same objects after an import::

    {"format": "swconfig-export", "version": 1,
     "exported_at": "2026-12-07T19:30:00.000000Z",
     "projects": [{"project_id": "...",
                   "software_configs": [...], "servers": [...],
                   "server_labels": [...], "software_deployments": [...],
                   "deployment_events": [...], "server_groups": [...],
                   "server_group_members": [...], "rollouts": [...],
                   "rollout_targets": [...], "rollout_events": [...]}]}

Each list holds the rows of one table as the database has them, without
the project column; times are UTC, ``...Z``. A project is imported in one
transaction: all of it or, when anything is refused, none of it. The
servers' agent documents are rendered again as part of it, so a
document that would differ where the importing service's settings differ
(its public URL, its signing keys) is the importing service's, and one
that would not keeps its ETag and time.
"""

import datetime
from typing import Any

from oslo_db import exception as db_exc
from oslo_log import log
from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.db import api as db_api
from swconfig.db import project_rows
from swconfig.engine import metadata

LOG = log.getLogger(__name__)

FORMAT = 'swconfig-export'
VERSION = 1
#: The most ids an error names per kind of object.
_SHOWN = 5
#: Columns whose value is a time.
_TIMES = {table.name: {column.name for column in table.c
                       if isinstance(column.type, sa.DateTime)}
          for table in project_rows.TABLES}
#: Child table -> {its column: the table whose ids it must name}: what
#: must be in the same project of the document (database foreign keys,
#: and the ids a row shows that have to be found).
_REFERENCES = {
    'server_label': {'server_id': 'server'},
    'software_deployment': {'config_id': 'software_config',
                            'source_config_id': 'software_config'},
    'deployment_event': {'deployment_id': 'software_deployment'},
    'server_group_member': {'group_id': 'server_group',
                            'server_id': 'server'},
    'rollout_target': {'rollout_id': 'rollout'},
    'rollout_event': {'rollout_id': 'rollout'},
}


def key(table_name: str) -> str:
    """The document's key for a table's rows: its name in the plural."""
    return table_name + 's'


def time_text(value: datetime.datetime | None) -> str | None:
    """A naive UTC time as the document writes it."""
    if value is None:
        return None
    return value.isoformat(timespec='microseconds') + 'Z'


def _time_value(text: Any, where: str) -> datetime.datetime | None:
    if text is None:
        return None
    try:
        value = datetime.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        raise exception.InvalidExport(
            reason=f'{where} is {text!r}, not a time such as '
                   f'2026-12-07T19:30:00.000000Z') from None
    if value.tzinfo is not None:
        value = timeutils.normalize_time(value)
    return value


def export_document(projects: list[str] | None = None) -> dict:
    """The document of ``projects`` (every project with data when None).
    A project named that has nothing is refused (InvalidParameterValue):
    most likely a typo, and an export of nothing looks like a backup."""
    admin = swconfig_context.get_admin_context()
    known = db_api.project_ids(admin)
    missing = sorted(set(projects or ()) - set(known))
    if missing:
        raise exception.InvalidParameterValue(
            reason=f'No project {", ".join(missing)} in the database: '
                   f'nothing to export for it (projects with data: '
                   f'{", ".join(known[:_SHOWN]) or "none"}'
                   f'{" and more" if len(known) > _SHOWN else ""})')
    exported = []
    for project in projects or known:
        rows = db_api.project_rows_get(admin, project)
        item: dict[str, Any] = {'project_id': project}
        for table in project_rows.TABLES:
            times = _TIMES[table.name]
            item[key(table.name)] = [
                {column: time_text(value) if column in times else value
                 for column, value in row.items()}
                for row in rows[table.name]]
        exported.append(item)
    return {'format': FORMAT, 'version': VERSION,
            'exported_at': time_text(timeutils.utcnow()),
            'projects': exported}


def _columns(table: sa.Table) -> tuple[dict[str, Any], set[str]]:
    """The columns a row of ``table`` may have, each with the value one
    that lacks it gets, and those it must have."""
    optional: dict[str, Any] = {}
    required = set()
    for column in table.c:
        if column.name == 'tenant':
            continue
        if column.default is not None and column.default.is_scalar:
            optional[column.name] = column.default.arg
        elif column.nullable:
            optional[column.name] = None
        elif column.server_default is None:
            required.add(column.name)
    return optional, required


def _rows(project: dict, where: str) -> dict[str, list[dict]]:
    """Table name -> rows of one project of the document, checked and
    with times parsed; InvalidExport saying what is wrong otherwise."""
    tables = {key(table.name): table for table in project_rows.TABLES}
    unknown = sorted(set(project) - set(tables) - {'project_id'})
    if unknown:
        raise exception.InvalidExport(
            reason=f'{where} has {", ".join(unknown)}, which this release '
                   f'does not know')
    rows = {}
    for name, table in tables.items():
        given = project.get(name, [])
        if not isinstance(given, list) or not all(
                isinstance(row, dict) for row in given):
            raise exception.InvalidExport(
                reason=f'{where} {name} is not a list of objects')
        optional, required = _columns(table)
        allowed = set(optional) | required
        times = _TIMES[table.name]
        parsed = []
        for index, row in enumerate(given):
            at = f'{where} {name}[{index}]'
            extra = sorted(set(row) - allowed)
            lacking = sorted(required - set(row))
            if extra or lacking:
                raise exception.InvalidExport(reason=at + ' ' + ' and '.join(
                    part for part in (
                        extra and f'has {", ".join(extra)}, which this '
                                  f'release does not know',
                        lacking and f'lacks {", ".join(lacking)}')
                    if part))
            parsed.append({column: _time_value(value, f'{at} {column}')
                           if column in times else value
                           for column, value in (optional | row).items()})
        rows[table.name] = parsed
    _check_references(rows, where)
    return rows


def _check_references(rows: dict[str, list[dict]], where: str) -> None:
    """Every row names parents of the same project of the document."""
    ids = {name: {row.get('id') for row in table_rows}
           for name, table_rows in rows.items()}
    for child, references in _REFERENCES.items():
        for column, parent in references.items():
            strays = sorted({row[column] for row in rows[child]
                             if row.get(column) is not None
                             and row[column] not in ids[parent]})
            if strays:
                raise exception.InvalidExport(
                    reason=f'{where} {key(child)} name {key(parent)} that '
                           f'are not in the project: '
                           f'{", ".join(map(str, strays[:_SHOWN]))}')


def check_document(document: Any) -> list[dict]:
    """The projects of an export document, each checked; InvalidExport
    naming the first thing that is wrong."""
    if not isinstance(document, dict) or document.get('format') != FORMAT:
        raise exception.InvalidExport(
            reason=f'it has no "format": "{FORMAT}"')
    if document.get('version') != VERSION:
        raise exception.InvalidExport(
            reason=f'it is version {document.get("version")!r}; this '
                   f'release reads version {VERSION}')
    projects = document.get('projects')
    if not isinstance(projects, list):
        raise exception.InvalidExport(reason='"projects" is not a list')
    seen = set()
    for index, project in enumerate(projects):
        project_id = project.get('project_id') if isinstance(
            project, dict) else None
        if not isinstance(project_id, str) or not 0 < len(project_id) <= 64:
            raise exception.InvalidExport(
                reason=f'projects[{index}] has no "project_id" of 1 to 64 '
                       f'characters')
        if project_id in seen:
            raise exception.InvalidExport(
                reason=f'project {project_id} is in it twice')
        seen.add(project_id)
    return projects


def import_project(project: dict, skip_existing: bool = False,
                   refresh: bool = False) -> dict:
    """Import one project of a checked document, in one transaction.

    The report: ``project_id``, ``inserted`` and ``skipped`` (document
    key -> rows), ``renumbered`` (event lists whose ids were taken) and
    ``rendered`` (the servers whose agent document changed on the way);
    with ``refresh`` (and ``skip_existing``), ``updated``: deployments
    the database had whose status, outputs, ... the document changes.
    Raises what refused the project; nothing of it is then written.
    """
    project_id = project['project_id']
    rows = _rows(project, f'project {project_id}:')
    admin = swconfig_context.get_admin_context()
    try:
        with db_api.writer.using(admin):
            report = db_api.project_rows_insert(admin, project_id, rows,
                                                skip_existing, refresh)
            servers = report.pop('servers')
            before = {server['id']: server['etag'] for server in servers}
            later = metadata.render_many_in_transaction(admin, servers)
            after = db_api.servers_get_many(admin, list(before))
    except db_exc.DBError as exc:
        if db_api.is_outage(exc):
            raise
        # What the document holds that the database refuses (a value
        # too long for its column, ...): the driver's words.
        raise exception.InvalidExport(
            reason=f'project {project_id}: the database refused it: '
                   f'{str(exc.inner_exception or exc).splitlines()[0]}'
        ) from None
    for server_id in later:
        metadata.render(server_id)
    report['rendered'] = sorted(
        {server_id for server_id, etag in before.items()
         if after[server_id]['etag'] != etag} | set(later))
    report['project_id'] = project_id
    for name in ('inserted', 'skipped', 'updated'):
        report[name] = {key(table): count
                        for table, count in report[name].items()}
    report['renumbered'] = [key(table) for table in report['renumbered']]
    LOG.info('Imported project %s: %s', project_id, report)
    return report
