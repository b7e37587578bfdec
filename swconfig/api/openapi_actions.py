"""The OpenAPI description of the deployment action endpoints
(``swconfig.api.controllers.v1.deployment_actions``) and of ``?wait``:
a part of the document ``swconfig.api.openapi`` builds, kept apart so
that module stays small.
"""

from typing import Any

from swconfig.api.schemas.v1 import software_deployments as deploy_schemas
from swconfig.common import urls

REQUEST_SCHEMAS: dict[str, dict] = {
    'SoftwareDeploymentAction': deploy_schemas.ACTION_RUN,
    'SoftwareDeploymentTrigger': deploy_schemas.TRIGGER,
}

#: What ``GET .../outputs/{output_name}`` answers.
OUTPUT = {
    'type': 'object', 'required': ['output'], 'additionalProperties': False,
    'properties': {'output': {
        'type': 'object', 'required': ['name', 'value'],
        'additionalProperties': False,
        'properties': {'name': {'type': 'string'},
                       'value': {'description': 'As the agent reported '
                                                'it: any JSON value.'}}}},
}

WAIT = {
    'name': 'wait', 'in': 'query', 'required': False,
    'schema': {'type': 'integer', 'minimum': 0},
    'description': 'Long poll: when the deployment is IN_PROGRESS, answer '
                   'as soon as it changes (status, progress reason, '
                   'outputs) or after this many seconds (at most 60), '
                   'whichever comes first. A finished deployment is '
                   'answered at once.'}

DELETE_ACCEPTED = {
    'description': 'The component has a DELETE entry: it runs first; the '
                   'deployment (action DELETE, IN_PROGRESS) is removed when '
                   'the action finishes or times out.',
}

IDEMPOTENCY_KEY = {
    'name': 'Idempotency-Key', 'in': 'header', 'required': False,
    'schema': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'description': 'Makes retries safe: a request with a key already used '
                   'for the same request (within [engine] '
                   'idempotency_key_expiry, a day by default) returns the '
                   'deployment that request made, without making or '
                   'running another; the same key with another request is '
                   '422.'}


def paths(openapi: Any) -> dict:
    """The path items, built with ``openapi``'s helpers (the module
    calling this)."""
    show = openapi._ok('SoftwareDeploymentShow', 'The deployment.')
    tenant, deployment_id = openapi._TENANT, openapi._DEPLOYMENT_ID
    tag = 'software_deployments'
    created = {'201': {**show['200'],
                       'description': 'The new trigger deployment.'},
               '200': {**show['200'],
                       'description': 'The trigger deployment an earlier '
                                      'request with this Idempotency-Key '
                                      'made; nothing runs again.'}}
    return {
        urls.DEPLOYMENT_ACTIONS: {
            'parameters': [tenant, deployment_id],
            'post': openapi._op(
                'runSoftwareDeploymentAction',
                'Run a lifecycle or custom action of a server-side '
                'deployment (a component runs the entry for it).',
                {**openapi._ok('SoftwareDeploymentShow',
                               'The deployment, its action IN_PROGRESS '
                               '(COMPLETE when nothing runs it).'),
                 **openapi._NO_CONTENT,
                 **openapi._errors(400, 403, 404, 409)}, tag,
                requestBody=openapi._body('SoftwareDeploymentAction')),
        },
        urls.DEPLOYMENT_TRIGGER: {
            'parameters': [tenant, deployment_id],
            'post': openapi._op(
                'triggerSoftwareDeployment',
                'Run one action as a new deployment on the same server, '
                'from the same source config.',
                {**created, **openapi._errors(400, 403, 404, 422)}, tag,
                parameters=[IDEMPOTENCY_KEY],
                requestBody=openapi._body('SoftwareDeploymentTrigger')),
        },
        urls.DEPLOYMENT_CANCEL: {
            'parameters': [tenant, deployment_id],
            'post': openapi._op(
                'cancelSoftwareDeployment',
                'Cancel the action in progress: FAILED "Deployment '
                'cancelled.", out of the server\'s document at once.',
                {**openapi._ok('SoftwareDeploymentShow',
                               'The cancelled deployment.'),
                 **openapi._errors(400, 403, 404, 409)}, tag),
        },
        urls.DEPLOYMENT_OUTPUT: {
            'parameters': [tenant, deployment_id, openapi._path_param(
                'output_name', 'The name of one of the output values.')],
            'get': openapi._op(
                'showSoftwareDeploymentOutput',
                'One output value of a deployment.',
                {**openapi._ok('OutputShow', 'The output.'),
                 **openapi._errors(400, 403, 404)}, tag),
        },
    }
