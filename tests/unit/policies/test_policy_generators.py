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

"""oslo.policy's generators on swconfig's policy, and operator overrides.

``oslopolicy-sample-generator`` and ``oslopolicy-policy-generator`` run as
the real console scripts (next to this interpreter) through swconfig's
``oslo.policy.policies`` / ``oslo.policy.enforcer`` entry points; the
sample they write must load and match the defaults in code, and a rule
overridden in a ``policy.yaml`` named by ``[oslo_policy] policy_file`` must
win over its default.
"""

import os
import pathlib
import subprocess

from oslo_config import cfg
import pytest
import yaml

from swconfig import policies
from swconfig.api import policy
from swconfig.common import context as swconfig_context
from swconfig.common import exception
from tests.fixtures import processes

ROOT = pathlib.Path(__file__).resolve().parents[3]
DEFAULTS = {rule.name: rule.check_str for rule in policies.list_rules()}
PROJECT = 'project-a'
ADMIN_ONLY = 'role:admin and project_id:%(project_id)s'


def _generate(tmp_path: pathlib.Path, script: str, *args: str) -> str:
    output = tmp_path / f'{script}.yaml'
    result = subprocess.run(
        [processes.script(script), *args, '--output-file', str(output)],
        capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return output.read_text()


def _uncommented(sample: str) -> dict:
    """The sample's rules: every rule line is commented out as ``#"``."""
    lines = [line[1:] for line in sample.splitlines()
             if line.startswith('#"')]
    return yaml.safe_load('\n'.join(lines))


def _context(*roles: str) -> swconfig_context.RequestContext:
    return swconfig_context.RequestContext(
        project_id=PROJECT, user_id='user', roles=list(roles))


@pytest.fixture
def enforcer_conf(tmp_path):
    """``conf(policy_text)``: a private ConfigOpts parsed from a swconfig
    config file whose ``[oslo_policy] policy_file`` holds ``policy_text``,
    with swconfig's enforcer built on it."""
    def make(policy_text: str | None) -> cfg.ConfigOpts:
        sections = {}
        if policy_text is not None:
            policy_file = tmp_path / 'policy.yaml'
            policy_file.write_text(policy_text)
            sections['oslo_policy'] = {'policy_file': str(policy_file)}
        config_file = processes.write_config(
            str(tmp_path / 'swconfig.conf'), sections)
        conf = cfg.ConfigOpts()
        conf(['--config-file', config_file], project='swconfig-unit-test',
             default_config_files=[], default_config_dirs=[])
        policy.reset()
        policy.get_enforcer(conf)
        return conf

    yield make
    policy.reset()


# -- the sample ---------------------------------------------------------------

def test_sample_generator_writes_every_default(tmp_path):
    sample = _generate(tmp_path, 'oslopolicy-sample-generator',
                       '--namespace', 'swconfig')
    assert _uncommented(sample) == DEFAULTS
    for rule in policies.list_rules():
        assert rule.description.split('\n')[0][:40] in ' '.join(
            line.lstrip('# ') for line in sample.splitlines())
        for operation in getattr(rule, 'operations', []):
            assert (f'# {operation["method"]}  {operation["path"]}'
                    in sample), rule.name
    assert sample.count('# Intended scope(s): project') == len(
        [rule for rule in policies.list_rules() if rule.scope_types])
    # The pre-RBAC defaults are documented as deprecated.
    assert ('"software_configs:create":"rule:deny_stack_user" has been '
            'deprecated') in sample


def test_tox_genpolicy_config_generates_the_same_sample(tmp_path):
    """What ``tox -e genpolicy`` runs."""
    via_config = _generate(
        tmp_path, 'oslopolicy-sample-generator', '--config-file',
        str(ROOT / 'etc' / 'swconfig' / 'swconfig-policy-generator.conf'))
    assert _uncommented(via_config) == DEFAULTS


def test_uncommented_sample_is_a_valid_policy_file(tmp_path, enforcer_conf):
    sample = _generate(tmp_path, 'oslopolicy-sample-generator',
                       '--namespace', 'swconfig')
    lines = [line[1:] if line.startswith('#"') else line
             for line in sample.splitlines()]
    enforcer_conf('\n'.join(lines))
    enforcer = policy.get_enforcer()
    enforcer.load_rules()
    assert enforcer.check_rules(raise_on_violation=True) is True
    assert {name: rule.check_str
            for name, rule in enforcer.file_rules.items()} == DEFAULTS
    target = {'project_id': PROJECT}
    assert policy.authorize('software_configs:create', target,
                            _context('member', 'reader')) is None
    with pytest.raises(exception.PolicyNotAuthorized):
        policy.authorize('software_configs:create', target,
                         _context('reader'))


# -- the effective policy -----------------------------------------------------

def test_policy_generator_prints_the_defaults(tmp_path):
    effective = yaml.safe_load(_generate(
        tmp_path, 'oslopolicy-policy-generator', '--namespace', 'swconfig'))
    assert effective == DEFAULTS


def test_policy_generator_merges_the_operators_policy_file(tmp_path):
    policy_file = tmp_path / 'override.yaml'
    policy_file.write_text(f'"software_configs:index": "{ADMIN_ONLY}"\n')
    config_file = processes.write_config(
        str(tmp_path / 'swconfig.conf'),
        {'oslo_policy': {'policy_file': str(policy_file)}})
    effective = yaml.safe_load(_generate(
        tmp_path, 'oslopolicy-policy-generator', '--namespace', 'swconfig',
        '--config-file', config_file))
    assert effective == dict(DEFAULTS, **{
        'software_configs:index': ADMIN_ONLY})


# -- overrides in the enforcer ------------------------------------------------

def test_policy_yaml_override_is_honoured(enforcer_conf):
    conf = enforcer_conf(f'"software_configs:index": "{ADMIN_ONLY}"\n')
    assert conf.oslo_policy.policy_file.endswith('policy.yaml')
    target = {'project_id': PROJECT}
    member = _context('member', 'reader')
    admin = _context('admin', 'member', 'reader')
    with pytest.raises(exception.PolicyNotAuthorized) as info:
        policy.authorize('software_configs:index', target, member)
    assert info.value.message == (
        'You are not authorized to use software_configs:index.')
    assert policy.authorize('software_configs:index', target, admin) is None
    # Every other rule keeps its default.
    assert policy.authorize('software_configs:show', target, member) is None
    assert policy.authorize('software_configs:create', target,
                            member) is None
    with pytest.raises(exception.PolicyNotAuthorized):
        policy.authorize('software_configs:create', target,
                         _context('reader'))


def test_without_a_policy_file_the_defaults_apply(enforcer_conf):
    enforcer_conf(None)
    target = {'project_id': PROJECT}
    assert policy.authorize('software_configs:index', target,
                            _context('reader')) is None
    assert not os.path.exists(policy.get_enforcer().policy_path or '')


def test_override_can_open_global_index_to_cloud_admins(enforcer_conf):
    """The operator's way to allow the all-projects listing Heat denies by
    default."""
    enforcer_conf('"software_configs:global_index": '
                  '"rule:context_is_admin"\n')
    target = {'project_id': PROJECT}
    admin = _context('admin', 'member', 'reader')
    admin.is_admin_project = True
    assert policy.authorize('software_configs:global_index', target,
                            admin) is None
    with pytest.raises(exception.PolicyNotAuthorized):
        policy.authorize('software_configs:global_index', target,
                         _context('member', 'reader'))
