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

"""Server groups: the targets a rollout resolves. A group of one project
names servers explicitly (``server_group_member``), selects them by label
(``selector``), or both; it needs at least one of the two.

Explicit members must be servers the group's project registered (a group
registers nothing, so a mistyped id is refused, not kept); unregistering
a server takes it out of every group. Membership is resolved when asked
(``server_group_resolve``): a server labelled after the group was made
joins it, one relabelled leaves it.
"""

from collections.abc import Sequence

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db import queries
from swconfig.db import server_labels
from swconfig.db.session import reader
from swconfig.db.session import writer

_GROUP = models.ServerGroup.__table__
_MEMBER = models.ServerGroupMember.__table__
_SERVER = models.Server.__table__
#: How many unregistered ids a refusal names.
_NAMED = 5


def _group_row(context: RequestContext, group_id: str,
               for_update: bool = False) -> dict:
    """The group, if the caller may see it (its project's; any, for an
    admin); ServerGroupNotFound otherwise."""
    return queries.project_row(
        context, _GROUP, group_id,
        exception.ServerGroupNotFound(group_id=group_id), for_update)


def _explicit_members(context: RequestContext, group_id: str) -> list[str]:
    return sorted(context.session.scalars(
        sa.select(_MEMBER.c.server_id).where(
            _MEMBER.c.group_id == group_id)))


def _check_members(context: RequestContext, project_id: str,
                   server_ids: Sequence[str]) -> None:
    """Every id must be a server registered to ``project_id``: 403 for
    one of another project, 400 naming those nobody registered. The
    servers are share-locked until the caller commits, so none is
    unregistered between this check and the members' insert."""
    owners: dict[str, str] = {}
    for chunk in queries.in_chunks(server_ids):
        owners.update(context.session.execute(
            sa.select(_SERVER.c.id, _SERVER.c.tenant)
            .where(_SERVER.c.id.in_(chunk))
            .with_for_update(read=True)).all())
    for server_id in server_ids:
        owner = owners.get(server_id)
        if owner is not None and owner != project_id:
            raise exception.ServerOwnedByOtherProject(server_id=server_id)
    unknown = [server_id for server_id in server_ids
               if server_id not in owners]
    if unknown:
        named = ', '.join(unknown[:_NAMED])
        more = len(unknown) - _NAMED
        raise exception.GroupMembersNotRegistered(
            servers=(f'Server {named} is' if len(unknown) == 1 else
                     f'Servers {named}' + (f' and {more} more'
                                           if more > 0 else '') + ' are'))


def _set_members(context: RequestContext, group: dict,
                 server_ids: Sequence[str]) -> None:
    """Make ``server_ids`` the group's explicit members."""
    _check_members(context, group['tenant'], server_ids)
    connection = context.session.connection()
    connection.execute(sa.delete(_MEMBER).where(
        _MEMBER.c.group_id == group['id']))
    for chunk in queries.in_chunks(sorted(set(server_ids))):
        connection.execute(sa.insert(_MEMBER), [
            {'group_id': group['id'], 'server_id': server_id}
            for server_id in chunk])


def _check_name_free(context: RequestContext, project_id: str, name: str,
                     group_id: str | None = None) -> None:
    query = sa.select(_GROUP.c.id).where(_GROUP.c.tenant == project_id,
                                         _GROUP.c.name == name)
    if group_id is not None:
        query = query.where(_GROUP.c.id != group_id)
    if context.session.scalar(query.limit(1)) is not None:
        raise exception.ServerGroupNameExists(name=name)


def _with_servers(context: RequestContext, group: dict) -> dict:
    return {**group, 'servers': _explicit_members(context, group['id'])}


