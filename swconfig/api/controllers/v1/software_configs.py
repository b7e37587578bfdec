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

"""/v1/{tenant_id}/software_configs: immutable configs (no PUT)."""

import pecan

from swconfig.api import access
from swconfig.api import request_body
from swconfig.api import views
from swconfig.api.controllers.v1 import params
from swconfig.api.openapi import spec
from swconfig.api.schemas.v1 import software_configs as schemas
from swconfig.common import input_check as input_check_rules
from swconfig.db import api as db_api

TAG = 'software_configs'
_CREATED = '$response.body#/software_config/id'
_TENANT = '$request.path.tenant_id'
#: Links let stateful testers (and readers) chain operations: a created
#: config can be shown, deleted, and deployed.
_CREATED_LINKS = {
    'ShowConfig': {'operationId': 'showSoftwareConfig', 'parameters': {
        'tenant_id': _TENANT, 'config_id': _CREATED}},
    'DeleteConfig': {'operationId': 'deleteSoftwareConfig', 'parameters': {
        'tenant_id': _TENANT, 'config_id': _CREATED}},
    'DeployConfig': {'operationId': 'createSoftwareDeployment',
                     'parameters': {'tenant_id': _TENANT},
                     'requestBody': {'config_id': _CREATED}},
}


@pecan.expose('json')
@spec.operation(
    'listSoftwareConfigs', 'List configs, newest first.', tag=TAG,
    responses={**spec.ok('SoftwareConfigList', 'Config summaries.'),
               **spec.errors(400, 403)},
    parameters=(
        spec.query('limit', spec.NON_NEGATIVE_INT,
                   'At most this many configs.'),
        spec.query('marker', {'type': 'string'},
                   'Continue after this config id (ignored when unknown).'),
        spec.query('global_tenant', spec.BOOLEAN,
                   'All projects (policy software_configs:global_index).'),
        spec.query('derived', spec.BOOLEAN,
                   'true: only the configs the service derived for '
                   'deployments; false: all but those; absent: all.'),
    ))
def index() -> dict:
    all_projects = params.boolean('global_tenant', params.get('global_tenant'))
    derived = params.optional_boolean('derived', params.get('derived'))
    context = pecan.request.context
    if all_projects:
        access.enforce('software_configs:global_index', context,
                       pecan.request.tenant_id)
    limit = params.non_negative_int('limit', params.get('limit'))
    rows = db_api.software_config_get_all(
        context, limit=limit, marker=params.get('marker') or None,
        all_projects=all_projects, derived=derived)
    with_project = context.is_admin or all_projects
    return {'software_configs': [views.config_summary(row, with_project)
                                 for row in rows]}


@pecan.expose('json')
@spec.operation('showSoftwareConfig', 'Show a config.', tag=TAG,
                responses={**spec.ok('SoftwareConfigShow', 'The config.'),
                           **spec.errors(400, 403, 404)})
def show(config_id: str) -> dict:
    context = pecan.request.context
    row = db_api.software_config_get(context, config_id)
    return {'software_config': views.config(row)}


@pecan.expose('json')
@spec.operation('createSoftwareConfig', 'Create an immutable config.',
                tag=TAG, body=spec.Body('SoftwareConfigCreate',
                                        schemas.CREATE),
                responses={**spec.ok('SoftwareConfigShow',
                                     'The created config.',
                                     links=_CREATED_LINKS),
                           **spec.errors(400, 403)})
def create() -> dict:
    context = pecan.request.context
    document = request_body.load(pecan.request, schemas.CREATE)
    row = pecan.request.engine.create_software_config(
        context, name=document.get('name'), group=document.get('group'),
        config=document.get('config'), inputs=document.get('inputs'),
        outputs=document.get('outputs'), options=document.get('options'))
    return {'software_config': views.config(row)}


@pecan.expose(content_type='application/json')
@spec.operation('deleteSoftwareConfig',
                'Delete a config no deployment references.', tag=TAG,
                responses={**spec.NO_CONTENT,
                           **spec.errors(400, 403, 404, 409)})
def delete(config_id: str) -> None:
    context = pecan.request.context
    pecan.request.engine.delete_software_config(context, config_id)
    pecan.response.status = 204


@pecan.expose('json')
@spec.operation('checkSoftwareConfigInputs',
                'Which of the input values given the config does not take.',
                tag=TAG, body=spec.Body('InputCheck', schemas.INPUT_CHECK),
                responses={**spec.ok('InputCheckResult', 'The check.'),
                           **spec.errors(400, 403, 404)})
def input_check(config_id: str) -> dict:
    """Heat passes an undeclared input on as an extra one: a client asks
    here before it creates a deployment, to warn of a typo or refuse it."""
    context = pecan.request.context
    document = request_body.load(pecan.request, schemas.INPUT_CHECK)
    config = views.config(db_api.software_config_get(context, config_id))
    return {'input_check': input_check_rules.check(
        config, document['input_values'], document.get('input_key'))}
