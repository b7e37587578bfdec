"""Actions on a deployment already on a server: run a lifecycle action,
trigger a one-off action, cancel, read one output.

``/v1/{tenant_id}/software_deployments/{id}/actions``, ``/trigger``,
``/cancel`` and ``/outputs/{name}`` (swconfig's additions; Heat has none
of them). The engine does the work (``swconfig.engine.actions``).
"""

import pecan

from swconfig.api import body
from swconfig.api import views
from swconfig.api.controllers.v1 import access
from swconfig.api.controllers.v1 import params
from swconfig.api.controllers.v1 import software_deployments as deployments
from swconfig.api.schemas.v1 import software_deployments as schemas
from swconfig.common import exception
from swconfig.db import api as db_api


@pecan.expose(content_type='application/json')
def run_action(deployment_id: str) -> str | None:
    """The deployment, its action IN_PROGRESS (or already COMPLETE when
    nothing runs it); for DELETE, 204 when the deployment is gone at
    once."""
    context = access.authorize('software_deployments:action')
    document = body.load(pecan.request, schemas.ACTION_RUN)
    row = pecan.request.engine.run_deployment_action(
        context, deployment_id, document['action'])
    return deployments.deployment_or_nothing(row, 200)


@pecan.expose('json')
def trigger(deployment_id: str) -> dict:
    """201 with the new trigger deployment; 200 with the same one when
    the ``Idempotency-Key`` was used for this very request before."""
    context = access.authorize('software_deployments:trigger')
    document = body.load(pecan.request, schemas.TRIGGER)
    request = {key: document.get(key)
               for key in schemas.TRIGGER['properties']}
    result = pecan.request.engine.trigger_deployment(
        context, deployment_id, request, params.idempotency_key())
    pecan.response.status = 201 if result['created'] else 200
    return {'software_deployment': views.deployment(
        result['software_deployment'])}


@pecan.expose('json')
def cancel(deployment_id: str) -> dict:
    """The deployment, FAILED ``Deployment cancelled.``; 409 when it is
    not IN_PROGRESS."""
    context = access.authorize('software_deployments:cancel')
    row = pecan.request.engine.cancel_deployment(context, deployment_id)
    return {'software_deployment': views.deployment(row)}


@pecan.expose('json')
def output(deployment_id: str, output_name: str) -> dict:
    """``{"output": {"name": ..., "value": ...}}``: one value of
    ``output_values``; 404 when the deployment has none of that name
    (yet)."""
    context = access.authorize('software_deployments:show')
    row = db_api.software_deployment_get(context, deployment_id)
    values = row['output_values'] or {}
    if output_name not in values:
        raise exception.OutputNotFound(deployment_id=deployment_id,
                                       name=output_name)
    return {'output': {'name': output_name, 'value': values[output_name]}}
