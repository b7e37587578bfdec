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

"""/v1/{tenant_id}/servers: which servers belong to the project, their
labels, and the agent bootstrap settings of each."""

import re

import pecan

from swconfig.api import request_body
from swconfig.api import views
from swconfig.api.openapi import spec
from swconfig.api.schemas.v1 import servers as schemas
from swconfig.common import exception
from swconfig.db import api as db_api

TAG = 'servers'
LABEL_FILTER = 'label'


def label_filter(texts: list[str]) -> dict[str, str] | None:
    """``?label=KEY=VALUE`` (repeatable; all must match) as a selector;
    None when two give one key different values (no server matches);
    400 for one that is not a valid label."""
    selector: dict[str, str] = {}
    contradictory = False
    for text in texts:
        key, equals, value = text.partition('=')
        problem = None
        if not equals:
            problem = 'it is not KEY=VALUE'
        elif not re.fullmatch(schemas.LABEL_KEY['pattern'], key):
            problem = f'{key!r} is not {schemas.LABEL_KEY["description"]}'
        elif not re.fullmatch(schemas.LABEL_VALUE['pattern'], value):
            problem = (f'{value!r} is not '
                       f'{schemas.LABEL_VALUE["description"]}')
        if problem:
            raise exception.InvalidParameterValue(
                reason=f'Invalid value {text!r} for {LABEL_FILTER!r}: '
                       f'{problem}.')
        contradictory |= selector.setdefault(key, value) != value
    return None if contradictory else selector


@pecan.expose('json')
@spec.operation(
    'listServers', 'Servers registered to the project.', tag=TAG,
    responses={**spec.ok('ServerList', 'Servers.'),
               **spec.errors(400, 403)},
    parameters=(
        spec.query(LABEL_FILTER, {'type': 'array',
                                  'items': schemas.LABEL_TERM},
                   'KEY=VALUE: only the servers with this label; '
                   'repeat it for servers with all of them (one key with '
                   'two values: none).'),
    ))
def index() -> dict:
    context = pecan.request.context
    selector = label_filter(pecan.request.GET.getall(LABEL_FILTER))
    if selector is None:
        return {'servers': []}
    with db_api.reader.using(context):  # the servers and their labels
        rows = db_api.server_get_all(context, labels=selector)
        labels = db_api.server_labels_get(context)
    return {'servers': [views.server(row, labels.get(row['id']))
                        for row in rows]}


@pecan.expose('json')
@spec.operation('showServer', 'Show a registered server.', tag=TAG,
                responses={**spec.ok('ServerShow', 'The server.'),
                           **spec.errors(400, 403, 404)})
def show(server_id: str) -> dict:
    context = pecan.request.context
    with db_api.reader.using(context):
        row = db_api.server_get(context, server_id)
        labels = db_api.server_labels_get(context, [server_id])
    return {'server': views.server(row, labels.get(server_id))}


@pecan.expose('json')
@spec.operation('registerServer', 'Register (claim) a server.', tag=TAG,
                body=spec.Body('ServerRegister', schemas.CREATE),
                responses={**spec.ok('ServerShow', 'The server.'),
                           **spec.errors(400, 403)})
def register() -> dict:
    context = pecan.request.context
    document = request_body.load(pecan.request, schemas.CREATE)
    server_id = document['server_id']
    row = pecan.request.engine.register_server(context, server_id)
    labels = db_api.server_labels_get(context, [server_id])
    return {'server': views.server(row, labels.get(server_id))}


@pecan.expose('json')
@spec.operation('updateServer',
                "Set a server's labels; registers a new server.", tag=TAG,
                body=spec.Body('ServerUpdate', schemas.UPDATE),
                responses={**spec.ok('ServerShow', 'The server.'),
                           **spec.errors(400, 403)})
def update(server_id: str) -> dict:
    context = pecan.request.context
    request_body.validate(schemas.SERVER_ID, server_id, 'server_id')
    document = request_body.load(pecan.request, schemas.UPDATE)
    row = pecan.request.engine.set_server_labels(context, server_id,
                                                 document['labels'])
    return {'server': views.server(row, row['labels'])}


@pecan.expose(content_type='application/json')
@spec.operation('unregisterServer',
                'Unregister a server without deployments.', tag=TAG,
                responses={**spec.NO_CONTENT,
                           **spec.errors(400, 403, 404, 409)})
def unregister(server_id: str) -> None:
    context = pecan.request.context
    pecan.request.engine.unregister_server(context, server_id)
    pecan.response.status = 204


@pecan.expose('json')
@spec.operation('showAgentConfig',
                'Agent bootstrap settings; claims a new server.', tag=TAG,
                responses={**spec.ok('AgentConfig', 'The settings.'),
                           **spec.errors(400, 403)})
def agent_config(server_id: str) -> dict:
    """The os-collect-config settings and a ready os-collect-config.conf
    for cloud-init user data. The first call claims the server for the
    caller's project (its signed URL is a credential)."""
    context = pecan.request.context
    request_body.validate(schemas.SERVER_ID, server_id, 'server_id')
    return pecan.request.engine.get_agent_config(context, server_id)
