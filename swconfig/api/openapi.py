"""The OpenAPI 3.1 document of the REST API, built from the code.

Request bodies are the very JSON schemas the controllers validate with
(``swconfig.api.schemas.v1``), so the document cannot drift from what the
API accepts; response schemas mirror ``swconfig.api.views`` and the error
body of ``swconfig.api.middleware.fault``. 3.1 rather than 3.0 because the
request schemas are plain JSON Schema (``"type": ["string", "null"]``),
which only 3.1 allows.

The document is built once per process (:func:`document`) and must be
treated as read-only: it shares its request schemas with the validators.
"""

import copy
import functools
import json
from typing import Any

from swconfig import version
from swconfig.api.schemas.v1 import software_configs as config_schemas
from swconfig.api.schemas.v1 import software_deployments as deploy_schemas

OPENAPI_VERSION = '3.1.0'
JSON = 'application/json'
PROJECT = '/v1/{tenant_id}'
CONFIGS = PROJECT + '/software_configs'
DEPLOYMENTS = PROJECT + '/software_deployments'

#: components/schemas names of the request bodies, mapped to the schema
#: objects the controllers use (identity, not copies).
REQUEST_SCHEMAS: dict[str, dict] = {
    'SoftwareConfigCreate': config_schemas.CREATE,
    'SoftwareDeploymentCreate': deploy_schemas.CREATE,
    'SoftwareDeploymentUpdate': deploy_schemas.UPDATE,
    'TemplateValidate': config_schemas.VALIDATE,
}


def _ref(name: str) -> dict:
    return {'$ref': f'#/components/schemas/{name}'}


def _nullable(type_: str) -> dict:
    return {'type': [type_, 'null']}


