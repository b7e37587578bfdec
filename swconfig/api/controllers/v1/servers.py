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

"""/v1/{tenant_id}/servers: which servers belong to the project, and the
agent bootstrap settings of each."""

import pecan

from swconfig.api import body
from swconfig.api import views
from swconfig.api.controllers.v1 import access
from swconfig.api.openapi import spec
from swconfig.api.schemas.v1 import servers as schemas
from swconfig.db import api as db_api

TAG = 'servers'


@pecan.expose('json')
@spec.operation('listServers', 'Servers registered to the project.',
                tag=TAG, responses={**spec.ok('ServerList', 'Servers.'),
                                    **spec.errors(400, 403)})
def index() -> dict:
    context = access.authorize('servers:index')
    return {'servers': [views.server(row)
                        for row in db_api.server_get_all(context)]}


@pecan.expose('json')
@spec.operation('showServer', 'Show a registered server.', tag=TAG,
                responses={**spec.ok('ServerShow', 'The server.'),
                           **spec.errors(400, 403, 404)})
def show(server_id: str) -> dict:
    context = access.authorize('servers:show')
    return {'server': views.server(db_api.server_get(context, server_id))}


@pecan.expose('json')
@spec.operation('registerServer', 'Register (claim) a server.', tag=TAG,
                body=spec.Body('ServerRegister', schemas.CREATE),
                responses={**spec.ok('ServerShow', 'The server.'),
                           **spec.errors(400, 403)})
def register() -> dict:
    context = access.authorize('servers:create')
    document = body.load(pecan.request, schemas.CREATE)
    row = pecan.request.engine.register_server(context,
                                               document['server_id'])
    return {'server': views.server(row)}


@pecan.expose(content_type='application/json')
@spec.operation('unregisterServer',
                'Unregister a server without deployments.', tag=TAG,
                responses={**spec.NO_CONTENT,
                           **spec.errors(400, 403, 404, 409)})
def unregister(server_id: str) -> None:
    context = access.authorize('servers:delete')
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
    context = access.authorize('servers:agent_config')
    body.validate(schemas.SERVER_ID, server_id)
    return pecan.request.engine.get_agent_config(context, server_id)
