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

"""Servers: registered explicitly or by the first deployment that
targets one, owned by the project that registered it, each holding the
metadata document its agent polls, rendered again whenever one of its
deployments changes.

Agents' poll times (``last_poll_at``) are written in batches by the API
workers, never moved backwards.

Storing a server's document and removing a server each log a change
(``server_change``) in the same transaction: the API workers' metadata
caches read that log. Documents of servers that poll Swift or Zaqar are
also marked for an engine to push, which clears the mark only if the
document did not change again meanwhile.
"""

from collections.abc import Mapping
from collections.abc import Sequence
import functools
import itertools
from typing import Any

from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db import queries
from swconfig.db import server_labels
from swconfig.db.agent_path import agent_engine
from swconfig.db.agent_path import hot_statement
from swconfig.db.session import reader
from swconfig.db.session import writer

_CONFIG = models.SoftwareConfig.__table__
_DEPLOYMENT = models.SoftwareDeployment.__table__
_SERVER = models.Server.__table__
_CHANGE = models.ServerChange.__table__
_INSERT_SERVER = sa.insert(_SERVER)
_SERVER_COLUMNS = [column for column in _SERVER.columns
                   if column.key != 'document']
_SERVER_LOCK = sa.select(*_SERVER_COLUMNS).where(
    _SERVER.c.id == sa.bindparam('server_id')).with_for_update()
_SERVERS_GET = sa.select(*_SERVER_COLUMNS).where(
    _SERVER.c.id.in_(sa.bindparam('server_ids', expanding=True))
).order_by(_SERVER.c.id)
_SERVERS_LOCK = _SERVERS_GET.with_for_update()
# The renderer's input: every deployment of a server with its config.
# Of a deployment only what ``metadata.stays_in_document`` and
# ``document_changes`` read: decoding its inputs and outputs (JSON) and
# timestamps would cost a third of a render's CPU.
RENDER_DEPLOYMENT_COLUMNS = ('id', 'config_id', 'action', 'status',
                             'status_reason')
_SERVER_DEPLOYMENT_CONFIGS = (
    sa.select(*(_DEPLOYMENT.c[name].label(f'd_{name}')
                for name in RENDER_DEPLOYMENT_COLUMNS),
              *queries.labelled_columns(models.SoftwareConfig, 'c_'))
    .join(_CONFIG, _DEPLOYMENT.c.config_id == _CONFIG.c.id)
    .where(_DEPLOYMENT.c.server_id == sa.bindparam('server_id'))
    .order_by(_DEPLOYMENT.c.created_at.asc(), _DEPLOYMENT.c.id.asc()))
# The same for a batch's servers (``server_id`` added to tell them apart).
_SERVERS_DEPLOYMENT_CONFIGS = (
    sa.select(_DEPLOYMENT.c.server_id.label('d_server_id'),
              *(_DEPLOYMENT.c[name].label(f'd_{name}')
                for name in RENDER_DEPLOYMENT_COLUMNS),
              *queries.labelled_columns(models.SoftwareConfig, 'c_'))
    .join(_CONFIG, _DEPLOYMENT.c.config_id == _CONFIG.c.id)
    .where(_DEPLOYMENT.c.server_id.in_(
        sa.bindparam('server_ids', expanding=True)))
    .order_by(_DEPLOYMENT.c.server_id, _DEPLOYMENT.c.created_at.asc(),
              _DEPLOYMENT.c.id.asc()))
_SERVER_DOCUMENT_STORE = (
    sa.update(_SERVER)
    .where(_SERVER.c.id == sa.bindparam('server_id'),
           _SERVER.c.document_revision == sa.bindparam('expected_revision'))
    .values(document=sa.bindparam('document'), etag=sa.bindparam('etag'),
            document_revision=sa.bindparam('revision'),
            updated_at=sa.bindparam('now'),
            push_pending=sa.bindparam('push')))
_INSERT_CHANGE = sa.insert(_CHANGE)

# The agents' hot path (``agent_path``): metadata polls.
_VALIDATORS = (_SERVER.c.etag, _SERVER.c.updated_at, _SERVER.c.token_revision)
_HEAD = hot_statement(sa.select(*_VALIDATORS).where(
    _SERVER.c.id == sa.bindparam('server_id')))
