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

"""Base rules and the check strings the resource rules are built from."""

from oslo_log import versionutils
from oslo_policy import policy

PROJECT_READER = 'role:reader and project_id:%(project_id)s'
PROJECT_MEMBER = 'role:member and project_id:%(project_id)s'
DENY_STACK_USER = 'rule:deny_stack_user'

rules = [
    policy.RuleDefault(
        'context_is_admin', 'role:admin and is_admin_project:True',
        description='Decides who is a cloud admin: admins see and act on '
                    'every project\'s objects.'),
    policy.RuleDefault(
        'project_admin', 'role:admin',
        description='Admin of the project in the request.'),
    policy.RuleDefault(
        'deny_stack_user', 'not role:heat_stack_user',
        description='Denies the in-instance stack users of Heat.'),
    policy.RuleDefault(
        'deny_everybody', '!', description='Denies everybody.'),
    policy.RuleDefault(
        'allow_everybody', '', description='Allows everybody.'),
]


def list_rules() -> list[policy.RuleDefault]:
    return rules


DEPRECATED_REASON = ('swconfig follows Heat in requiring the reader role '
                     'for reads and the member role for writes.')


def project_rule(name: str, check_str: str, description: str,
                 operations: list[dict]) -> policy.DocumentedRuleDefault:
    """A project-scoped rule that still honours Heat's pre-RBAC default
    (``deny_stack_user``) while ``enforce_new_defaults`` is off."""
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=operations, scope_types=['project'],
        deprecated_rule=policy.DeprecatedRule(
            name=name, check_str=DENY_STACK_USER,
            deprecated_reason=DEPRECATED_REASON,
            deprecated_since=versionutils.deprecated.WALLABY))
