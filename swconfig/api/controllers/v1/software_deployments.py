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

"""/v1/{tenant_id}/software_deployments, its metadata, events and signal."""

import json

import pecan

from swconfig import transports
from swconfig.api import access
from swconfig.api import deployment_watch
from swconfig.api import request_body
from swconfig.api import views
from swconfig.api.controllers.v1 import params
from swconfig.api.openapi import spec
from swconfig.api.schemas.v1 import software_deployments as schemas
from swconfig.common import deployment_request
from swconfig.common import states
from swconfig.common.context import RequestContext
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import rpcapi
from swconfig.transports import base as transports_base


class EngineAppliedSink(transports_base.SignalSink):
    """Signals a transport fetches while a user shows a deployment: stored
    here, applied by an engine before the GET answers (as Heat's GET)."""

    def __init__(self, context: RequestContext,
                 engine: rpcapi.EngineAPI) -> None:
        super().__init__(context)
        self.engine = engine

    def apply(self, inbox_id: int) -> None:
        self.engine.apply_signal(self.context, inbox_id)


TAG = 'software_deployments'
_SHOW = 'SoftwareDeploymentShow'
_CREATED = '$response.body#/software_deployment/'
_TENANT = '$request.path.tenant_id'
#: Links let stateful testers (and readers) chain operations from a
#: created deployment.
_CREATED_LINKS = {
    **{name: {'operationId': operation_id, 'parameters': {
        'tenant_id': _TENANT, 'deployment_id': _CREATED + 'id'}}
       for name, operation_id in (
           ('ShowDeployment', 'showSoftwareDeployment'),
           ('UpdateDeployment', 'updateSoftwareDeployment'),
           ('DeleteDeployment', 'deleteSoftwareDeployment'),
           ('ListEvents', 'listSoftwareDeploymentEvents'),
           ('Signal', 'signalSoftwareDeployment'))},
    'ServerMetadata': {'operationId': 'showServerMetadata', 'parameters': {
        'tenant_id': _TENANT, 'server_id': _CREATED + 'server_id'}},
    'DeleteDeployedConfig': {
        'operationId': 'deleteSoftwareConfig', 'parameters': {
            'tenant_id': _TENANT, 'config_id': _CREATED + 'config_id'}},
}
_WAIT = spec.query(
    'wait', spec.NON_NEGATIVE_INT,
    'Long poll: when the deployment is IN_PROGRESS, answer as soon as it '
    'changes (status, progress reason, outputs) or after this many '
    'seconds (at most 60), whichever comes first. A finished deployment '
    'is answered at once.')


@pecan.expose('json')
@spec.operation('listSoftwareDeployments',
                'List deployments, oldest first.', tag=TAG,
                responses={**spec.ok('SoftwareDeploymentList',
                                     'Deployments.'),
                           **spec.errors(400, 403)},
                parameters=(spec.query('server_id', {'type': 'string'},
                                       'Only this server\'s.'),))
def index() -> dict:
    context = pecan.request.context
    server_id = params.get('server_id') or None
    rows = db_api.software_deployment_get_all(context, server_id=server_id)
    if server_id and not rows:
        access.check_server_not_foreign(context, server_id)
    return {'software_deployments': deployment_views(context, rows)}


def deployment_views(context: RequestContext, rows: list[dict]
                     ) -> list[dict]:
    """The views of ``rows``, each with the name of its config (one
    query for all of them)."""
    names = db_api.software_config_names(
        context, [row['config_id'] for row in rows])
    return [views.deployment(row, names.get(row['config_id']))
            for row in rows]


def deployment_view(context: RequestContext, row: dict) -> dict:
    return deployment_views(context, [row])[0]


@pecan.expose('json')
@spec.operation('showSoftwareDeployment', 'Show a deployment.', tag=TAG,
                responses={**spec.ok(_SHOW, 'The deployment.'),
                           **spec.errors(400, 403, 404)},
                parameters=(_WAIT,))
def show(deployment_id: str) -> dict:
    """With ``?wait=N`` and the deployment IN_PROGRESS: answer when it
    changes (status, progress, outputs) or after N seconds (at most
    ``deployment_watch.MAX_WAIT``), whichever comes first."""
    context = pecan.request.context
    wait = params.non_negative_int('wait', params.get('wait'))
    row = db_api.software_deployment_get(context, deployment_id)
    if transports.poll_on_show(
            context, row, pecan.request.headers,
            EngineAppliedSink(context, pecan.request.engine)):
        # As Heat: the GET answers with the signal applied.
        row = db_api.software_deployment_get(context, deployment_id)
    if wait and row['status'] == states.IN_PROGRESS:
        changed = deployment_watch.WATCH.wait(
            deployment_id, row['version'],
            min(wait, deployment_watch.MAX_WAIT))
        if changed:
            row = db_api.software_deployment_get(context, deployment_id)
    return {'software_deployment': deployment_view(context, row)}