# With the owner, for the tenant view (its route's cached handler,
# swconfig.api.controllers.v1.software_deployments).
_GET = hot_statement(sa.select(*_VALIDATORS, _SERVER.c.document,
                               _SERVER.c.tenant).where(
    _SERVER.c.id == sa.bindparam('server_id')))
# The document only when the agent's copy is stale: a 304 reads no blob.
_GET_UNLESS = hot_statement(sa.select(
    *_VALIDATORS,
    sa.case((_SERVER.c.etag == sa.bindparam('etag'), sa.null()),
            else_=_SERVER.c.document).label('document')).where(
    _SERVER.c.id == sa.bindparam('server_id')))
_CHANGES_AFTER = hot_statement(
    sa.select(_CHANGE.c.id, _CHANGE.c.server_id).where(
        _CHANGE.c.id > sa.bindparam('after')).order_by(_CHANGE.c.id))


def new_server_row(context: RequestContext, server_id: str,
                   base_url: str | None,
                   config_transport: str | None) -> dict:
    """The row (without its document) of a server the caller registers
    now: what ``server_claim`` inserts."""
    now = timeutils.utcnow()
    return {'id': server_id, 'tenant': context.project_id,
            'base_url': base_url, 'token_revision': 1,
            'document_revision': 0, 'etag': None, 'created_at': now,
            'updated_at': now, 'config_transport': config_transport,
            'push_pending': False}


def server_claimable(context: RequestContext, server_id: str,
                     row: dict | None, create: bool) -> None:
    """Refuse what claiming ``server_id`` (its row ``row``, None when
    nobody registered it) would refuse: an unknown server unless
    ``create``, a server of another project (but for an admin)."""
    if row is None:
        if not create:
            raise exception.ServerNotRegistered(server_id=server_id)
        return
    if row['tenant'] != context.project_id and not context.is_admin:
        raise exception.ServerOwnedByOtherProject(server_id=server_id)


@writer
def server_claim(context: RequestContext, server_id: str, base_url: str | None,
                 create: bool = True,
                 config_transport: str | None = None) -> dict:
    """The server row without its document, locked for the rest of the
    caller's transaction, and registered for the caller's project (with
    ``config_transport``) if it is new (unless ``create`` is false: then
    an unknown server is not registered).

    The lock comes first and serializes the changes of one server (e.g.
    the deployments of a Heat stack created at once), so they neither
    deadlock nor render its document over each other. Two transactions
    registering the same new server: the second fails with
    DBDuplicateEntry once the first commits, and is retried whole by its
    caller. A server belongs to the project that first claimed it;
    anybody else (but an admin) is refused.
    """
    connection = context.session.connection()
    row = connection.execute(_SERVER_LOCK, {'server_id': server_id}).first()
    found = None if row is None else row._asdict()
    server_claimable(context, server_id, found, create)
    if found is None:
        found = new_server_row(context, server_id, base_url,
                               config_transport)
        connection.execute(_INSERT_SERVER, found)
    return found


@writer
def server_claim_many(context: RequestContext, server_ids: list[str],
                      base_url: str | None, create: bool = True,
                      config_transport: str | None = None
                      ) -> dict[str, dict]:
    """``server_claim`` of several servers in two statements, however
    many: {server id: row}. The rows are locked in id order, as every
    claim of several servers must, so two batches cannot deadlock; the
    new ones are registered with one multi-row insert. The first server
    of another project (in id order) is refused."""
    ids = sorted(set(server_ids))
    connection = context.session.connection()
    found = {row.id: row._asdict() for row in connection.execute(
        _SERVERS_LOCK, {'server_ids': ids})}
    for server_id in ids:
        server_claimable(context, server_id, found.get(server_id), create)
    new = [new_server_row(context, server_id, base_url, config_transport)
           for server_id in ids if server_id not in found]
    if new:
        connection.execute(_INSERT_SERVER, new)
        found.update((row['id'], row) for row in new)
    return found


@reader
def servers_get_many(context: RequestContext,
                     server_ids: list[str]) -> dict[str, dict]:
    """{server id: row without its document} of the registered servers
    among ``server_ids``, whichever project owns them (the caller decides
    what that means): one query, no lock."""
    ids = sorted(set(server_ids))
    if not ids:
        return {}
    return {row.id: row._asdict()
            for row in context.session.connection().execute(
                _SERVERS_GET, {'server_ids': ids})}


