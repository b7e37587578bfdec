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

"""The OpenAPI 3.1 document of the REST API, built from the code.

Request bodies are the very JSON schemas the controllers validate with
(``swconfig.api.schemas.v1``), so the document cannot drift from what the
API accepts; response schemas mirror ``swconfig.api.views`` and the error
body of ``swconfig.api.middleware.fault``. The signed URLs agents call
(``swconfig.api.agent.endpoints``) are documented too: the app serves them. 3.1
rather than 3.0 because the request schemas are plain JSON Schema
(``"type": ["string", "null"]``), which only 3.1 allows.

The document is built once per process (:func:`document`) and must be
treated as read-only: it shares its request schemas with the validators.
"""

import copy
import functools
import json
import sys
from typing import Any

from swconfig import version
from swconfig.api import openapi_actions
from swconfig.api.schemas.v1 import servers as server_schemas
from swconfig.api.schemas.v1 import software_configs as config_schemas
from swconfig.api.schemas.v1 import software_deployments as deploy_schemas
from swconfig.common import urls

OPENAPI_VERSION = '3.1.0'
JSON = 'application/json'

#: components/schemas names of the request bodies, mapped to the schema
#: objects the controllers use (identity, not copies).
REQUEST_SCHEMAS: dict[str, dict] = {
    'SoftwareConfigCreate': config_schemas.CREATE,
    'SoftwareDeploymentCreate': deploy_schemas.CREATE,
    'SoftwareDeploymentUpdate': deploy_schemas.UPDATE,
    'SoftwareDeploymentSignal': deploy_schemas.SIGNAL,
    'TemplateValidate': config_schemas.VALIDATE,
    'ServerRegister': server_schemas.CREATE,
    **openapi_actions.REQUEST_SCHEMAS,
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
    # Closed objects: a key a view adds without documenting it here fails
    # tests/unit/api/test_openapi.py.
    schema: dict[str, Any] = {'type': 'object', 'properties': properties,
                              'required': required or list(properties),
                              'additionalProperties': False}
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
    'Server': _object({
        'server_id': {'type': 'string'},
        'project_id': {'type': 'string'},
        'creation_time': _TIME,
        'metadata_updated_time': {'anyOf': [_TIME, {'type': 'null'}]},
        'metadata_etag': _nullable('string'),
    }, description='A server registered to (claimed by) one project.'),
    'AgentConfig': _object({
        'server_id': {'type': 'string'},
        'os-collect-config': {'type': 'object'},
        'os_collect_config_conf': {'type': 'string'},
    }, description='Agent bootstrap settings; they hold the server\'s '
                   'signed metadata URL.'),
    'AgentDocument': {
        'type': 'object', 'required': ['deployments'],
        'properties': {'deployments': {'type': 'array',
                                       'items': _ref('SoftwareConfig')},
                       'os-collect-config': {'type': 'object'}},
        'description': 'What os-collect-config\'s request collector '
                       'reads.'},
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
    'ServerList': _envelope('servers', {'type': 'array',
                                        'items': _ref('Server')}),
    'ServerShow': _envelope('server', _ref('Server')),
    'SignalAccepted': _envelope('signal', {'type': 'integer'}),
    'OutputShow': openapi_actions.OUTPUT,
    'TemplateValidateResult': _object({
        'Description': {'type': 'string'},
        'Parameters': {'type': 'object'},
    }),
}

