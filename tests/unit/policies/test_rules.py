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

"""Policy in code: every rule registered, documented and well-formed."""

import ast
from importlib import metadata
import pathlib

from oslo_config import cfg
from oslo_policy import policy as oslo_policy
import pytest

import swconfig
from swconfig import policies
from swconfig.api import policy
from swconfig.api import routes

CONTROLLERS = pathlib.Path(swconfig.__file__).parent / 'api' / 'controllers'
HEAT_RULES = {
    'software_configs:index', 'software_configs:global_index',
    'software_configs:create', 'software_configs:show',
    'software_configs:delete',
    'software_deployments:index', 'software_deployments:metadata',
    'software_deployments:create', 'software_deployments:show',
    'software_deployments:update', 'software_deployments:delete',
}
BASE_RULES = {'context_is_admin', 'deny_stack_user', 'deny_everybody'}
RULES = policies.list_rules()
DOCUMENTED = [rule for rule in RULES
              if isinstance(rule, oslo_policy.DocumentedRuleDefault)]


def _names_authorized_by_controllers():
    """The rules of the route table, and those a handler enforces on top
    (``access.enforce('rule', ...)``)."""
    names = {route.rule for route in routes.ROUTES if route.rule}
    for path in CONTROLLERS.rglob('*.py'):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call)
                    and getattr(node.func, 'attr',
                                getattr(node.func, 'id', None)) == 'enforce'
                    and node.args
                    and isinstance(node.args[0], ast.Constant)):
                names.add(node.args[0].value)
    return names


def test_rule_names_are_unique():
    names = [rule.name for rule in RULES]
    assert len(names) == len(set(names))


def test_heats_rule_names_and_the_base_rules_are_registered():
    assert HEAT_RULES | BASE_RULES <= {rule.name for rule in RULES}


def test_every_rule_the_api_checks_is_registered():
    used = _names_authorized_by_controllers()
    assert 'software_configs:create' in used  # the scan itself works
    assert used <= {rule.name for rule in RULES}


def test_every_resource_rule_is_documented():
    resource_rules = {rule.name for rule in RULES if ':' in rule.name}
    assert resource_rules == {rule.name for rule in DOCUMENTED}


@pytest.mark.parametrize('rule', DOCUMENTED, ids=lambda rule: rule.name)
def test_documented_rule_is_complete(rule):
    assert rule.description.strip()
    assert rule.scope_types == ['project']
    assert rule.operations
    for operation in rule.operations:
        assert operation['path'].startswith('/v1/{tenant_id}/')
        assert operation['method'] in ('GET', 'POST', 'PUT', 'DELETE',
                                       'PATCH')


@pytest.mark.parametrize('rule', RULES, ids=lambda rule: rule.name)
def test_every_rule_has_a_description(rule):
    assert rule.description and rule.description.strip()


def test_rules_reference_only_registered_rules():
    conf = cfg.ConfigOpts()
    conf([], project='swconfig-unit-test', default_config_files=[],
         default_config_dirs=[])
    enforcer = oslo_policy.Enforcer(conf)
    enforcer.register_defaults(RULES)
    enforcer.load_rules()
    assert enforcer.check_rules(raise_on_violation=True) is True


def _entry_point(group):
    (entry_point,) = [ep for ep in metadata.entry_points(group=group)
                      if ep.name == 'swconfig']
    return entry_point.load()


def test_policy_entry_points():
    assert _entry_point('oslo.policy.policies') is policies.list_rules
    assert _entry_point('oslo.policy.enforcer') is policy.get_enforcer