@reader
def server_get(context: RequestContext, server_id: str) -> dict:
    """A server of the caller's project (any, for an admin);
    ServerNotFound otherwise."""
    row = context.session.get(models.Server, server_id)
    if row is None or (row.tenant != context.project_id
                       and not context.is_admin):
        raise exception.ServerNotFound(server_id=server_id)
    return row.to_dict()


@reader
def server_get_all(context: RequestContext,
                   labels: dict[str, str] | None = None) -> list[dict]:
    """The servers of the caller's project (all, for an admin), oldest
    first; with ``labels``, only those carrying all of them."""
    model = models.Server
    query = sa.select(model).order_by(model.created_at, model.id)
    if not context.is_admin:
        query = query.where(model.tenant == context.project_id)
    if labels:
        query = query.where(model.id.in_(server_labels.matching_servers(
            None if context.is_admin else context.project_id, labels)))
    return [row.to_dict() for row in context.session.scalars(query)]


@reader
def server_owner(context: RequestContext, server_id: str) -> str | None:
    """The project owning ``server_id``, or None if nobody registered it."""
    return context.session.scalar(
        sa.select(models.Server.tenant).where(models.Server.id == server_id))


@writer
def server_delete(context: RequestContext, server_id: str) -> None:
    """Forget a server; refused while any deployment targets it."""
    row = context.session.get(models.Server, server_id)
    if row is None or (row.tenant != context.project_id
                       and not context.is_admin):
        raise exception.ServerNotFound(server_id=server_id)
    in_use = context.session.scalar(
        sa.select(models.SoftwareDeployment.id).where(
            models.SoftwareDeployment.server_id == server_id).limit(1))
    if in_use is not None:
        raise exception.ServerInUse(server_id=server_id)
    context.session.delete(row)
    context.session.connection().execute(_INSERT_CHANGE, {
        'server_id': server_id, 'changed_at': timeutils.utcnow()})


@writer
def server_heat_settings_set(context: RequestContext, server_id: str, *,
                             config_transport: str | None,
                             collect_config_override: str | None,
                             heat_channel: str | None) -> None:
    """Set, in one write, how the server's agent gets its document while
    it moves between Heat and swconfig (``swconfig-manage heat-cutover``):
    the metadata transport, the os-collect-config block the document
    gives instead of swconfig's own, and the channel Heat set up that the
    engine pushes the document to (both sealed, see ``common.sealing``;
    None: swconfig's own). The caller renders the document."""
    context.session.execute(
        sa.update(_SERVER).where(_SERVER.c.id == server_id)
        .values(config_transport=config_transport,
                collect_config_override=collect_config_override,
                heat_channel=heat_channel))


# -- metadata documents ------------------------------------------------------

@reader
def server_document_get(context: RequestContext,
                        server_id: str) -> str | None:
    """The server's pre-rendered metadata document (JSON text), as its
    agent receives it; None when nobody registered the server. The
    owner, an admin, and a stack user project of one of its deployments
    may read it; anybody else is refused."""
    server = models.Server
    row = context.session.execute(
        sa.select(server.tenant, server.document)
        .where(server.id == server_id)).first()
    if row is None:
        return None
    if context.is_admin or row.tenant == context.project_id:
        return row.document
    deployment = models.SoftwareDeployment
    stack_user = context.session.scalar(
        sa.select(deployment.id)
        .where(deployment.server_id == server_id,
               deployment.stack_user_project_id == context.project_id)
        .limit(1))
    if stack_user is None:
        raise exception.ServerOwnedByOtherProject(server_id=server_id)
    return row.document


@reader
def server_deployment_configs(context: RequestContext,
                              server_id: str) -> list[dict]:
    """Every deployment of a server with its config, oldest first: the
    input of the metadata renderer. Core rows, not ORM objects: renders
    run for every change of every server. A deployment has only
    ``RENDER_DEPLOYMENT_COLUMNS``."""
    rows = context.session.connection().execute(
        _SERVER_DEPLOYMENT_CONFIGS, {'server_id': server_id})
    return [queries.split_row(row, deployment='d_', config='c_')
            for row in rows]