ERROR_RESPONSES: dict[str, tuple[str, str]] = {
    '400': ('BadRequest', 'Malformed or invalid request: bad query '
                          'values or body (an unknown or missing field, '
                          'NaN, a lone surrogate), a URL that is not '
                          'UTF-8 or holds NUL, quota exceeded.'),
    '403': ('Forbidden', 'The path names another project, the policy '
                         'denies the action, the server belongs to '
                         'another project, or a signed URL is not valid '
                         '(any more).'),
    '404': ('NotFound', 'No such object visible to the caller.'),
    '405': ('MethodNotAllowed', 'Any method not listed for a path.'),
    '409': ('Conflict', 'The config is referenced by a deployment, the '
                        'server still has deployments, the deployment '
                        'changed concurrently, or there is no action in '
                        'progress to cancel.'),
    '413': ('SignalTooLarge', 'The signal is over [agent] max_signal_size; '
                              'it is recorded, and the deployment\'s '
                              'current action fails with the reason.'),
    '422': ('UnprocessableEntity', 'The Idempotency-Key was used for a '
                                   'different request.'),
    '415': ('UnsupportedMediaType', 'A body whose Content-Type is not '
                                    'application/json (text/plain and none '
                                    'are read as JSON too, as in Heat).'),
    '429': ('TooManyRequests', 'Over the project\'s write rate ([api] '
                               'max_writes_per_second_per_project; off by '
                               'default); see Retry-After.'),
    '503': ('ServiceUnavailable', 'The database, the message bus or the '
                                  'engines did not answer in time ([engine] '
                                  'rpc_response_timeout), or the API worker '
                                  'already serves [api] '
                                  'max_concurrent_project_requests; see '
                                  'Retry-After.'),
}
WRITES = ('post', 'put', 'patch', 'delete')


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
_TOKEN = {**_query_param('token', {'type': 'string'},
                         'The signature of the signed URL.'),
          'required': True}
_REVISION = {**_query_param('revision', {'type': 'integer'},
                            'The deployment action the URL belongs to.'),
             'required': True}
# Signed URLs carry their own credential; no Keystone token.
_PUBLIC: list[dict] = []

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
                         ('ListEvents', 'listSoftwareDeploymentEvents'),
                         ('Signal', 'signalSoftwareDeployment'))}
    links['ServerMetadata'] = {
        'operationId': 'showServerMetadata',
        'parameters': {'tenant_id': tenant, 'server_id':
                       '$response.body#/software_deployment/server_id'}}
    links['DeleteDeployedConfig'] = {
        'operationId': 'deleteSoftwareConfig',
        'parameters': {'tenant_id': tenant, 'config_id':
                       '$response.body#/software_deployment/config_id'}}
    return links


#: oslo.middleware's health check answer (not the standard error body).
_HEALTH = {'type': 'object', 'required': ['reasons', 'detailed'],
           'properties': {
               'reasons': {'type': 'array', 'description': 'What each '
                           'check found (more with [healthcheck] '
                           'detailed).'},
               'detailed': {'type': 'boolean'}}}


def _root_paths() -> dict:
    return {
        urls.ROOT: {'get': _op('listVersions', 'API versions.',
                         _ok('VersionList', 'Versions.'), 'versions')},
        urls.V1: {'get': _op('showVersion', 'The v1 version document.',
                            _ok('VersionShow', 'Version.'), 'versions')},
        urls.OPENAPI: {'get': _op(
            'getOpenAPIDocument', 'This document.',
            {'200': {'description': 'The OpenAPI document.',
                     'content': {JSON: {'schema': {'type': 'object'}}}}},
            'versions')},
        urls.HEALTHCHECK: {
            'get': _op(
                'getHealthcheck', 'Whether this API worker can serve: the '
                'database answers and the message bus accepts connections '
                '(for load balancers; no token).',
                {'200': {'description': 'Healthy; the reasons as text, '
                                        'JSON or HTML (Accept).',
                         'content': {JSON: {'schema': _HEALTH}}},
                 '503': {'description': 'A check failed; the same body.',
                         'content': {JSON: {'schema': _HEALTH}}}},
                'health', security=_PUBLIC),
            'head': _op(
                'headHealthcheck', 'The same check, without a body.',
                {'204': {'description': 'Healthy.'},
                 '503': {'description': 'A check failed.'}},
                'health', security=_PUBLIC),
        },
    }


