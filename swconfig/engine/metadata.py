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

"""Pre-rendering each server's metadata document for its agent.

The document (``{"deployments": [...], "os-collect-config": {...}}``) is
rendered whenever the server's deployments change and stored with an ETag
(and a row in the server change log, in the same transaction), so the
agent's poll is served from the API workers' memory with no RPC. It holds
the deployments that define the server's desired state; a finished
one-off action (e.g. BACKUP) leaves it.
"""

import hashlib
import json
from typing import Any

from oslo_log import log

from swconfig import transports
from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common import representations
from swconfig.common import sealed_document
from swconfig.common import states
from swconfig.common.context import RequestContext
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)

RENDER_ATTEMPTS = 5


def stays_in_document(deployment: dict) -> bool:
    """Desired-state actions always stay; any other action stays until it
    is final (Heat: only COMPLETE and FAILED are; anything else waits).
    A cancelled action leaves, so an agent that has not run it never
    does."""
    if states.is_cancelled(deployment['status'],
                           deployment.get('status_reason')):
        return False
    return (deployment['status'] not in states.FINAL_STATUSES
            or deployment['action'] in states.DESIRED_STATE_ACTIONS)


def stored_collect_config_settings(server: dict) -> dict:
    """The os-collect-config block of the server's metadata transport,
    or a reference to the sealed one the server was handed by
    ``heat-cutover`` (Heat's: it holds a stack user's password, and is
    opened only where the document leaves swconfig, see
    ``common.sealed_document``)."""
    sealed = server.get('collect_config_override')
    if sealed:
        return sealed_document.reference(sealed)
    return own_collect_config_settings(server)


def own_collect_config_settings(server: dict) -> dict:
    """The os-collect-config block of swconfig's own transport for the
    server (what a user is told to boot it with)."""
    return transports.get_metadata(
        server.get('config_transport')).collector_settings(server)


def document_changes(before: dict, after: dict) -> bool:
    """Whether a change of one deployment (``before`` -> ``after``, same
    config) can change its server's document. The document depends on a
    deployment only through ``stays_in_document`` (configs are
    immutable), so a signal that leaves that unchanged needs no render:
    most signals, e.g. a CREATE going COMPLETE."""
    return (before['config_id'] != after['config_id']
            or stays_in_document(before) != stays_in_document(after))


def build_document(server: dict, rows: list[dict]) -> str:
    """The document: the configs of the deployments that stay in it (see
    ``document_changes`` before making it depend on anything else)."""
    configs = [row['config'] for row in rows
               if stays_in_document(row['deployment'])]
    document = {'deployments': representations.metadata(configs),
                'os-collect-config': stored_collect_config_settings(server)}
    return json.dumps(document, separators=(',', ':'), sort_keys=True)


def document_etag(document: str) -> str:
    """A digest of the document's bytes: equal documents get equal ETags,
    whichever engine rendered them, so agents see no false changes."""
    return hashlib.sha256(document.encode('utf-8')).hexdigest()[:32]


def render(server_id: str) -> None:
    """Re-render the server's document; a no-op when nothing changed.

    Optimistic: the write is conditional on the document revision read,
    and a concurrent render makes this one start again on fresh data.
    """
    admin = swconfig_context.get_admin_context()
    for _attempt in range(RENDER_ATTEMPTS):
        try:
            with db_api.reader.using(admin):  # one transaction, two reads
                server = db_api.server_get(admin, server_id)
                rows = db_api.server_deployment_configs(admin, server_id)
        except exception.ServerNotFound:
            return
        if _store_if_changed(admin, server, rows):
            return
    LOG.warning('Gave up rendering metadata of server %s after %d '
                'concurrent changes; the next change renders it',
                server_id, RENDER_ATTEMPTS)


def render_in_transaction(context: RequestContext, server: dict) -> bool:
    """Render inside the caller's writer transaction, from ``server`` as
    the caller read it (``server_claim``): the change and its document
    commit together, with no transaction of their own. False if another
    render stored a document since ``server`` was read; the caller then
    calls ``render`` after committing."""
    rows = db_api.server_deployment_configs(context, server['id'])
    return _store_if_changed(context, server, rows)


def render_many_in_transaction(context: RequestContext,
                               servers: list[dict]) -> list[str]:
    """``render_in_transaction`` of several servers (claimed by the
    caller, e.g. with ``server_claim_many``): one read of their
    deployments and one write of the documents that changed, however
    many. The ids of the servers the caller renders after committing
    (none, unless a render got in between)."""
    rows = db_api.server_deployment_configs_many(
        context, [server['id'] for server in servers])
    changes = [change for server in servers
               for change in [_document_change(server, rows[server['id']])]
               if change is not None]
    if db_api.server_documents_store_many(context, changes):
        return []
    return [change['server_id'] for change in changes]


def _document_change(server: dict, rows: list[dict]) -> dict | None:
    """The document ``rows`` give ``server``, with what storing it takes;
    None if ``server`` holds it already."""
    document = build_document(server, rows)
    etag = document_etag(document)
    if etag == server['etag']:
        return None
    return {'server_id': server['id'],
            'expected_revision': server['document_revision'],
            'document': document, 'etag': etag,
            'push': transports.get_metadata(
                server.get('config_transport')).pushes_document}


def _store_if_changed(context: RequestContext, server: dict,
                      rows: list[dict]) -> bool:
    """Store the document ``rows`` give unless ``server`` holds it already;
    False if another render stored one since ``server`` was read."""
    change = _document_change(server, rows)
    if change is None:
        return True
    stored = db_api.server_document_store(
        context, change['server_id'], change['expected_revision'],
        change['document'], change['etag'], push=change['push'])
    if stored:
        LOG.debug('Rendered metadata of server %s (revision %d)',
                  server['id'], server['document_revision'] + 1)
    return stored


def agent_config(server: dict) -> dict[str, Any]:
    """What a user puts into cloud-init to bootstrap the agent: the
    settings, and the same as an os-collect-config.conf."""
    settings = own_collect_config_settings(server)
    lines = ['[DEFAULT]',
             f'collectors = {",".join(settings["collectors"])}',
             'command = os-refresh-config',
             f'polling_interval = {settings["polling_interval"]}']
    for collector in settings['collectors']:
        lines += ['', f'[{collector}]']
        lines += [f'{key} = {_ini_value(value)}'
                  for key, value in sorted(settings[collector].items())]
    return {'server_id': server['id'], 'os-collect-config': settings,
            'os_collect_config_conf': '\n'.join(lines) + '\n'}


def _ini_value(value: Any) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    return str(value)
