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

"""Request schemas for /software_deployments.

Every body is closed (``additionalProperties: false``): Heat ignores keys
it does not know, so a typo such as ``signal_tranport`` silently made a
raw deployment that never reports; swconfig names the key with a 400
instead. The keys listed are all those python-heatclient, the openstack
CLI and Heat's tempest tests send.
"""

from swconfig.api.schemas.v1 import servers
from swconfig.common import deployment_request
from swconfig.common import states

# The description, and the end of the 400 that refuses a value ("It
# must be ...", the "x-must-be" of swconfig.api.request_body).
_ACTION_WORDS = ('an identifier such as CREATE, UPDATE or BACKUP (letters, '
                 'digits and "_", not starting with a digit)')
ACTION = {
    'type': ['string', 'null'], 'maxLength': 255,
    'pattern': states.ACTION_NAME_PATTERN,
    'description': _ACTION_WORDS,
    'x-must-be': _ACTION_WORDS,
}

STATUS = {'enum': [*states.STATUSES, None]}

# The descriptions are the API reference's words (doc/source/api-ref),
# which must contain each of them verbatim: tests/unit/api/test_openapi.py
# and the docs build check it. SERVER_ID's and ACTION's also end the 400
# of a value that does not match their pattern, so a field that describes
# itself otherwise takes ACTION through ``allOf`` (whose errors carry
# ACTION's description) rather than as a copy with another description.
CREATE = {
    'title': 'SoftwareDeploymentCreate',
    'description': 'Deploy a config to a server. Without '
                   "``signal_transport`` it is Heat's form, stored as "
                   'given (the client derived the config the agent runs); '
                   "with it, swconfig's server-side form: the engine "
                   'derives that config. Any other key is refused with 400 '
                   'naming it.',
    'type': 'object',
    'properties': {
        'config_id': {'type': 'string', 'minLength': 1, 'maxLength': 36,
                      'description': 'The config to deploy: with '
                                     '``signal_transport``, the source '
                                     'config the engine derives from; '
                                     'without it, the config the agent will '
                                     "run as is. Unknown or another "
                                     "project's: 404."},
        'server_id': servers.SERVER_ID,
        'input_values': {
            'type': ['object', 'null'],
            'description': "Values for the config's inputs, by name; names "
                           'the config does not declare become extra '
                           '``String`` inputs. Stored on the deployment as '
                           'given (``{}`` when null). With '
                           '``signal_transport`` the engine puts them into '
                           'the derived config; without it they are for '
                           'information only (the client already put the '
                           'values into its derived config).'},
        'action': ACTION,
        'status': {**STATUS,
                   'description': "Heat's form only: the status to store "
                                  '(clients send ``IN_PROGRESS``). With '
                                  '``signal_transport`` the engine sets the '
                                  'status.'},
        'status_reason': {'type': ['string', 'null'],
                          'description': "Heat's form only: the reason to "
                                         'store (null when missing).'},
        'stack_user_project_id': {
            'type': ['string', 'null'],
            'description': "Heat's field: a second project that may see "
                           'this deployment (for example the project of a '
                           "stack's in-instance users). At most 64 "
                           'characters; longer is 400.'},
        # Server-side derivation (swconfig's extension); without
        # signal_transport the request keeps Heat's raw behaviour.
        'signal_transport': {
            'type': ['string', 'null'], 'minLength': 1, 'maxLength': 32,
            'description': "swconfig's addition. Present: derive the config "
                           'on the server and issue this signal transport: '
                           'the name of one the service offers (see the '
                           'transports documentation), or ``default`` for '
                           "the operator's default. A name that is not "
                           'installed, or one the operator has not '
                           'configured, is 400 listing those offered. '
                           "Absent or null: Heat's form, stored as given."},
        'name': {'type': ['string', 'null'], 'maxLength': 255,
                 'description': 'With ``signal_transport``: the name of the '
                                'derived config, which orders the '
                                "server's document (default: the source "
                                "config's name). Ignored without it."},
        'timeout': {'type': ['integer', 'null'], 'minimum': 0,
                    'maximum': 31536000,
                    'description': 'With ``signal_transport``: seconds to '
                                   "wait for the agent's signal before the "
                                   'deployment fails; ``0`` waits for ever; '
                                   'null means ``[DEFAULT] '
                                   'default_deployment_timeout``. Ignored '
                                   'without it.'},
        'input_key': {
            'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
            'description': "swconfig's addition, with ``signal_transport`` "
                           "only (Heat's StructuredDeployment): in the "
                           'config the engine derives, every map with this '
                           'one key and a string value, such as '
                           '``{"get_input": "port"}``, is replaced by the '
                           'value of that input; the same happens in every '
                           'later derivation of the deployment (actions, '
                           'updates, triggers). Null: no substitution.'},
        'input_values_validate': {
            'enum': [*deployment_request.INPUT_VALUES_VALIDATE, None],
            'description': 'With ``input_key``: what a reference to an '
                           'input that is not there becomes. ``LAX`` (the '
                           'default): null. ``STRICT``: the request is '
                           '400 ``InputValueMissing`` naming the input, '
                           'and nothing is created or changed. Given '
                           'without ``input_key``: 400.'},
    },
    'required': ['config_id', 'server_id'],
    'additionalProperties': False,
}

