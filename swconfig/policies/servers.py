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

"""Rules for /servers: server registration, labels and agent bootstrap."""

from oslo_policy import policy

from swconfig.common import urls
from swconfig.policies import base

_rule = base.project_rule

rules = [
    _rule('servers:index', base.PROJECT_READER,
          'List the servers registered to the project.',
          [{'path': urls.SERVERS, 'method': 'GET'}]),
    _rule('servers:show', base.PROJECT_READER,
          'Show a server registered to the project.',
          [{'path': urls.SERVER, 'method': 'GET'}]),
    _rule('servers:create', base.PROJECT_MEMBER,
          'Register a server to the project.',
          [{'path': urls.SERVERS, 'method': 'POST'}]),
    _rule('servers:update', base.PROJECT_MEMBER,
          "Set a server's labels; registers the server to the project if "
          'it is new.',
          [{'path': urls.SERVER, 'method': 'PUT'}]),
    _rule('servers:delete', base.PROJECT_MEMBER,
          'Unregister a server (it must have no deployments).',
          [{'path': urls.SERVER, 'method': 'DELETE'}]),
    _rule('servers:agent_config', base.PROJECT_MEMBER,
          'Get the agent bootstrap settings of a server (they hold its '
          'signed metadata URL); claims the server for the project.',
          [{'path': urls.SERVER_AGENT_CONFIG, 'method': 'GET'}]),
]


def list_rules() -> list[policy.RuleDefault]:
    return rules