@reader
def server_deployment_configs_many(context: RequestContext,
                                   server_ids: list[str]
                                   ) -> dict[str, list[dict]]:
    """``server_deployment_configs`` of several servers in one query:
    {server id: rows, oldest first} (a server without deployments has an
    empty list)."""
    found: dict[str, list[dict]] = {server_id: [] for server_id in server_ids}
    if not found:
        return found
    rows = context.session.connection().execute(
        _SERVERS_DEPLOYMENT_CONFIGS, {'server_ids': sorted(found)})
    for row in rows:
        found[row.d_server_id].append(
            queries.split_row(row, deployment='d_', config='c_'))
    return found


@writer
def server_document_store(context: RequestContext, server_id: str,
                          expected_revision: int, document: str,
                          etag: str, push: bool = False) -> bool:
    """Store a newly rendered document unless someone rendered since, and
    log the change for the API workers' metadata caches; ``push`` marks it
    for an engine to push to the server's Swift object or Zaqar queue."""
    connection = context.session.connection()
    now = timeutils.utcnow()
    changed = connection.execute(_SERVER_DOCUMENT_STORE, {
        'server_id': server_id, 'expected_revision': expected_revision,
        'document': document, 'etag': etag,
        'revision': expected_revision + 1, 'now': now,
        'push': push}).rowcount
    if changed != 1:
        return False
    connection.execute(_INSERT_CHANGE,
                       {'server_id': server_id, 'changed_at': now})
    return True


@writer
def server_documents_store_many(context: RequestContext,
                                documents: list[dict]) -> bool:
    """``server_document_store`` of several servers in two statements,
    however many: each of ``documents`` has ``server_id``,
    ``expected_revision``, ``document``, ``etag`` and ``push``. False if
    any had been rendered since (only where the driver reports the rows
    an executemany changed; the caller holds the servers' locks, so it
    is a safeguard): the caller renders them again."""
    if not documents:
        return True
    connection = context.session.connection()
    now = timeutils.utcnow()
    result = connection.execute(_SERVER_DOCUMENT_STORE, [
        dict(item, revision=item['expected_revision'] + 1, now=now)
        for item in documents])
    connection.execute(_INSERT_CHANGE, [
        {'server_id': item['server_id'], 'changed_at': now}
        for item in documents])
    dialect = context.session.get_bind().dialect
    return not (dialect.supports_sane_multi_rowcount
                and result.rowcount != len(documents))


@reader
def server_push_pending(context: RequestContext, limit: int,
                        after: str = '') -> list[dict]:
    """Servers whose document waits to be pushed, in id order after
    ``after``, with the document."""
    rows = context.session.execute(
        sa.select(_SERVER.c.id, _SERVER.c.tenant, _SERVER.c.config_transport,
                  _SERVER.c.token_revision, _SERVER.c.document,
                  _SERVER.c.etag, _SERVER.c.document_revision,
                  _SERVER.c.heat_channel)
        .where(_SERVER.c.push_pending == sa.true(), _SERVER.c.id > after)
        .order_by(_SERVER.c.id).limit(limit))
    return [row._asdict() for row in rows]


@writer
def server_push_done(context: RequestContext, server_id: str,
                     document_revision: int) -> bool:
    """Clear the push mark unless the document changed since
    ``document_revision`` was read (then it is pushed again)."""
    return context.session.execute(
        sa.update(_SERVER)
        .where(_SERVER.c.id == server_id,
               _SERVER.c.document_revision == document_revision)
        .values(push_pending=False)).rowcount == 1


# -- the agents' hot path: polls, and the metadata caches of API workers ---

def agent_server_document(server_id: str, with_document: bool = True,
                          unless_etag: str | None = None) -> dict | None:
    """The validators of a server's pre-rendered document, and the
    document itself if ``with_document`` (but None when its ETag is
    ``unless_etag``): one primary-key read in one round trip."""
    engine, statements = agent_engine()
    if not with_document:
        return statements[_HEAD].first(engine, {'server_id': server_id})
    if unless_etag is not None:
        return statements[_GET_UNLESS].first(
            engine, {'server_id': server_id, 'etag': unless_etag})
    return statements[_GET].first(engine, {'server_id': server_id})