def _config_paths() -> dict:
    created = _ok('SoftwareConfigShow', 'The created config.')
    created['200']['links'] = _config_links()
    return {
        urls.CONFIGS: {
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
                {**created, **_errors(400, 403)}, 'software_configs',
                requestBody=_body('SoftwareConfigCreate')),
        },
        urls.CONFIG: {
            'parameters': [_TENANT, _CONFIG_ID],
            'get': _op('showSoftwareConfig', 'Show a config.',
                       {**_ok('SoftwareConfigShow', 'The config.'),
                        **_errors(400, 403, 404)}, 'software_configs'),
            'delete': _op('deleteSoftwareConfig',
                          'Delete a config no deployment references.',
                          {**_NO_CONTENT, **_errors(400, 403, 404, 409)},
                          'software_configs'),
        },
        urls.VALIDATE: {
            'parameters': [_TENANT],
            'post': _op('validateTemplate',
                        'Check a SoftwareConfig/SoftwareComponent template.',
                        {**_ok('TemplateValidateResult', 'Valid.'),
                         **_errors(400, 403)}, 'software_configs',
                        requestBody=_body('TemplateValidate')),
        },
    }


def _deployment_paths() -> dict:
    created = _ok('SoftwareDeploymentShow', 'The created deployment.')
    created['200']['links'] = _deployment_links()
    return {
        urls.DEPLOYMENTS: {
            'parameters': [_TENANT],
            'get': _op(
                'listSoftwareDeployments', 'List deployments, oldest first.',
                {**_ok('SoftwareDeploymentList', 'Deployments.'),
                 **_errors(400, 403)}, 'software_deployments',
                parameters=[_query_param('server_id', {'type': 'string'},
                                         'Only this server\'s.')]),
            'post': _op(
                'createSoftwareDeployment', 'Deploy a config to a server.',
                {**created, **_errors(400, 403, 404, 422)},
                'software_deployments',
                parameters=[openapi_actions.IDEMPOTENCY_KEY],
                requestBody=_body('SoftwareDeploymentCreate')),
        },
        urls.SERVER_METADATA: {
            'parameters': [_TENANT, _SERVER_ID],
            'get': _op('showServerMetadata',
                       'The configs deployed to a server, by name.',
                       {**_ok('ServerMetadata', 'Full configs.'),
                        **_errors(400, 403)}, 'software_deployments'),
        },
        urls.DEPLOYMENT: {
            'parameters': [_TENANT, _DEPLOYMENT_ID],
            'get': _op('showSoftwareDeployment', 'Show a deployment.',
                       {**_ok('SoftwareDeploymentShow', 'The deployment.'),
                        **_errors(400, 403, 404)}, 'software_deployments',
                       parameters=[openapi_actions.WAIT]),
            'put': _op('updateSoftwareDeployment',
                       'Update a deployment; null or absent fields are '
                       'left alone.',
                       {**_ok('SoftwareDeploymentShow', 'The deployment.'),
                        **_errors(400, 403, 404, 409)},
                       'software_deployments',
                       requestBody=_body('SoftwareDeploymentUpdate')),
            'delete': _op('deleteSoftwareDeployment', 'Delete a deployment.',
                          {**_NO_CONTENT, '202': {
                              **openapi_actions.DELETE_ACCEPTED,
                              **_ok('SoftwareDeploymentShow', '')['200'],
                              **openapi_actions.DELETE_ACCEPTED},
                           **_errors(400, 403, 404, 409)},
                          'software_deployments'),
        },
        urls.DEPLOYMENT_EVENTS: {
            'parameters': [_TENANT, _DEPLOYMENT_ID],
            'get': _op('listSoftwareDeploymentEvents',
                       'Status changes and signals of a deployment.',
                       {**_ok('DeploymentEventList', 'Events.'),
                        **_errors(400, 403, 404)}, 'software_deployments'),
        },
        urls.DEPLOYMENT_SIGNAL: {
            'parameters': [_TENANT, _DEPLOYMENT_ID],
            'post': _op('signalSoftwareDeployment',
                        'Signal the current action, as its agent would.',
                        {**_ok('SignalAccepted', 'Stored; applied '
                                                 'asynchronously.'),
                         **_errors(400, 403, 404)}, 'software_deployments',
                        requestBody=_body('SoftwareDeploymentSignal')),
        },
        **openapi_actions.paths(sys.modules[__name__]),
    }


