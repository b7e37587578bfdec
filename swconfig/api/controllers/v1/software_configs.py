"""/v1/{tenant_id}/software_configs: immutable configs (no PUT)."""

import pecan

from swconfig.api import body
from swconfig.api import views
from swconfig.api.controllers.v1 import access
from swconfig.api.controllers.v1 import params
from swconfig.api.schemas.v1 import software_configs as schemas
from swconfig.db import api as db_api


@pecan.expose('json')
def index() -> dict:
    all_projects = params.boolean('global_tenant', params.get('global_tenant'))
    context = access.authorize('software_configs:index')
    if all_projects:
        access.authorize('software_configs:global_index')
    limit = params.non_negative_int('limit', params.get('limit'))
    rows = db_api.software_config_get_all(
        context, limit=limit, marker=params.get('marker') or None,
        all_projects=all_projects)
    with_project = context.is_admin or all_projects
    return {'software_configs': [views.config_summary(row, with_project)
                                 for row in rows]}


@pecan.expose('json')
def show(config_id: str) -> dict:
    context = access.authorize('software_configs:show')
    row = db_api.software_config_get(context, config_id)
    return {'software_config': views.config(row)}


@pecan.expose('json')
def create() -> dict:
    context = access.authorize('software_configs:create')
    document = body.load(pecan.request, schemas.CREATE)
    row = pecan.request.engine.create_software_config(
        context, name=document.get('name'), group=document.get('group'),
        config=document.get('config'), inputs=document.get('inputs'),
        outputs=document.get('outputs'), options=document.get('options'))
    return {'software_config': views.config(row)}


@pecan.expose(content_type='application/json')
def delete(config_id: str) -> None:
    context = access.authorize('software_configs:delete')
    pecan.request.engine.delete_software_config(context, config_id)
    pecan.response.status = 204