@writer
def server_group_create(context: RequestContext, values: dict,
                        server_ids: Sequence[str] = ()) -> dict:
    """Insert a group (``id``, ``tenant``, ``name``, ``selector``) with
    its explicit members; the group as stored, with ``servers``."""
    if not values.get('selector') and not server_ids:
        raise exception.ServerGroupEmpty(
            detail='give "servers", "selector" or both.')
    group = {**values, 'created_at': timeutils.utcnow(),
             'updated_at': None}
    _check_name_free(context, group['tenant'], group['name'])
    try:
        context.session.connection().execute(sa.insert(_GROUP), group)
    except db_exc.DBDuplicateEntry:
        # Created meanwhile by a concurrent request.
        raise exception.ServerGroupNameExists(name=group['name'])
    _set_members(context, group, server_ids)
    return _with_servers(context, group)


@reader
def server_group_get(context: RequestContext, group_id: str) -> dict:
    """A group the caller may see, with its explicit ``servers``."""
    return _with_servers(context, _group_row(context, group_id))


@reader
def server_group_get_all(context: RequestContext, limit: int | None = None,
                         marker: str | None = None) -> list[dict]:
    """The caller's project's groups (every project's, for an admin) in
    name order, without their members. Paged as the other lists: after
    the group ``marker`` (ignored when the caller sees no such group),
    at most ``limit``."""
    query = sa.select(_GROUP).order_by(_GROUP.c.name, _GROUP.c.id)
    if not context.is_admin:
        query = query.where(_GROUP.c.tenant == context.project_id)
    if marker:
        try:
            mark = _group_row(context, marker)
        except exception.ServerGroupNotFound:
            mark = None
        if mark is not None:
            query = query.where(sa.or_(
                _GROUP.c.name > mark['name'],
                sa.and_(_GROUP.c.name == mark['name'],
                        _GROUP.c.id > mark['id'])))
    if limit is not None:
        query = query.limit(limit)
    return [row._asdict() for row in context.session.execute(query)]


@writer
def server_group_update(context: RequestContext, group_id: str,
                        values: dict,
                        server_ids: Sequence[str] | None = None) -> dict:
    """Change the group's ``name`` and ``selector`` (those in
    ``values``) and, unless ``server_ids`` is None, its explicit
    members; the group must keep servers, a selector or both."""
    group = _group_row(context, group_id, for_update=True)
    changes = {key: values[key] for key in ('name', 'selector')
               if key in values}
    if server_ids is not None:
        has_servers = bool(server_ids)
    else:
        has_servers = bool(_explicit_members(context, group_id))
    if not changes.get('selector', group['selector']) and not has_servers:
        raise exception.ServerGroupEmpty(
            detail='this change would leave the group with neither.')
    if 'name' in changes and changes['name'] != group['name']:
        _check_name_free(context, group['tenant'], changes['name'],
                         group_id)
    changes['updated_at'] = timeutils.utcnow()
    try:
        context.session.connection().execute(
            sa.update(_GROUP).where(_GROUP.c.id == group_id)
            .values(**changes))
    except db_exc.DBDuplicateEntry:
        raise exception.ServerGroupNameExists(name=changes['name'])
    group.update(changes)
    if server_ids is not None:
        _set_members(context, group, server_ids)
    return _with_servers(context, group)


@writer
def server_group_delete(context: RequestContext, group_id: str) -> None:
    """Delete a group (its explicit members go with it)."""
    _group_row(context, group_id, for_update=True)
    connection = context.session.connection()
    connection.execute(sa.delete(_MEMBER).where(
        _MEMBER.c.group_id == group_id))
    connection.execute(sa.delete(_GROUP).where(_GROUP.c.id == group_id))


@reader
def server_group_resolve(context: RequestContext, group_id: str) -> list[str]:
    """The group's members now: its explicit servers and every server of
    its project whose labels match its selector, each once, sorted by id
    (code point order: the same on every backend).

    This is what a rollout records as its targets when it starts, in its
    own transaction: later changes of the group or of labels do not
    change a rollout that started. ServerGroupNotFound for a group the
    caller may not see.
    """
    group = _group_row(context, group_id)
    members = set(_explicit_members(context, group_id))
    if group['selector']:
        members.update(context.session.scalars(
            server_labels.matching_servers(group['tenant'],
                                           group['selector'])))
    return sorted(members)
