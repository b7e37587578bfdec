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

"""Rules for /server_groups: reading groups needs the reader role,
changing them the member role (as for servers)."""

from oslo_policy import policy

from swconfig.common import urls
from swconfig.policies import base

_rule = base.project_rule

rules = [
    _rule('server_groups:index', base.PROJECT_READER,
          "List the project's server groups.",
          [{'path': urls.SERVER_GROUPS, 'method': 'GET'}]),
    _rule('server_groups:show', base.PROJECT_READER,
          'Show a server group and the servers it holds now.',
          [{'path': urls.SERVER_GROUP, 'method': 'GET'}]),
    _rule('server_groups:create', base.PROJECT_MEMBER,
          'Create a server group.',
          [{'path': urls.SERVER_GROUPS, 'method': 'POST'}]),
    _rule('server_groups:update', base.PROJECT_MEMBER,
          "Change a server group's name, servers or selector.",
          [{'path': urls.SERVER_GROUP, 'method': 'PUT'}]),
    _rule('server_groups:delete', base.PROJECT_MEMBER,
          'Delete a server group.',
          [{'path': urls.SERVER_GROUP, 'method': 'DELETE'}]),
]


def list_rules() -> list[policy.RuleDefault]:
    return rules
