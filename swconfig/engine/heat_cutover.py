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

"""Switching imported servers' agents from Heat to swconfig, and back
(``swconfig-manage heat-cutover``), through the channel each agent
already reads.

An agent that polls Heat's API (``POLL_SERVER_HEAT``, ``POLL_SERVER_CFN``)
re-renders its os-collect-config settings from the ``os-collect-config``
block of its server resource's metadata and re-executes itself when they
change: Heat switches agents between transports so. A cutover writes
swconfig's block (the server's signed URL) there, keeping Heat's block
beside it (``heat_import.SAVED_BLOCK``); the agent's next collection from
Heat switches it, and as its config ids are Heat's (``heat-import``), it
runs nothing again. The block carries no collector section but
swconfig's: os-collect-config exits on a section rendered with empty
values. A revert puts Heat's block back into Heat's metadata, then gives
the server's swconfig document Heat's block (sealed at rest: it holds the
stack user's password), so an agent already polling swconfig goes back
to Heat at its next poll. A later cutover undoes both.

An agent that reads a Swift object (``POLL_TEMP_URL``) or a Zaqar queue
(``ZAQAR_MESSAGE``) that Heat writes keeps reading it: swconfig writes
its document there instead (the transport plugin's ``heat_channel``),
with Heat's os-collect-config block in it, so nothing changes on the
server. A revert stops swconfig's writes and writes Heat's own document
there.

Heat's metadata is written with Heat's own optimistic lock (the resource
row's ``atomic_key``), so a concurrent write by heat-engine is never
lost. Each server is one step; an interrupted run can be run again.
"""

import dataclasses
import json

import sqlalchemy as sa

from swconfig import transports
from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common import sealing
from swconfig.common import states
from swconfig.db import api as db_api
from swconfig.engine import document_push
from swconfig.engine import heat_import
from swconfig.engine import metadata

#: Transports whose agents read their settings from Heat's metadata.
POLLING = ('POLL_SERVER_HEAT', 'POLL_SERVER_CFN')
#: Transports whose agents read what Heat writes to Swift or Zaqar.
PUSHED = ('POLL_TEMP_URL', 'ZAQAR_MESSAGE')
#: Attempts at writing a resource's metadata that heat-engine changed
#: meanwhile.
_WRITE_ATTEMPTS = 5
_RESOURCE = heat_import.RESOURCE_TABLE
_DEPLOYMENT = heat_import.DEPLOYMENT_TABLE
_RESOURCE_DATA = heat_import.RESOURCE_DATA_TABLE


@dataclasses.dataclass
class Outcome:
    """What happened to one server: ``done`` false when it was left as it
    was (``said`` says why)."""

    server_id: str
    transport: str
    done: bool
    said: str


def _resource(connection: sa.Connection, server_id: str):
    return connection.execute(sa.select(_RESOURCE).where(
        _RESOURCE.c.nova_instance == server_id,
        _RESOURCE.c.action != 'DELETE').order_by(_RESOURCE.c.id)).first()


def _write(connection: sa.Connection, server_id: str, change) -> bool:
    """Apply ``change`` (metadata dict -> new dict) to the server
    resource's metadata under Heat's lock; False if there is none."""
    for _attempt in range(_WRITE_ATTEMPTS):
        row = _resource(connection, server_id)
        if row is None:
            return False
        key = _RESOURCE.c.atomic_key
        done = connection.execute(
            sa.update(_RESOURCE).where(
                _RESOURCE.c.id == row.id,
                key.is_(None) if row.atomic_key is None
                else key == row.atomic_key)
            .values(rsrc_metadata=json.dumps(change(
                heat_import.json_value(row.rsrc_metadata) or {})),
                atomic_key=(row.atomic_key or 0) + 1))
        connection.commit()
        if done.rowcount == 1:
            return True
    raise exception.Conflict(
        f'Heat changed the metadata of server {server_id}\'s resource '
        f'{_WRITE_ATTEMPTS} times while it was written; run again')


def _in_progress(connection: sa.Connection, server_id: str) -> list[str]:
    return list(connection.execute(sa.select(_DEPLOYMENT.c.id).where(
        _DEPLOYMENT.c.server_id == server_id,
        _DEPLOYMENT.c.status == states.IN_PROGRESS)).scalars())


