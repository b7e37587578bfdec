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

"""Rules for /software_deployments, with Heat's names and defaults."""

from oslo_policy import policy

from swconfig.common import urls
from swconfig.policies import base

_rule = base.project_rule

rules = [
    _rule('software_deployments:index', base.PROJECT_READER,
          'List software deployments.',
          [{'path': urls.DEPLOYMENTS, 'method': 'GET'}]),
    _rule('software_deployments:create', base.PROJECT_MEMBER,
          'Create a software deployment, or several from a list (one '
          'rule for both: a list is as many creations).',
          [{'path': urls.DEPLOYMENTS, 'method': 'POST'}]),
    _rule('software_deployments:show', base.PROJECT_READER,
          'Show a software deployment (optionally waiting for a change), '
          'or one of its outputs.',
          [{'path': urls.DEPLOYMENT, 'method': 'GET'},
           {'path': urls.DEPLOYMENT_OUTPUT, 'method': 'GET'}]),
    _rule('software_deployments:update', base.PROJECT_MEMBER,
          'Update a software deployment.',
          [{'path': urls.DEPLOYMENT, 'method': 'PUT'}]),
    _rule('software_deployments:delete', base.PROJECT_MEMBER,
          'Delete a software deployment.',
          [{'path': urls.DEPLOYMENT, 'method': 'DELETE'}]),
    _rule('software_deployments:signal', base.PROJECT_MEMBER,
          'Signal the current action of a software deployment.',
          [{'path': urls.DEPLOYMENT_SIGNAL, 'method': 'POST'}]),
    _rule('software_deployments:action', base.PROJECT_MEMBER,
          'Run a lifecycle or custom action of a server-side software '
          'deployment.',
          [{'path': urls.DEPLOYMENT_ACTIONS, 'method': 'POST'}]),
    _rule('software_deployments:trigger', base.PROJECT_MEMBER,
          'Trigger one action of a software deployment as a new '
          'deployment on the same server.',
          [{'path': urls.DEPLOYMENT_TRIGGER, 'method': 'POST'}]),
    _rule('software_deployments:cancel', base.PROJECT_MEMBER,
          'Cancel the action in progress of a software deployment.',
          [{'path': urls.DEPLOYMENT_CANCEL, 'method': 'POST'}]),
    policy.DocumentedRuleDefault(
        name='software_deployments:metadata',
        check_str=('(' + base.PROJECT_READER + ') or '
                   '(role:heat_stack_user and project_id:%(project_id)s)'),
        description='Show the deployments metadata of a server.',
        operations=[{'path': urls.SERVER_METADATA,
                     'method': 'GET'}],
        scope_types=['project']),
]


def list_rules() -> list[policy.RuleDefault]:
    return rules
