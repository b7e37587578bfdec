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

"""Actions on a deployment already on a server: run a lifecycle action,
trigger a one-off action, cancel, read one output.

``/v1/{tenant_id}/software_deployments/{id}/actions``, ``/trigger``,
``/cancel`` and ``/outputs/{name}`` (swconfig's additions; Heat has none
of them). The engine does the work (``swconfig.engine.actions``).
"""

import pecan

from swconfig.api import request_body
from swconfig.api.controllers.v1 import params
from swconfig.api.controllers.v1 import software_deployments as deployments
from swconfig.api.openapi import spec
from swconfig.api.schemas.v1 import software_deployments as schemas
from swconfig.common import exception
from swconfig.db import api as db_api

TAG = deployments.TAG
_SHOW = 'SoftwareDeploymentShow'


@pecan.expose(content_type='application/json')
@spec.operation(
    'runSoftwareDeploymentAction',
    'Run a lifecycle or custom action of a server-side deployment (a '
    'component runs the entry for it).', tag=TAG,
    body=spec.Body('SoftwareDeploymentAction', schemas.ACTION_RUN),
    responses={**spec.ok(_SHOW, 'The deployment, its action IN_PROGRESS '
                                '(COMPLETE when nothing runs it).'),
               **spec.NO_CONTENT, **spec.errors(400, 403, 404, 409)})
def run_action(deployment_id: str) -> str | None:
    """The deployment, its action IN_PROGRESS (or already COMPLETE when
    nothing runs it); for DELETE, 204 when the deployment is gone at
    once."""
    context = pecan.request.context
    document = request_body.load(pecan.request, schemas.ACTION_RUN)
    row = pecan.request.engine.run_deployment_action(
        context, deployment_id, document['action'])
    return deployments.deployment_or_nothing(context, row, 200)


@pecan.expose('json')
@spec.operation(
    'triggerSoftwareDeployment',
    'Run one action as a new deployment on the same server, from the same '
    'source config.', tag=TAG,
    body=spec.Body('SoftwareDeploymentTrigger', schemas.TRIGGER),
    responses={**spec.ok(_SHOW, 'The new trigger deployment.', status=201),
               **spec.ok(_SHOW, 'The trigger deployment an earlier request '
                                'with this Idempotency-Key made; nothing '
                                'runs again.'),
               **spec.errors(400, 403, 404, 409, 422)},
    parameters=(spec.IDEMPOTENCY_KEY,))
def trigger(deployment_id: str) -> dict:
    """201 with the new trigger deployment; 200 with the same one when
    the ``Idempotency-Key`` was used for this very request before; 409
    while the same action still runs, unless ``allow_concurrent``."""
    context = pecan.request.context
    document = request_body.load(pecan.request, schemas.TRIGGER)
    # allow_concurrent decides whether to run, not what runs: apart from
    # the request (whose digest an Idempotency-Key is checked against).
    request = {key: document.get(key)
               for key in schemas.TRIGGER['properties']
               if key != 'allow_concurrent'}
    result = pecan.request.engine.trigger_deployment(
        context, deployment_id, request, params.idempotency_key(),
        allow_concurrent=bool(document.get('allow_concurrent')))
    pecan.response.status = 201 if result['created'] else 200
    return {'software_deployment': deployments.deployment_view(
        context, result['software_deployment'])}


@pecan.expose('json')
@spec.operation(
    'cancelSoftwareDeployment',
    'Cancel the action in progress: FAILED "Deployment cancelled.", out of '
    'the server\'s document at once.', tag=TAG,
    responses={**spec.ok(_SHOW, 'The cancelled deployment.'),
               **spec.errors(400, 403, 404, 409)})
def cancel(deployment_id: str) -> dict:
    """The deployment, FAILED ``Deployment cancelled.``; 409 when it is
    not IN_PROGRESS."""
    context = pecan.request.context
    row = pecan.request.engine.cancel_deployment(context, deployment_id)
    return {'software_deployment': deployments.deployment_view(context,
                                                               row)}


@pecan.expose('json')
@spec.operation('showSoftwareDeploymentOutput',
                'One output value of a deployment.', tag=TAG,
                responses={**spec.ok('OutputShow', 'The output.'),
                           **spec.errors(400, 403, 404)})
def output(deployment_id: str, output_name: str) -> dict:
    """``{"output": {"name": ..., "value": ...}}``: one value of
    ``output_values``; 404 when the deployment has none of that name
    (yet)."""
    context = pecan.request.context
    row = db_api.software_deployment_get(context, deployment_id)
    values = row['output_values'] or {}
    if output_name not in values:
        raise exception.OutputNotFound(deployment_id=deployment_id,
                                       name=output_name)
    return {'output': {'name': output_name, 'value': values[output_name]}}