def _servers(connection: sa.Connection,
             server_ids: list[str] | None) -> list[str]:
    """The servers named, or every server with deployments in Heat."""
    if server_ids is not None:
        return server_ids
    return sorted(connection.execute(
        sa.select(_DEPLOYMENT.c.server_id).distinct()).scalars())


def _set_heat_settings(server_id: str, transport: str | None = None,
                       block: dict | None = None,
                       channel: dict | None = None) -> None:
    """How the server's agent gets its document (see
    ``db_api.server_heat_settings_set``; None: swconfig's own), then its
    document rendered from them."""
    admin = swconfig_context.get_admin_context()
    db_api.server_heat_settings_set(
        admin, server_id, config_transport=transport,
        collect_config_override=None if block is None
        else sealing.seal(block),
        heat_channel=None if channel is None else sealing.seal(channel))
    metadata.render(server_id)


def _heat_side(connection: sa.Connection,
               server_id: str) -> tuple[int, dict, str] | None:
    """The server resource's id and metadata in Heat and the transport its
    agent reads Heat's document with; None when Heat has no such
    resource."""
    row = _resource(connection, server_id)
    if row is None:
        return None
    md = heat_import.json_value(row.rsrc_metadata) or {}
    return row.id, md, heat_import.transport_of(md)


def _channel(connection: sa.Connection, resource_id: int, md: dict,
             transport: str) -> dict | str:
    """Where Heat writes the document of a POLL_TEMP_URL or ZAQAR_MESSAGE
    agent; what is missing, when Heat has no such place."""
    put_url = connection.execute(
        sa.select(_RESOURCE_DATA.c.value).where(
            _RESOURCE_DATA.c.resource_id == resource_id,
            _RESOURCE_DATA.c.key == 'metadata_put_url')).scalar()
    try:
        return transports.get_metadata(transport).heat_channel(
            md.get('os-collect-config') or {}, put_url)
    except ValueError as exc:
        return str(exc)


def _cut_over(connection, server_id: str, force: bool) -> Outcome:
    found = _heat_side(connection, server_id)
    if found is None:
        return Outcome(server_id, 'unknown', False,
                       'no server resource in Heat')
    resource_id, md, transport = found
    if transport not in POLLING + PUSHED:
        return Outcome(server_id, transport, False,
                       'its os-collect-config block in Heat names no '
                       'collector of heat, cfn, request or zaqar: nothing '
                       'to switch')
    admin = swconfig_context.get_admin_context()
    try:
        server = db_api.server_get(admin, server_id)
    except exception.ServerNotFound:
        return Outcome(server_id, transport, False,
                       'not in swconfig: run heat-import first')
    running = _in_progress(connection, server_id)
    if running and not force:
        return Outcome(server_id, transport, False,
                       f'deployment {", ".join(running)} IN_PROGRESS: run '
                       f'again once it has finished (--force switches '
                       f'now: its signal may then reach Heat only)')
    if transport in PUSHED:
        outcome = _cut_over_pushed(connection, server, resource_id, md,
                                   transport)
    else:
        outcome = _cut_over_polling(connection, server, md, transport)
    if running and outcome.done:
        outcome.said += (f' (forced while {", ".join(running)} was '
                         f'IN_PROGRESS)')
    return outcome


def _cut_over_polling(connection, server: dict, md: dict,
                      transport: str) -> Outcome:
    server_id = server['id']
    # swconfig first: an agent that arrives must stay.
    if server.get('collect_config_override') or server.get('heat_channel'):
        _set_heat_settings(server_id)
        server = db_api.server_get(swconfig_context.get_admin_context(),
                                   server_id)
    block = metadata.own_collect_config_settings(server)
    was_cut_over = heat_import.SAVED_BLOCK in md

    def to_swconfig(current: dict) -> dict:
        saved = current.get(heat_import.SAVED_BLOCK) or current.get(
            'os-collect-config')
        return {**current, 'os-collect-config': block,
                heat_import.SAVED_BLOCK: saved}

    _write(connection, server_id, to_swconfig)
    return Outcome(server_id, transport, True,
                   'already on swconfig; its settings written again'
                   if was_cut_over else 'switched to swconfig: its next '
                   'collection from Heat points it at its signed swconfig '
                   'URL')