_TIME = {'type': 'string', 'description': 'UTC, whole seconds: '
                                          'YYYY-MM-DDTHH:MM:SSZ',
         'pattern': r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$'}

_CONFIG_SUMMARY_PROPERTIES = {
    'id': {'type': 'string'},
    'name': _nullable('string'),
    'group': _nullable('string'),
    'creation_time': _TIME,
}


def _object(properties: dict, required: list[str] | None = None,
            description: str | None = None) -> dict:
    schema: dict[str, Any] = {'type': 'object', 'properties': properties,
                              'required': required or list(properties)}
    if description:
        schema['description'] = description
    return schema


def _envelope(key: str, item: dict) -> dict:
    return _object({key: item})


RESPONSE_SCHEMAS: dict[str, dict] = {
    'Error': _object({
        'code': {'type': 'integer'},
        'title': {'type': 'string'},
        'explanation': {'type': 'string'},
        'error': _object({
            'type': {'type': 'string'},
            'message': {'type': 'string'},
            'traceback': _nullable('string'),
        }, required=['type', 'traceback'],
            description='message is missing for unexpected (non-API) '
                        'errors; traceback is null unless debug = True'),
    }, description="Heat's FaultWrapper error body, for every error."),
    'Version': _object({
        'id': {'type': 'string'},
        'status': {'type': 'string'},
        'links': {'type': 'array', 'items': _object({
            'rel': {'type': 'string'}, 'href': {'type': 'string'}})},
    }),
    'SoftwareConfigSummary': _object(
        {**_CONFIG_SUMMARY_PROPERTIES, 'project': {'type': 'string'}},
        required=list(_CONFIG_SUMMARY_PROPERTIES),
        description='project appears only for admins and global_tenant.'),
    'SoftwareConfig': _object({
        **_CONFIG_SUMMARY_PROPERTIES,
        'config': {'description': 'Stored verbatim: a script or a '
                                  'structured (JSON) config.'},
        'inputs': {'type': 'array', 'items': {'type': 'object'}},
        'outputs': {'type': 'array', 'items': {'type': 'object'}},
        'options': {},
    }),
    'SoftwareDeployment': _object({
        'id': {'type': 'string'},
        'config_id': _nullable('string'),
        'server_id': {'type': 'string'},
        'input_values': _nullable('object'),
        'output_values': _nullable('object'),
        'action': _nullable('string'),
        'status': _nullable('string'),
        'status_reason': _nullable('string'),
        'creation_time': _TIME,
        'updated_time': _TIME,
    }, required=['id', 'config_id', 'server_id', 'input_values',
                 'output_values', 'action', 'status', 'status_reason',
                 'creation_time'],
        description='updated_time is left out until the first update.'),
    'DeploymentEvent': _object({
        'id': {'type': 'integer'},
        'deployment_id': {'type': 'string'},
        'time': _TIME,
        'action': _nullable('string'),
        'old_status': _nullable('string'),
        'new_status': _nullable('string'),
        'reason': _nullable('string'),
    }),
}

ENVELOPES: dict[str, dict] = {
    'VersionList': _envelope('versions', {'type': 'array',
                                          'items': _ref('Version')}),
    'VersionShow': _envelope('version', _ref('Version')),
    'SoftwareConfigList': _envelope(
        'software_configs', {'type': 'array',
                             'items': _ref('SoftwareConfigSummary')}),
    'SoftwareConfigShow': _envelope('software_config',
                                    _ref('SoftwareConfig')),
    'SoftwareDeploymentList': _envelope(
        'software_deployments', {'type': 'array',
                                 'items': _ref('SoftwareDeployment')}),
    'SoftwareDeploymentShow': _envelope('software_deployment',
                                        _ref('SoftwareDeployment')),
    'ServerMetadata': _envelope('metadata', {'type': 'array',
                                             'items': _ref('SoftwareConfig')}),
    'DeploymentEventList': _envelope(
        'events', {'type': 'array', 'items': _ref('DeploymentEvent')}),
    'TemplateValidateResult': _object({
        'Description': {'type': 'string'},
        'Parameters': {'type': 'object'},
    }),
}

ERROR_RESPONSES: dict[str, tuple[str, str]] = {
    '400': ('BadRequest', 'Malformed or invalid request: bad query '
                          'values or body, NUL characters in the URL, '
                          'quota exceeded.'),
    '403': ('Forbidden', 'The path names another project, or the policy '
                         'denies the action.'),
    '404': ('NotFound', 'No such object visible to the caller.'),
    '405': ('MethodNotAllowed', 'Any method not listed for a path.'),
    '409': ('Conflict', 'The config is referenced by a deployment, or '
                        'the deployment changed concurrently.'),
}


def _error_responses() -> dict[str, dict]:
    return {name: {'description': text,
                   'content': {JSON: {'schema': _ref('Error')}}}
            for name, text in ERROR_RESPONSES.values()}


def _ok(envelope: str, description: str) -> dict:
    return {'200': {'description': description,
                    'content': {JSON: {'schema': _ref(envelope)}}}}


def _errors(*codes: int) -> dict:
    return {str(code): {'$ref': '#/components/responses/'
                                + ERROR_RESPONSES[str(code)][0]}
            for code in codes}


def _path_param(name: str, description: str) -> dict:
    return {'name': name, 'in': 'path', 'required': True,
            'description': description, 'schema': {'type': 'string'}}


def _query_param(name: str, schema: dict, description: str) -> dict:
    return {'name': name, 'in': 'query', 'required': False,
            'description': description, 'schema': schema}


def _body(schema_name: str) -> dict:
    return {'required': True,
            'content': {JSON: {'schema': _ref(schema_name)}}}


_TENANT = _path_param('tenant_id', 'The caller\'s project (an admin\'s '
                                   'own project replaces it).')
_CONFIG_ID = _path_param('config_id', 'Software config id.')
_DEPLOYMENT_ID = _path_param('deployment_id', 'Software deployment id.')
_SERVER_ID = _path_param('server_id', 'Server id.')

_NO_CONTENT = {'204': {'description': 'Deleted; empty body.'}}


def _op(operation_id: str, summary: str, responses: dict,
        tag: str, **extra: Any) -> dict:
    return {'operationId': operation_id, 'summary': summary, 'tags': [tag],
            'responses': responses, **extra}


def _config_links() -> dict:
    """Links let stateful testers (and readers) chain operations: a
    created config can be shown, deleted, and deployed."""
    created = '$response.body#/software_config/id'
    tenant = '$request.path.tenant_id'
    links = {name: {'operationId': op, 'parameters': {
        'tenant_id': tenant, 'config_id': created}}
        for name, op in (('ShowConfig', 'showSoftwareConfig'),
                         ('DeleteConfig', 'deleteSoftwareConfig'))}
    links['DeployConfig'] = {
        'operationId': 'createSoftwareDeployment',
        'parameters': {'tenant_id': tenant},
        'requestBody': {'config_id': created}}
    return links


def _deployment_links() -> dict:
    created = '$response.body#/software_deployment/id'
    tenant = '$request.path.tenant_id'
    links = {name: {'operationId': op, 'parameters': {
        'tenant_id': tenant, 'deployment_id': created}}
        for name, op in (('ShowDeployment', 'showSoftwareDeployment'),
                         ('UpdateDeployment', 'updateSoftwareDeployment'),
                         ('DeleteDeployment', 'deleteSoftwareDeployment'),
                         ('ListEvents', 'listSoftwareDeploymentEvents'))}
    links['ServerMetadata'] = {
        'operationId': 'showServerMetadata',
        'parameters': {'tenant_id': tenant, 'server_id':
                       '$response.body#/software_deployment/server_id'}}
    links['DeleteDeployedConfig'] = {
        'operationId': 'deleteSoftwareConfig',
        'parameters': {'tenant_id': tenant, 'config_id':
                       '$response.body#/software_deployment/config_id'}}
    return links


def _paths() -> dict:
    with_links = _ok('SoftwareConfigShow', 'The created config.')
    with_links['200']['links'] = _config_links()
    deployment_created = _ok('SoftwareDeploymentShow',
                             'The created deployment.')
    deployment_created['200']['links'] = _deployment_links()
    return {
        '/': {'get': _op('listVersions', 'API versions.',
                         _ok('VersionList', 'Versions.'), 'versions')},
        '/v1/': {'get': _op('showVersion', 'The v1 version document.',
                            _ok('VersionShow', 'Version.'), 'versions')},
        '/v1/openapi.json': {'get': _op(
            'getOpenAPIDocument', 'This document.',
            {'200': {'description': 'The OpenAPI document.',
                     'content': {JSON: {'schema': {'type': 'object'}}}}},
            'versions')},
        CONFIGS: {
            'parameters': [_TENANT],
            'get': _op(
                'listSoftwareConfigs', 'List configs, newest first.',
                {**_ok('SoftwareConfigList', 'Config summaries.'),
                 **_errors(400, 403)}, 'software_configs',
                parameters=[
                    _query_param('limit', {'type': 'integer', 'minimum': 0},
                                 'At most this many configs.'),
                    _query_param('marker', {'type': 'string'},
                                 'Continue after this config id '
                                 '(ignored when unknown).'),
                    _query_param('global_tenant', {'type': 'boolean'},
                                 'All projects (policy '
                                 'software_configs:global_index).'),
                ]),
            'post': _op(
                'createSoftwareConfig', 'Create an immutable config.',
                {**with_links, **_errors(400, 403)}, 'software_configs',
                requestBody=_body('SoftwareConfigCreate')),
        },
        CONFIGS + '/{config_id}': {
            'parameters': [_TENANT, _CONFIG_ID],
            'get': _op('showSoftwareConfig', 'Show a config.',
                       {**_ok('SoftwareConfigShow', 'The config.'),
                        **_errors(400, 403, 404)}, 'software_configs'),
            'delete': _op('deleteSoftwareConfig',
                          'Delete a config no deployment references.',
                          {**_NO_CONTENT, **_errors(400, 403, 404, 409)},
                          'software_configs'),
        },
        DEPLOYMENTS: {
            'parameters': [_TENANT],
            'get': _op(
                'listSoftwareDeployments', 'List deployments, oldest first.',
                {**_ok('SoftwareDeploymentList', 'Deployments.'),
                 **_errors(400, 403)}, 'software_deployments',
                parameters=[_query_param('server_id', {'type': 'string'},
                                         'Only this server\'s.')]),
            'post': _op(
                'createSoftwareDeployment', 'Deploy a config to a server.',
                {**deployment_created, **_errors(400, 403, 404)},
                'software_deployments',
                requestBody=_body('SoftwareDeploymentCreate')),
        },
        DEPLOYMENTS + '/metadata/{server_id}': {
            'parameters': [_TENANT, _SERVER_ID],
            'get': _op('showServerMetadata',
                       'The configs deployed to a server, by name.',
                       {**_ok('ServerMetadata', 'Full configs.'),
                        **_errors(400, 403)}, 'software_deployments'),
        },
        DEPLOYMENTS + '/{deployment_id}': {
            'parameters': [_TENANT, _DEPLOYMENT_ID],
            'get': _op('showSoftwareDeployment', 'Show a deployment.',
                       {**_ok('SoftwareDeploymentShow', 'The deployment.'),
                        **_errors(400, 403, 404)}, 'software_deployments'),
            'put': _op('updateSoftwareDeployment',
                       'Update a deployment; null or absent fields are '
                       'left alone.',
                       {**_ok('SoftwareDeploymentShow', 'The deployment.'),
                        **_errors(400, 403, 404, 409)},
                       'software_deployments',
                       requestBody=_body('SoftwareDeploymentUpdate')),
            'delete': _op('deleteSoftwareDeployment', 'Delete a deployment.',
                          {**_NO_CONTENT, **_errors(400, 403, 404, 409)},
                          'software_deployments'),
        },
        DEPLOYMENTS + '/{deployment_id}/events': {
            'parameters': [_TENANT, _DEPLOYMENT_ID],
            'get': _op('listSoftwareDeploymentEvents',
                       'Status changes and signals of a deployment.',
                       {**_ok('DeploymentEventList', 'Events.'),
                        **_errors(400, 403, 404)}, 'software_deployments'),
        },
        PROJECT + '/validate': {
            'parameters': [_TENANT],
            'post': _op('validateTemplate',
                        'Check a SoftwareConfig/SoftwareComponent template.',
                        {**_ok('TemplateValidateResult', 'Valid.'),
                         **_errors(400, 403)}, 'software_configs',
                        requestBody=_body('TemplateValidate')),
        },
    }


@functools.cache
def document() -> dict:
    """The OpenAPI document (cached; do not mutate it)."""
    # Deep-copy only what this module owns, so no two places of the
    # document alias each other except the shared request schemas.
    schemas = {**REQUEST_SCHEMAS, **copy.deepcopy(RESPONSE_SCHEMAS),
               **copy.deepcopy(ENVELOPES)}
    return {
        'openapi': OPENAPI_VERSION,
        'info': {
            'title': 'swconfig',
            'version': version.version_string(),
            'description': 'Heat-compatible software configuration API. '
                           'Create and update answer 200, delete 204.',
        },
        'paths': _paths(),
        'components': {
            'schemas': schemas,
            'responses': _error_responses(),
            'securitySchemes': {'keystone': {
                'type': 'apiKey', 'in': 'header', 'name': 'X-Auth-Token',
                'description': 'A project-scoped Keystone token; only '
                               'with auth_strategy = keystone.'}},
        },
        'security': [{}, {'keystone': []}],
    }


@functools.cache
def document_json() -> bytes:
    """The document serialised once, as served at /v1/openapi.json."""
    return json.dumps(document(), sort_keys=True).encode('utf-8')