def agent_server_documents(after: str | None, limit: int) -> list[dict]:
    """Up to ``limit`` servers with their documents, validators and owner
    (as ``agent_server_document`` gives them), in server id order from
    the first id above ``after``: a metadata cache warming up."""
    engine, _statements = agent_engine()
    query = sa.select(_SERVER.c.id, *_VALIDATORS, _SERVER.c.document,
                      _SERVER.c.tenant).order_by(_SERVER.c.id).limit(limit)
    if after is not None:
        query = query.where(_SERVER.c.id > after)
    with engine.connect() as connection:  # once per worker start
        return [dict(row._mapping) for row in connection.execute(query)]


def agent_server_changes(after: int | None, missing: Sequence[int] = (),
                         latest: int = 1000) -> list[tuple[int, str]]:
    """``(id, server_id)`` of the logged server changes with an id above
    ``after`` or in ``missing``, in id order; with ``after`` None, the
    ``latest`` ones (where a metadata cache starts)."""
    engine, statements = agent_engine()
    if after is None:  # once per worker start: not compiled
        with engine.connect() as connection:
            return sorted(tuple(row) for row in connection.execute(
                sa.select(_CHANGE.c.id, _CHANGE.c.server_id)
                .order_by(_CHANGE.c.id.desc()).limit(latest)))
    rows = statements[_CHANGES_AFTER].rows(engine, {'after': after})
    if missing:
        # Rare (a transaction still open or rolled back): not compiled.
        with engine.connect() as connection:
            rows.extend(tuple(row) for row in connection.execute(
                sa.select(_CHANGE.c.id, _CHANGE.c.server_id).where(
                    _CHANGE.c.id.in_(list(missing)))))
        rows.sort()
    return rows


def agent_server_changes_purge(before: Any) -> int:
    """Delete the server changes logged before ``before``; how many."""
    engine, _statements = agent_engine()
    with engine.begin() as connection:
        return connection.execute(_CHANGE.delete().where(
            _CHANGE.c.changed_at < before)).rowcount


#: Servers whose last poll time one UPDATE writes.
POLL_TIMES_CHUNK = 500
_POLLED_IDS = tuple(f'id_{n}' for n in range(POLL_TIMES_CHUNK))
_POLLED_ATS = tuple(f'at_{n}' for n in range(POLL_TIMES_CHUNK))


@functools.cache
def _poll_times_update() -> sa.Update:
    """The UPDATE of ``POLL_TIMES_CHUNK`` servers' poll times, with bound
    parameters, built once: built with each chunk's values, its 500
    comparisons and literals cost about five times the CPU of running
    it (a third of a core for 100,000 servers every 15 s), in the API
    worker, holding the interpreter lock."""
    column = _SERVER.c.last_poll_at
    ids = [sa.bindparam(name) for name in _POLLED_IDS]
    polled = sa.case(*(
        (_SERVER.c.id == server_id, sa.bindparam(name, type_=column.type))
        for server_id, name in zip(ids, _POLLED_ATS, strict=True)))
    return (sa.update(_SERVER)
            .where(_SERVER.c.id.in_(ids),
                   sa.or_(column.is_(None), column < polled))
            .values(last_poll_at=polled))


def server_poll_times_store(times: Mapping[str, Any]) -> None:
    """Record when agents last polled: ``{server_id: naive UTC time}``.

    One UPDATE per ``POLL_TIMES_CHUNK`` servers, each its own transaction
    on the agent path's engine, setting each server's time by a CASE on
    its id, and only where it moves the stored time forward: several API
    workers write, each with the polls it served. Unknown (deleted)
    servers are ignored. A last, shorter chunk repeats its last server
    (harmless in a CASE and an IN), so that every chunk is the one
    statement, built and compiled once.
    """
    engine, _statements = agent_engine()
    statement = _poll_times_update()
    items = iter(sorted(times.items()))  # one lock order for every writer
    while chunk := list(itertools.islice(items, POLL_TIMES_CHUNK)):
        chunk += chunk[-1:] * (POLL_TIMES_CHUNK - len(chunk))
        server_ids, polled_ats = zip(*chunk, strict=True)
        params = dict(zip(_POLLED_IDS, server_ids, strict=True))
        params.update(zip(_POLLED_ATS, polled_ats, strict=True))
        with engine.begin() as connection:
            connection.execute(statement, params)
