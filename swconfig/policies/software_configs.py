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

"""Rules for /software_configs, with Heat's names and defaults."""

from oslo_policy import policy

from swconfig.common import urls
from swconfig.policies import base

_rule = base.project_rule

rules = [
    policy.DocumentedRuleDefault(
        name='software_configs:global_index',
        check_str='rule:deny_everybody',
        description='List the software configs of every project.',
        operations=[{'path': urls.CONFIGS + '?global_tenant=true',
                     'method': 'GET'}],
        scope_types=['project']),
    _rule('software_configs:index', base.PROJECT_READER,
          'List software configs.',
          [{'path': urls.CONFIGS, 'method': 'GET'}]),
    _rule('software_configs:create', base.PROJECT_MEMBER,
          'Create a software config.',
          [{'path': urls.CONFIGS, 'method': 'POST'}]),
    _rule('software_configs:show', base.PROJECT_READER,
          'Show a software config.',
          [{'path': urls.CONFIG, 'method': 'GET'}]),
    _rule('software_configs:delete', base.PROJECT_MEMBER,
          'Delete a software config.',
          [{'path': urls.CONFIG, 'method': 'DELETE'}]),
    _rule('software_configs:input_check', base.PROJECT_READER,
          'Check input values against a config before deploying it.',
          [{'path': urls.CONFIG_INPUT_CHECK, 'method': 'POST'}]),
    _rule('software_configs:validate', base.PROJECT_READER,
          'Validate a template holding software configs (what '
          '"openstack software config create" sends first).',
          [{'path': urls.VALIDATE, 'method': 'POST'}]),
]


def list_rules() -> list[policy.RuleDefault]:
    return rules
