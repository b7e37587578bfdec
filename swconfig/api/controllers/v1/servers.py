"""/v1/{tenant_id}/servers: which servers belong to the project, and the
agent bootstrap settings of each."""

import pecan

from swconfig.api import body
from swconfig.api import views
from swconfig.api.controllers.v1 import access
from swconfig.api.schemas.v1 import servers as schemas
from swconfig.db import api as db_api


@pecan.expose('json')
def index() -> dict:
    context = access.authorize('servers:index')
    return {'servers': [views.server(row)
                        for row in db_api.server_get_all(context)]}


@pecan.expose('json')
def show(server_id: str) -> dict:
    context = access.authorize('servers:show')
    return {'server': views.server(db_api.server_get(context, server_id))}


@pecan.expose('json')
def register() -> dict:
    context = access.authorize('servers:create')
    document = body.load(pecan.request, schemas.CREATE)
    row = pecan.request.engine.register_server(context,
                                               document['server_id'])
    return {'server': views.server(row)}


@pecan.expose(content_type='application/json')
def unregister(server_id: str) -> None:
    context = access.authorize('servers:delete')
    pecan.request.engine.unregister_server(context, server_id)
    pecan.response.status = 204


@pecan.expose('json')
def agent_config(server_id: str) -> dict:
    """The os-collect-config settings and a ready os-collect-config.conf
    for cloud-init user data. The first call claims the server for the
    caller's project (its signed URL is a credential)."""
    context = access.authorize('servers:agent_config')
    body.validate(schemas.SERVER_ID, server_id)
    return pecan.request.engine.get_agent_config(context, server_id)
