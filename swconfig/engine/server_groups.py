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

"""Server groups, the engine's side: creating, changing and deleting
them, and resolving one to the servers it holds now (``resolve``), which
is what a rollout records as its targets when it starts.

The API validated the fields (names, ids, the selector's labels); the
rules that need the database (a name free in the project, members that
are the project's registered servers, a group that keeps servers or a
selector) are checked in ``swconfig.db.server_groups``, in the
transaction that writes.
"""

from collections.abc import Sequence

from oslo_log import log
from oslo_utils import uuidutils

from swconfig.common.context import RequestContext
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)


def create(context: RequestContext, name: str, servers: Sequence[str],
           selector: dict[str, str] | None) -> dict:
    """A new group of the caller's project, with its explicit
    ``servers`` and its ``members`` (resolved as it was committed)."""
    with db_api.writer.using(context):
        group = db_api.server_group_create(context, {
            'id': uuidutils.generate_uuid(), 'tenant': context.project_id,
            'name': name, 'selector': selector or None}, list(servers))
        group['members'] = db_api.server_group_resolve(context,
                                                       group['id'])
    LOG.info('Created server group %s (%s) in project %s: %d explicit '
             'servers, selector %s', group['id'], name, group['tenant'],
             len(group['servers']), group['selector'])
    return group


def update(context: RequestContext, group_id: str, values: dict) -> dict:
    """Change what ``values`` names of ``name``, ``servers`` (the explicit
    members, replaced) and ``selector`` (null: none); the group with its
    explicit ``servers`` and its ``members``."""
    changes = {key: values[key] for key in ('name', 'selector')
               if key in values}
    if 'selector' in changes:
        changes['selector'] = changes['selector'] or None
    servers = values.get('servers')
    with db_api.writer.using(context):
        group = db_api.server_group_update(
            context, group_id, changes,
            None if servers is None else list(servers))
        group['members'] = db_api.server_group_resolve(context, group_id)
    LOG.info('Updated server group %s (%s): %s', group_id, group['name'],
             ', '.join(sorted(values)))
    return group


def delete(context: RequestContext, group_id: str) -> None:
    db_api.server_group_delete(context, group_id)
    LOG.info('Deleted server group %s', group_id)


def resolve(context: RequestContext, group_id: str) -> list[str]:
    """The ids of the group's servers now, sorted: the explicit members
    and the project's servers its selector matches
    (``db_api.server_group_resolve``). A rollout calls it once, when it
    starts, and records the list."""
    return db_api.server_group_resolve(context, group_id)
