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

"""Rules for /rollouts: reading them needs the reader role, creating and
cancelling them the member role (as for deployments)."""

from oslo_policy import policy

from swconfig.common import urls
from swconfig.policies import base

_rule = base.project_rule

rules = [
    _rule('rollouts:index', base.PROJECT_READER,
          "List the project's rollouts.",
          [{'path': urls.ROLLOUTS, 'method': 'GET'}]),
    _rule('rollouts:show', base.PROJECT_READER,
          'Show a rollout, its targets and its events.',
          [{'path': urls.ROLLOUT, 'method': 'GET'},
           {'path': urls.ROLLOUT_TARGETS, 'method': 'GET'},
           {'path': urls.ROLLOUT_EVENTS, 'method': 'GET'}]),
    _rule('rollouts:create', base.PROJECT_MEMBER,
          'Create a rollout.',
          [{'path': urls.ROLLOUTS, 'method': 'POST'}]),
    _rule('rollouts:cancel', base.PROJECT_MEMBER,
          'Cancel a rollout.',
          [{'path': urls.ROLLOUT_CANCEL, 'method': 'POST'}]),
]


def list_rules() -> list[policy.RuleDefault]:
    return rules
