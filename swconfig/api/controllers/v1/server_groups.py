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

"""/v1/{tenant_id}/server_groups: named sets of the project's servers,
by explicit members and/or a label selector; the targets of rollouts."""

import pecan

from swconfig.api import request_body
from swconfig.api import views
from swconfig.api.controllers.v1 import params
from swconfig.api.openapi import spec
from swconfig.api.schemas.v1 import server_groups as schemas
from swconfig.db import api as db_api

TAG = 'server_groups'
_CREATED = '$response.body#/server_group/id'
_TENANT = '$request.path.tenant_id'
#: Links let stateful testers (and readers) chain operations.
_CREATED_LINKS = {
    'ShowGroup': {'operationId': 'showServerGroup', 'parameters': {
        'tenant_id': _TENANT, 'group_id': _CREATED}},
    'UpdateGroup': {'operationId': 'updateServerGroup', 'parameters': {
        'tenant_id': _TENANT, 'group_id': _CREATED}},
    'DeleteGroup': {'operationId': 'deleteServerGroup', 'parameters': {
        'tenant_id': _TENANT, 'group_id': _CREATED}},
}


@pecan.expose('json')
@spec.operation(
    'listServerGroups', "The project's server groups, by name.", tag=TAG,
    responses={**spec.ok('ServerGroupList', 'Groups, without members.'),
               **spec.errors(400, 403)},
    parameters=(
        spec.query('limit', spec.NON_NEGATIVE_INT,
                   'At most this many groups.'),
        spec.query('marker', {'type': 'string'},
                   'Continue after this group id (ignored when unknown).'),
    ))
def index() -> dict:
    context = pecan.request.context
    limit = params.non_negative_int('limit', params.get('limit'))
    rows = db_api.server_group_get_all(context, limit=limit,
                                       marker=params.get('marker') or None)
    return {'server_groups': [views.server_group_summary(row)
                              for row in rows]}


@pecan.expose('json')
@spec.operation('showServerGroup',
                'Show a group and the servers it holds now.', tag=TAG,
                responses={**spec.ok('ServerGroupShow', 'The group.'),
                           **spec.errors(400, 403, 404)})
def show(group_id: str) -> dict:
    context = pecan.request.context
    with db_api.reader.using(context):  # the group and its members agree
        row = db_api.server_group_get(context, group_id)
        members = db_api.server_group_resolve(context, group_id)
    return {'server_group': views.server_group(row, members)}


@pecan.expose('json')
@spec.operation('createServerGroup', 'Create a server group.', tag=TAG,
                body=spec.Body('ServerGroupCreate', schemas.CREATE),
                responses={**spec.ok('ServerGroupShow', 'The new group.',
                                     links=_CREATED_LINKS),
                           **spec.errors(400, 403, 409)})
def create() -> dict:
    context = pecan.request.context
    document = request_body.load(pecan.request, schemas.CREATE)
    row = pecan.request.engine.create_server_group(
        context, document['name'], document.get('servers') or [],
        document.get('selector'))
    return {'server_group': views.server_group(row, row['members'])}


@pecan.expose('json')
@spec.operation('updateServerGroup',
                "Change a group's name, servers or selector.", tag=TAG,
                body=spec.Body('ServerGroupUpdate', schemas.UPDATE),
                responses={**spec.ok('ServerGroupShow', 'The group.'),
                           **spec.errors(400, 403, 404, 409)})
def update(group_id: str) -> dict:
    context = pecan.request.context
    document = request_body.load(pecan.request, schemas.UPDATE)
    row = pecan.request.engine.update_server_group(context, group_id,
                                                   document)
    return {'server_group': views.server_group(row, row['members'])}


@pecan.expose(content_type='application/json')
@spec.operation('deleteServerGroup', 'Delete a server group.', tag=TAG,
                responses={**spec.NO_CONTENT,
                           **spec.errors(400, 403, 404)})
def delete(group_id: str) -> None:
    context = pecan.request.context
    pecan.request.engine.delete_server_group(context, group_id)
    pecan.response.status = 204
