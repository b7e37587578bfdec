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

"""Request schemas for /rollouts."""

from swconfig.api.schemas.v1 import server_groups
from swconfig.api.schemas.v1 import software_deployments as deployments

_DEPLOY = deployments.CREATE['properties']

#: ``max_errors``: a number of targets, or a percentage of them.
LIMIT = {
    'type': ['string', 'integer'],
    'pattern': r'^(?:[0-9]{1,7}|(?:100|[1-9]?[0-9])%)$',
    'minimum': 0, 'maximum': 9999999,
    'description': 'A number of targets, or a percentage of them as '
                   '``"N%"`` (rounded up).',
    'x-must-be': 'a whole number from 0 to 9999999 or a percentage from '
                 '0% to 100%',
}
#: ``max_concurrency``: as LIMIT, but at least one target must run.
POSITIVE_LIMIT = {
    **LIMIT,
    'pattern': r'^(?:[1-9][0-9]{0,6}|(?:100|[1-9][0-9]?)%)$',
    'minimum': 1,
    'x-must-be': 'a whole number from 1 to 9999999 or a percentage from '
                 '1% to 100%',
}

#: The target: exactly one of these.
TARGETS = ('server_group', 'servers', 'selector')
#: The work: ``config_id`` with any of the others, or both ACTION_WORK.
CONFIG_WORK = ('config_id', 'input_values', 'signal_transport', 'name',
               'timeout')
ACTION_WORK = ('deployment_name', 'action')


def _none_of(keys: tuple[str, ...]) -> dict:
    return {'not': {'anyOf': [{'required': [key]} for key in keys]}}


#: The rules among the fields, each refused with its own sentence.
RULES = [
    {'oneOf': [{'required': [key]} for key in TARGETS],
     'x-rule': 'Give exactly one target: server_group, servers or '
               'selector'},
    {'oneOf': [{'required': ['config_id'], **_none_of(ACTION_WORK)},
               {'required': list(ACTION_WORK), **_none_of(CONFIG_WORK)}],
     'x-rule': 'Give either config_id (with input_values, '
               'signal_transport, name, timeout) or deployment_name with '
               'action, not both and not one of the pair alone'},
    {'anyOf': [_none_of(('skip_missing',)),
               {'required': ['deployment_name']}],
     'x-rule': 'skip_missing applies only with deployment_name'},
]

CREATE = {
    'title': 'RolloutCreate',
    'description': 'Deploy a config to, or run an action on, many servers '
                   'in waves. Exactly one target (``server_group``, '
                   '``servers`` or ``selector``) and exactly one kind of '
                   'work (``config_id``, or ``deployment_name`` with '
                   '``action``). Any other key is refused with 400 naming '
                   'it.',
    'type': 'object',
    'properties': {
        'server_group': {'type': 'string', 'minLength': 1, 'maxLength': 36,
                         'description': "A server group of the project: "
                                        'its members when the rollout is '
                                        'created, by server id.'},
        'servers': {**server_groups.SERVERS, 'minItems': 1,
                    'description': 'Servers, started in the order given.'},
        'selector': {**server_groups.SELECTOR, 'type': 'object',
                     'description': 'Every server of the project whose '
                                    'labels match all of these, by server '
                                    'id; matching none is 400.'},
        'config_id': {
            **_DEPLOY['config_id'],
            'description': 'The config to deploy to every target: the '
                           'source config the engine derives each '
                           "deployment from. Unknown or another project's: "
                           '404.'},
        'input_values': {
            **_DEPLOY['input_values'],
            'description': "With ``config_id``: values for the config's "
                           'inputs, by name, the same on every target.'},
        'signal_transport': {
            **_DEPLOY['signal_transport'],
            'description': 'With ``config_id``: the signal transport of '
                           'every deployment (default: ``default``, the '
                           "operator's)."},
        'name': {
            **_DEPLOY['name'],
            'description': 'With ``config_id``: the name of the derived '
                           "configs (default: the source config's name)."},
        'timeout': {
            **_DEPLOY['timeout'],
            'description': 'With ``config_id``: seconds each target waits '
                           "for its agent's signal before it fails; ``0`` "
                           'waits for ever; null means ``[DEFAULT] '
                           'default_deployment_timeout``.'},
        'deployment_name': {
            'type': 'string', 'minLength': 1, 'maxLength': 255,
            'description': "With ``action``: on each server, the "
                           'deployment of the config of this name whose '
                           'action is triggered.'},
        'action': {**deployments.ACTION, 'type': 'string',
                   'description': 'With ``deployment_name``: the action '
                                  'to trigger on each server.'},
        'skip_missing': {
            'type': 'boolean',
            'description': 'With ``deployment_name``: leave out the targets '
                           'that have no deployment of that name (an event '
                           'names them) instead of refusing the rollout '
                           '(400 listing them; the default, false).'},
        'max_concurrency': {
            **POSITIVE_LIMIT, 'description': 'At most this many targets '
                                             'in progress at once (default '
                                             '50; at least 1 or 1%).'},
        'max_errors': {
            **LIMIT, 'description': 'Once more targets than this failed, '
                                    'no new one starts and the rollout '
                                    'ends FAILED (default 0).'},
    },
    'additionalProperties': False,
    'allOf': RULES,
}