def _server_paths() -> dict:
    return {
        urls.SERVERS: {
            'parameters': [_TENANT],
            'get': _op('listServers', 'Servers registered to the project.',
                       {**_ok('ServerList', 'Servers.'),
                        **_errors(400, 403)}, 'servers'),
            'post': _op('registerServer', 'Register (claim) a server.',
                        {**_ok('ServerShow', 'The server.'),
                         **_errors(400, 403)}, 'servers',
                        requestBody=_body('ServerRegister')),
        },
        urls.SERVER: {
            'parameters': [_TENANT, _SERVER_ID],
            'get': _op('showServer', 'Show a registered server.',
                       {**_ok('ServerShow', 'The server.'),
                        **_errors(400, 403, 404)}, 'servers'),
            'delete': _op('unregisterServer',
                          'Unregister a server without deployments.',
                          {**_NO_CONTENT, **_errors(400, 403, 404, 409)},
                          'servers'),
        },
        urls.SERVER_AGENT_CONFIG: {
            'parameters': [_TENANT, _SERVER_ID],
            'get': _op('showAgentConfig',
                       'Agent bootstrap settings; claims a new server.',
                       {**_ok('AgentConfig', 'The settings.'),
                        **_errors(400, 403)}, 'servers'),
        },
    }


def _agent_paths() -> dict:
    """The signed URLs agents call (swconfig.api.agent.endpoints),
    outside Keystone and pecan."""
    document = {'200': {'description': 'The server\'s document.',
                        'headers': {'ETag': {'schema': {'type': 'string'}},
                                    'Last-Modified': {
                                        'schema': {'type': 'string'}}},
                        'content': {JSON: {'schema': _ref(
                            'AgentDocument')}}},
                '304': {'description': 'Unchanged (If-None-Match).'}}
    signal = {**_ok('SignalAccepted', 'Stored; applied asynchronously.'),
              **_errors(400, 403, 404, 413, 503)}
    any_json = {'required': False,
                'content': {JSON: {'schema': {
                    'description': 'Any JSON, or no body at all.'}}}}
    return {
        urls.AGENT_METADATA: {
            'parameters': [_SERVER_ID, _TOKEN],
            'get': _op('getAgentMetadata', 'Poll a server\'s metadata.',
                       {**document, **_errors(403, 404)}, 'agent',
                       security=_PUBLIC),
            'head': _op('headAgentMetadata', 'Check for changes cheaply.',
                        {'200': {'description': 'ETag and Last-Modified '
                                                'only.'},
                         '304': document['304'],
                         '403': {'description': 'Bad token.'},
                         '404': {'description': 'Unknown server.'}},
                        'agent', security=_PUBLIC),
        },
        urls.AGENT_SIGNAL: {
            'parameters': [_DEPLOYMENT_ID, _REVISION, _TOKEN],
            'put': _op('putAgentSignal', 'Signal a deployment action '
                       '(heat-config-notify retries PUT on 5xx).', signal,
                       'agent', requestBody=any_json, security=_PUBLIC),
            'post': _op('postAgentSignal', 'Signal a deployment action.',
                        signal, 'agent', requestBody=any_json,
                        security=_PUBLIC),
        },
    }


def _paths() -> dict:
    paths = {**_root_paths(), **_config_paths(), **_deployment_paths(),
             **_server_paths(), **_agent_paths()}
    # swconfig.api.middleware.ratelimit: every authenticated write;
    # swconfig.api.body: every body of the tenant API;
    # swconfig.api.middleware.concurrency and the backends: every project
    # request may be 503.
    for path, item in paths.items():
        if not path.startswith(urls.PROJECT):
            continue
        for method, operation in item.items():
            if method != 'parameters':
                operation['responses'].update(_errors(503))
        for method in WRITES:
            if method in item:
                item[method]['responses'].update(_errors(429))
                if 'requestBody' in item[method]:
                    item[method]['responses'].update(_errors(415))
    return paths


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
