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

"""Server labels: ``key=value`` pairs on a server, set all at once, and
the label selectors that server groups (and rollouts) target servers by.

A selector ``{"role": "db", "zone": "a"}`` matches the servers that carry
every one of its labels with exactly that value. A key is unique per
server, so a server matches when as many of its labels are in the
selector as the selector has: one grouped range scan of the project's
``(tenant, key, value)`` index, on every backend. Keys and values compare
exactly (case included) everywhere (``types.exact_string``).
"""

from collections.abc import Iterable

import sqlalchemy as sa

from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db.session import reader
from swconfig.db.session import writer

_LABEL = models.ServerLabel.__table__


def matching_servers(project_id: str | None,
                     selector: dict[str, str]) -> sa.Select:
    """The ids of ``project_id``'s servers (every project's when None:
    an admin's listing) that carry every label of ``selector`` (a
    non-empty mapping), as a query to run or nest."""
    pairs = sorted(selector.items())
    query = sa.select(_LABEL.c.server_id).where(sa.or_(*(
        sa.and_(_LABEL.c.key == key, _LABEL.c.value == value)
        for key, value in pairs)))
    if project_id is not None:
        query = query.where(_LABEL.c.tenant == project_id)
    return (query.group_by(_LABEL.c.server_id)
            .having(sa.func.count() == len(pairs)))


@writer
def server_labels_replace(context: RequestContext, server_id: str,
                          project_id: str, labels: dict[str, str]) -> None:
    """Make ``labels`` the server's labels, in the caller's transaction.

    The caller holds the server's row lock (``server_claim``), which
    serializes two replacements of one server's labels.
    """
    connection = context.session.connection()
    connection.execute(sa.delete(_LABEL).where(
        _LABEL.c.server_id == server_id))
    if labels:
        connection.execute(sa.insert(_LABEL), [
            {'server_id': server_id, 'key': key, 'value': value,
             'tenant': project_id}
            for key, value in sorted(labels.items())])


@reader
def server_labels_get(context: RequestContext,
                      server_ids: Iterable[str] | None = None
                      ) -> dict[str, dict[str, str]]:
    """``{server id: {key: value}}`` of the caller's project's servers
    (every project's, for an admin), or only of ``server_ids``; a server
    without labels is absent."""
    query = sa.select(_LABEL.c.server_id, _LABEL.c.key, _LABEL.c.value)
    if not context.is_admin:
        query = query.where(_LABEL.c.tenant == context.project_id)
    if server_ids is not None:
        wanted = sorted(set(server_ids))
        if not wanted:
            return {}
        query = query.where(_LABEL.c.server_id.in_(wanted))
    found: dict[str, dict[str, str]] = {}
    for server_id, key, value in context.session.execute(query):
        found.setdefault(server_id, {})[key] = value
    return found


@reader
def servers_matching(context: RequestContext, selector: dict[str, str],
                     project_id: str | None = None) -> list[str]:
    """The ids of the servers of ``project_id`` (the caller's project by
    default) whose labels match ``selector``, in code point order (the
    same on every backend, unlike their collations); none for an empty
    selector."""
    if not selector:
        return []
    project_id = project_id or context.project_id
    return sorted(context.session.scalars(
        matching_servers(project_id, selector)))