#: A list of deployments to create: each item is validated with CREATE
#: (``request_body.load_list``), which the document references by name.
CREATE_LIST = {
    'title': 'SoftwareDeploymentCreateList',
    'description': 'Create several deployments in one request, all or '
                   'none: a list of the objects a single creation takes, '
                   "in either form (Heat's, or with ``signal_transport``), "
                   'at most ``[api] max_batch_deployments`` of them. Every '
                   'item is checked before anything is created; if any '
                   'cannot be created, the answer is 400 naming each bad '
                   'item by its index, with the message creating it alone '
                   'would get, and nothing is created.',
    'type': 'array',
    'minItems': 1,
    'items': {'$ref': '#/components/schemas/SoftwareDeploymentCreate'},
}

SIGNAL = {
    'title': 'SoftwareDeploymentSignal',
    'description': 'What an agent reports: declared outputs plus '
                   '``deploy_stdout``, ``deploy_stderr``, '
                   '``deploy_status_code``; or ``deploy_status`` '
                   '``IN_PROGRESS`` with ``deploy_status_reason``.',
    'type': 'object',
}

UPDATE = {
    'title': 'SoftwareDeploymentUpdate',
    'description': 'Change a deployment. Every field is optional; a '
                   'missing or null field is left as it is, any other '
                   'value (``""`` and ``{}`` included) is applied. Any '
                   'other key is refused with 400 naming it: '
                   '``server_id`` cannot change.',
    'type': 'object',
    'properties': {
        'config_id': {'type': ['string', 'null'], 'maxLength': 36,
                      'description': 'Another config (404 if not visible). '
                                     'For a server-side deployment, the new '
                                     'source config: the engine derives '
                                     'from it for a new action.'},
        'input_values': {'type': ['object', 'null'],
                         'description': 'New input values, replacing the '
                                        'stored ones. For a server-side '
                                        'deployment, a change starts a new '
                                        'action with these values.'},
        'output_values': {'type': ['object', 'null'],
                          'description': 'Replaces the stored outputs (no '
                                         'merge).'},
        'action': ACTION,
        'status': {**STATUS,
                   'description': 'Sets the status, for example ``FAILED`` '
                                  'to stop waiting for an action. On a '
                                  'server-side deployment that starts a new '
                                  "action, the new action's status "
                                  '(``IN_PROGRESS``) wins.'},
        'status_reason': {'type': ['string', 'null'],
                          'description': 'Sets the reason.'},
    },
    'additionalProperties': False,
}

ACTION_RUN = {
    'title': 'SoftwareDeploymentAction',
    'description': 'Run one action of a server-side deployment: the '
                   'engine derives the config again for it (for a '
                   'component, the entry that lists the action) with a '
                   'new action revision. ``DELETE`` deletes the '
                   'deployment, running its DELETE entry first.',
    'type': 'object',
    'properties': {
        'action': {'allOf': [ACTION], 'type': 'string',
                   'description': 'Required. The action: ``CREATE``, '
                                  '``UPDATE``, ``SUSPEND``, ``RESUME``, '
                                  '``DELETE`` or a custom name such as '
                                  '``BACKUP``.'},
    },
    'required': ['action'],
    'additionalProperties': False,
}

TRIGGER = {
    'title': 'SoftwareDeploymentTrigger',
    'description': 'Run one action of a deployment as a new deployment on '
                   'the same server, from the same source config; the '
                   'original deployment is untouched. Send an '
                   '``Idempotency-Key`` header to make retries safe.',
    'type': 'object',
    'properties': {
        'action': {'allOf': [ACTION], 'type': 'string',
                   'description': 'Required. The action to run, for '
                                  'example ``BACKUP``; it names the '
                                  'derived config ``<source name>-'
                                  '<ACTION>``.'},
        'input_values': {
            'type': ['object', 'null'],
            'description': "Values over the original deployment's input "
                           'values, by name.'},
        'signal_transport': {
            'type': ['string', 'null'], 'minLength': 1, 'maxLength': 32,
            'description': "The trigger's signal transport (as "
                           '``signal_transport`` of a deployment); null: '
                           "the original deployment's."},
        'timeout': {'type': ['integer', 'null'], 'minimum': 0,
                    'maximum': 31536000,
                    'description': "Seconds to wait for the agent's "
                                   'signal; ``0`` waits for ever; null '
                                   'means ``[DEFAULT] '
                                   'default_deployment_timeout``.'},
        'allow_concurrent': {
            'type': ['boolean', 'null'],
            'description': '``true`` runs the action even while the '
                           'deployment, or a trigger of it, is still '
                           'running the same action; otherwise (the '
                           'default) such a trigger is 409 '
                           '``ActionAlreadyRunning`` naming the running '
                           'one.'},
    },
    'required': ['action'],
    'additionalProperties': False,
}