@pecan.expose('json')
@spec.operation('createSoftwareDeployment',
                'Deploy a config to a server; with a list body, create '
                'several deployments at once, all or none.',
                tag=TAG, body=(spec.Body('SoftwareDeploymentCreate',
                                         schemas.CREATE),
                               spec.Body('SoftwareDeploymentCreateList',
                                         schemas.CREATE_LIST)),
                responses={**spec.ok((_SHOW, 'SoftwareDeploymentList'),
                                     'The created deployment; for a list '
                                     'body, the created deployments in '
                                     'the order of the list.',
                                     links=_CREATED_LINKS),
                           **spec.errors(400, 403, 404, 409, 422)},
                parameters=(spec.IDEMPOTENCY_KEY,))
def create() -> dict:
    """One deployment; or, for a body that is a list, one per item (409
    while an engine is older than RPC API 1.9)."""
    context = pecan.request.context
    if request_body.is_list(pecan.request):
        documents = request_body.load_list(pecan.request, schemas.CREATE_LIST,
                                   schemas.CREATE,
                                   CONF.api.max_batch_deployments)
        rows = pecan.request.engine.create_software_deployments(
            context, [deployment_request.DeploymentRequest.from_dict(item)
                      for item in documents], params.idempotency_key())
        return {'software_deployments': deployment_views(context, rows)}
    document = request_body.load(pecan.request, schemas.CREATE)
    request = deployment_request.DeploymentRequest.from_dict(document)
    row = pecan.request.engine.create_software_deployment(
        context, request, params.idempotency_key())
    return {'software_deployment': deployment_view(context, row)}


@pecan.expose('json')
@spec.operation('updateSoftwareDeployment',
                'Update a deployment; null or absent fields are left alone.',
                tag=TAG, body=spec.Body('SoftwareDeploymentUpdate',
                                        schemas.UPDATE),
                responses={**spec.ok(_SHOW, 'The deployment.'),
                           **spec.errors(400, 403, 404, 409)})
def update(deployment_id: str) -> dict:
    context = pecan.request.context
    document = request_body.load(pecan.request, schemas.UPDATE)
    values = {key: document.get(key) for key in schemas.UPDATE['properties']}
    row = pecan.request.engine.update_software_deployment(
        context, deployment_id, values)
    return {'software_deployment': deployment_view(context, row)}


@pecan.expose(content_type='application/json')
@spec.operation(
    'deleteSoftwareDeployment', 'Delete a deployment.', tag=TAG,
    responses={**spec.NO_CONTENT,
               **spec.ok(_SHOW, 'The component has a DELETE entry: it runs '
                         'first; the deployment (action DELETE, '
                         'IN_PROGRESS) is removed when the action finishes '
                         'or times out.', status=202),
               **spec.errors(400, 403, 404, 409)})
def delete(deployment_id: str) -> str | None:
    """204 once deleted. A component with a DELETE entry runs it first:
    202 with the deployment IN_PROGRESS, removed when the action
    finishes (Heat's REST delete is always 204)."""
    context = pecan.request.context
    row = pecan.request.engine.delete_software_deployment(context,
                                                          deployment_id)
    return deployment_or_nothing(context, row, 202)


def deployment_or_nothing(context: RequestContext, row: dict | None,
                          status: int) -> str | None:
    """``row`` as the JSON body with ``status``, or 204 and no body at
    all when the deployment is gone (``pecan.expose('json')`` would
    write ``null``)."""
    if row is None:
        pecan.response.status = 204
        return None
    pecan.response.status = status
    return json.dumps({'software_deployment': deployment_view(context,
                                                              row)})


@pecan.expose('json')
@spec.operation('signalSoftwareDeployment',
                'Signal the current action, as its agent would.', tag=TAG,
                # Read without validation (any JSON object is accepted,
                # which is all the schema says); documented all the same.
                body=spec.Body('SoftwareDeploymentSignal', schemas.SIGNAL),
                responses={**spec.ok('SignalAccepted',
                                     'Stored; applied asynchronously.'),
                           **spec.errors(400, 403, 404)})
def signal(deployment_id: str) -> dict:
    """An API user signals the current action of a deployment, with the
    same semantics as the agent's signed URL."""
    context = pecan.request.context
    payload = request_body.read_json(pecan.request)
    states.drop_forged_stand_in(payload)
    deployment = db_api.software_deployment_get(context, deployment_id)
    inbox_id = db_api.signal_inbox_add(context, deployment_id,
                                       deployment['action_revision'],
                                       payload)
    pecan.request.engine.process_signal(context, inbox_id)
    return {'signal': inbox_id}


@pecan.expose('json')
@spec.operation('listSoftwareDeploymentEvents',
                'Status changes and signals of a deployment.', tag=TAG,
                responses={**spec.ok('DeploymentEventList', 'Events.'),
                           **spec.errors(400, 403, 404)})
def events(deployment_id: str) -> dict:
    context = pecan.request.context
    rows = db_api.software_deployment_event_get_all(context, deployment_id)
    return {'events': [views.event(row) for row in rows]}