def _cut_over_pushed(connection, server: dict, resource_id: int, md: dict,
                     transport: str) -> Outcome:
    """swconfig's document, with Heat's os-collect-config block, into the
    object or queue the agent reads; the engines write each later one."""
    server_id = server['id']
    channel = _channel(connection, resource_id, md, transport)
    if isinstance(channel, str):
        return Outcome(server_id, transport, False, channel)
    was_cut_over = bool(server.get('heat_channel'))
    _set_heat_settings(server_id, transport,
                       md.get('os-collect-config') or {}, channel)
    admin = swconfig_context.get_admin_context()
    where = ('Heat\'s Swift object' if transport == 'POLL_TEMP_URL'
             else 'Heat\'s Zaqar queue')
    server = db_api.server_get(admin, server_id)
    try:
        document_push.push(server)
    except exception.BackendUnavailable as exc:
        return Outcome(server_id, transport, True,
                       f'switched to swconfig, whose engines write its '
                       f'document to {where} once they can: {exc}')
    return Outcome(server_id, transport, True,
                   f'already on swconfig; its document written to {where} '
                   f'again' if was_cut_over else
                   f'switched to swconfig: its document (revision '
                   f'{server["document_revision"]}) written to {where}, '
                   f'where the agent reads it')


def _revert(connection, server_id: str) -> Outcome:
    found = _heat_side(connection, server_id)
    if found is None:
        return Outcome(server_id, 'unknown', False,
                       'no server resource in Heat')
    _resource_id, md, transport = found
    if transport in PUSHED:
        return _revert_pushed(server_id, md, transport)
    saved = md.get(heat_import.SAVED_BLOCK)
    if saved is None:
        return Outcome(server_id, transport, False, 'not cut over')

    def to_heat(current: dict) -> dict:
        restored = dict(current)
        restored['os-collect-config'] = restored.pop(
            heat_import.SAVED_BLOCK, saved)
        return restored

    # Heat first: an agent sent back must not be sent on again.
    _write(connection, server_id, to_heat)
    _set_heat_settings(server_id, block=saved)
    return Outcome(server_id, transport, True,
                   'back on Heat: Heat\'s settings restored, and swconfig '
                   'hands them to its agent at its next poll')


def _revert_pushed(server_id: str, md: dict, transport: str) -> Outcome:
    """swconfig stops writing, then Heat's document goes back where the
    agent reads it; if that write fails, swconfig writes again, so the
    server is never left with neither."""
    admin = swconfig_context.get_admin_context()
    try:
        server = db_api.server_get(admin, server_id)
    except exception.ServerNotFound:
        server = {}
    sealed = server.get('heat_channel')
    if not sealed:
        return Outcome(server_id, transport, False, 'not cut over')
    channel = sealing.unseal(sealed)
    block = sealing.unseal(server['collect_config_override'])
    _set_heat_settings(server_id)
    try:
        transports.get_metadata(transport).push_to_heat_channel(
            channel, json.dumps(md))
    except exception.BackendUnavailable as exc:
        _set_heat_settings(server_id, transport, block, channel)
        return Outcome(server_id, transport, False,
                       f'still on swconfig: Heat\'s document could not be '
                       f'written back ({exc}); run again')
    return Outcome(server_id, transport, True,
                   'back on Heat: Heat\'s document written back where the '
                   'agent reads it, and swconfig writes there no more')


def run(heat_url: str, server_ids: list[str] | None, revert: bool = False,
        force: bool = False) -> list[Outcome]:
    """Cut over (or revert) ``server_ids`` (every server with deployments
    in Heat when None), one after another."""
    engine = sa.create_engine(heat_url, poolclass=sa.pool.NullPool)
    outcomes = []
    try:
        with engine.connect() as connection:
            for server_id in _servers(connection, server_ids):
                if revert:
                    outcomes.append(_revert(connection, server_id))
                else:
                    outcomes.append(_cut_over(connection, server_id, force))
                connection.commit()
    finally:
        engine.dispose()
    return outcomes
