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

"""The shared parts of the OpenAPI document: the response schemas, which
mirror ``swconfig.api.views`` (closed objects, so a key a view adds
without documenting it fails ``tests/unit/api/test_openapi.py``), the
envelopes the handlers answer, and Heat's error body with the error
responses every operation refers to by status.

The request schemas are not here: each handler names the very schema
object it validates with (``spec.Body``).
"""

from typing import Any

from swconfig.common import deployment_request


def ref(name: str) -> dict:
    """A reference to the ``components/schemas`` entry ``name``."""
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


_GROUP_SUMMARY_PROPERTIES = {
    'id': {'type': 'string'},
    'name': {'type': 'string'},
    'project_id': {'type': 'string'},
    'selector': {'anyOf': [{'type': 'object', 'additionalProperties': {
        'type': 'string'}}, {'type': 'null'}]},
    'creation_time': _TIME,
    'updated_time': {'anyOf': [_TIME, {'type': 'null'}]},
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
        # swconfig's additions (Heat's clients ignore them).
        'name': {**_nullable('string'),
                 'description': "The name of ``config_id``'s config, the "
                                'one the deployment runs.'},
        'source_config_id': {**_nullable('string'),
                             'description': 'The config the engine derived '
                                            "``config_id`` from; null for "
                                            "Heat's form."},
        'signal_transport': {**_nullable('string'),
                             'description': 'How the agent reports; null '
                                            "for Heat's form."},
        'triggered_from': {**_nullable('string'),
                           'description': 'The deployment this trigger '
                                          'deployment ran an action of; '
                                          'null for any other deployment.'},
        'input_key': {**_nullable('string'),
                      'description': 'The key whose one-key maps the engine '
                                     'replaces by input values in every '
                                     'config it derives for this '
                                     'deployment; null: no substitution.'},
        'input_values_validate': {
            'enum': [*deployment_request.INPUT_VALUES_VALIDATE, None],
            'description': 'With ``input_key``: what a reference to a '
                           'missing input becomes (LAX: null; STRICT: the '
                           'derivation is refused); null without '
                           '``input_key``.'},
    }, required=['id', 'config_id', 'server_id', 'input_values',
                 'output_values', 'action', 'status', 'status_reason',
                 'creation_time', 'name', 'source_config_id',
                 'signal_transport', 'triggered_from', 'input_key',
                 'input_values_validate'],
        description='updated_time is left out until the first update.'),
    'Server': _object({
        'server_id': {'type': 'string'},
        'project_id': {'type': 'string'},
        'creation_time': _TIME,
        'metadata_updated_time': {'anyOf': [_TIME, {'type': 'null'}]},
        'metadata_etag': _nullable('string'),
        'last_poll_time': {
            'anyOf': [_TIME, {'type': 'null'}],
            'description': 'When the server\'s agent last fetched its '
                           'metadata with a valid token; null if it never '
                           'did. Up to ``[api] poll_time_interval`` seconds '
                           'late.'},
        'labels': {'type': 'object',
                   'additionalProperties': {'type': 'string'},
                   'description': 'The labels server group selectors '
                                  'match: ``{"key": "value"}``.'},
    }, description='A server registered to (claimed by) one project.'),
    'ServerGroupSummary': _object(
        _GROUP_SUMMARY_PROPERTIES,
        description='A server group as lists show it, without servers.'),
    'ServerGroup': _object({
        **_GROUP_SUMMARY_PROPERTIES,
        'servers': {'type': 'array', 'items': {'type': 'string'},
                    'description': 'The explicit members, sorted.'},
        'members': {'type': 'array', 'items': {'type': 'string'},
                    'description': 'The servers the group holds now: the '
                                   'explicit ones and those the selector '
                                   'matches, sorted by id. A rollout '
                                   'records this list when it starts.'},
    }),
    'AgentConfig': _object({
        'server_id': {'type': 'string'},
        'os-collect-config': {'type': 'object'},
        'os_collect_config_conf': {'type': 'string'},
    }, description='Agent bootstrap settings; they hold the server\'s '
                   'signed metadata URL.'),
    'AgentDocument': {
        'type': 'object', 'required': ['deployments'],
        'properties': {'deployments': {'type': 'array',
                                       'items': ref('SoftwareConfig')},
                       'os-collect-config': {'type': 'object'}},
        'description': 'What os-collect-config\'s request collector '
                       'reads.'},
    'Rollout': _object({
        'id': {'type': 'string'},
        'project_id': {'type': 'string'},
        'status': {'enum': ['PENDING', 'IN_PROGRESS', 'COMPLETE', 'FAILED',
                            'CANCELLED']},
        'status_reason': _nullable('string'),
        'server_group': {'type': 'string'},
        'servers': {'type': 'array', 'items': {'type': 'string'}},
        'selector': {'type': 'object',
                     'additionalProperties': {'type': 'string'}},
        'config_id': {'type': 'string'},
        'input_values': {'type': ['object', 'null']},
        'signal_transport': {'type': 'string'},
        'name': _nullable('string'),
        'timeout': _nullable('integer'),
        'deployment_name': {'type': 'string'},
        'action': {'type': 'string'},
        'max_concurrency': {'type': 'string'},
        'max_errors': {'type': 'string'},
        'creation_time': _TIME,
        'started_time': {'anyOf': [_TIME, {'type': 'null'}]},
        'finished_time': {'anyOf': [_TIME, {'type': 'null'}]},
        'targets': {'type': 'object',
                    'additionalProperties': {'type': 'integer'},
                    'description': 'How many targets are in each state '
                                   '(shown one by one, not in lists).'},
    }, required=['id', 'project_id', 'status', 'max_concurrency',
                 'max_errors', 'creation_time'],
        description='The target and the work as requested (one of each), '
                    'the limits, and where the rollout is. It is over '
                    'when finished_time is set.'),
    'RolloutTarget': _object({
        'position': {'type': 'integer'},
        'server_id': {'type': 'string'},
        'deployment_id': _nullable('string'),
        'state': {'enum': ['NOT_STARTED', 'IN_PROGRESS', 'COMPLETE',
                           'FAILED', 'CANCELLED']},
        'started_time': {'anyOf': [_TIME, {'type': 'null'}]},
        'finished_time': {'anyOf': [_TIME, {'type': 'null'}]},
    }),
    'RolloutEvent': _object({
        'id': {'type': 'integer'},
        'event': {'type': 'string'},
        'reason': _nullable('string'),
        'creation_time': _TIME,
    }),
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
                                          'items': ref('Version')}),
    'VersionShow': _envelope('version', ref('Version')),
    'SoftwareConfigList': _envelope(
        'software_configs', {'type': 'array',
                             'items': ref('SoftwareConfigSummary')}),
    'SoftwareConfigShow': _envelope('software_config',
                                    ref('SoftwareConfig')),
    'SoftwareDeploymentList': _envelope(
        'software_deployments', {'type': 'array',
                                 'items': ref('SoftwareDeployment')}),
    'SoftwareDeploymentShow': _envelope('software_deployment',
                                        ref('SoftwareDeployment')),
    'ServerMetadata': _envelope('metadata', {'type': 'array',
                                             'items': ref('SoftwareConfig')}),
    'DeploymentEventList': _envelope(
        'events', {'type': 'array', 'items': ref('DeploymentEvent')}),
    'ServerList': _envelope('servers', {'type': 'array',
                                        'items': ref('Server')}),
    'ServerShow': _envelope('server', ref('Server')),
    'ServerGroupList': _envelope(
        'server_groups', {'type': 'array',
                          'items': ref('ServerGroupSummary')}),
    'ServerGroupShow': _envelope('server_group', ref('ServerGroup')),
    'RolloutList': _envelope('rollouts', {'type': 'array',
                                          'items': ref('Rollout')}),
    'RolloutShow': _envelope('rollout', ref('Rollout')),
    'RolloutTargetList': _envelope(
        'targets', {'type': 'array', 'items': ref('RolloutTarget')}),
    'RolloutEventList': _envelope(
        'events', {'type': 'array', 'items': ref('RolloutEvent')}),
    'SignalAccepted': _envelope('signal', {'type': 'integer'}),
    'OutputShow': _object({'output': _object({
        'name': {'type': 'string'},
        'value': {'description': 'As the agent reported it: any JSON '
                                 'value.'}})}),
    'TemplateValidateResult': _object({
        'Description': {'type': 'string'},
        'Parameters': {'type': 'object'},
    }),
    'InputCheckResult': _envelope('input_check', _object({
        'inputs': {'type': 'array', 'items': {'type': 'string'},
                   'description': 'The inputs the config takes: declared, '
                                  'then referenced through input_key.'},
        'unknown': {'type': 'array', 'items': _object({
            'name': {'type': 'string'},
            'closest': {'type': ['string', 'null'],
                        'description': 'The input it was most likely '
                                       'meant to be.'}}),
            'description': 'The names given that the config does not '
                           'take, in the order given.'},
        'message': {'type': ['string', 'null'],
                    'description': 'A sentence naming them (null when '
                                   'there are none).'},
    })),
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
                        'changed concurrently, there is no action in '
                        'progress to cancel, or the project already has '
                        'a server group of that name.'),
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


def error_responses() -> dict[str, dict]:
    """``components/responses``: one per error status, Heat's body."""
    return {name: {'description': text,
                   'content': {'application/json': {'schema': ref('Error')}}}
            for name, text in ERROR_RESPONSES.values()}
