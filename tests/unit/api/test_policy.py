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

"""The RBAC matrix: Heat's policy defaults, enforced by oslo.policy on real
request contexts (role set x rule x allowed)."""

import os

from oslo_config import cfg
from oslo_policy import policy as oslo_policy
import pytest

from swconfig import policies
from swconfig.api import policy
from swconfig.common import context as swconfig_context
from swconfig.common import exception

PROJECT = 'project-a'
OTHER_PROJECT = 'project-b'

ROLES = {
    'reader': ['reader'],
    'member': ['member', 'reader'],
    'admin': ['admin', 'member', 'reader'],
    'stack_user': ['heat_stack_user'],
    'no_role': [],
    'other_role': ['observer'],
}

R, M, A, SU, NONE, OTHER = ('reader', 'member', 'admin', 'stack_user',
                            'no_role', 'other_role')
READERS = {R, M, A}
MEMBERS = {M, A}

# rule -> the role sets allowed on their own project
MATRIX = {
    'software_configs:index': READERS,
    'software_configs:show': READERS,
    'software_configs:create': MEMBERS,
    'software_configs:delete': MEMBERS,
    'software_configs:global_index': set(),
    'software_configs:validate': READERS,
    'software_configs:input_check': READERS,
    'software_deployments:index': READERS,
    'software_deployments:show': READERS,
    'software_deployments:create': MEMBERS,
    'software_deployments:update': MEMBERS,
    'software_deployments:delete': MEMBERS,
    'software_deployments:signal': MEMBERS,
    'software_deployments:action': MEMBERS,
    'software_deployments:trigger': MEMBERS,
    'software_deployments:cancel': MEMBERS,
    'software_deployments:metadata': READERS | {SU},
    'servers:index': READERS,
    'servers:show': READERS,
    'servers:create': MEMBERS,
    'servers:delete': MEMBERS,
    'servers:agent_config': MEMBERS,
    'servers:update': MEMBERS,
    'server_groups:index': READERS,
    'server_groups:show': READERS,
    'server_groups:create': MEMBERS,
    'server_groups:update': MEMBERS,
    'server_groups:delete': MEMBERS,
    'rollouts:index': READERS,
    'rollouts:show': READERS,
    'rollouts:create': MEMBERS,
    'rollouts:cancel': MEMBERS,
}

CASES = [(rule, who, who in allowed)
         for rule, allowed in sorted(MATRIX.items())
         for who in ROLES]


@pytest.fixture
def conf():
    """A private ConfigOpts, so no policy file or override from elsewhere
    changes the defaults under test."""
    private = cfg.ConfigOpts()
    private([], project='swconfig-unit-test', default_config_files=[],
            default_config_dirs=[])
    policy.reset()
    policy.get_enforcer(private)
    yield private
    policy.reset()


def _context(who, project=PROJECT):
    return swconfig_context.RequestContext(
        project_id=project, user_id=f'user-{who}', roles=ROLES[who])


@pytest.mark.parametrize('rule, who, allowed', CASES,
                         ids=[f'{r}-{w}' for r, w, _ in CASES])
def test_own_project(conf, rule, who, allowed):
    context = _context(who)
    target = {'project_id': PROJECT}
    if allowed:
        assert policy.authorize(rule, target, context) is None
    else:
        with pytest.raises(exception.PolicyNotAuthorized) as info:
            policy.authorize(rule, target, context)
        assert info.value.code == 403
        assert info.value.type_name == 'Forbidden'
        assert info.value.message == f'You are not authorized to use {rule}.'


@pytest.mark.parametrize('rule', sorted(MATRIX))
@pytest.mark.parametrize('who', sorted(ROLES))
def test_another_project_is_always_denied(conf, rule, who):
    with pytest.raises(exception.PolicyNotAuthorized):
        policy.authorize(rule, {'project_id': OTHER_PROJECT},
                         _context(who))


def test_the_matrix_covers_every_resource_rule(conf):
    registered = set(policy.get_enforcer().registered_rules)
    resource_rules = {name for name in registered if ':' in name}
    assert resource_rules == set(MATRIX)


@pytest.mark.parametrize('who, is_admin', [
    (A, True), (M, False), (R, False), (SU, False), (NONE, False)])
def test_context_is_admin(conf, who, is_admin):
    assert policy.check_is_admin(_context(who)) is is_admin


def test_admin_of_a_non_admin_project_is_not_cloud_admin(conf):
    context = _context(A)
    context.is_admin_project = False
    assert policy.check_is_admin(context) is False


def test_deny_stack_user_rule(conf):
    enforcer = policy.get_enforcer()
    assert enforcer.enforce('deny_stack_user', {}, _context(R))
    assert not enforcer.enforce('deny_stack_user', {}, _context(SU))


@pytest.mark.filterwarnings('ignore:Policy .* was deprecated:UserWarning')
def test_legacy_defaults_still_deny_stack_users(conf):
    """With enforce_new_defaults off, Heat's pre-RBAC defaults
    (deny_stack_user) are OR'd in: any role may act, stack users may
    not."""
    conf.set_override('enforce_new_defaults', False, group='oslo_policy')
    target = {'project_id': PROJECT}
    assert policy.authorize('software_configs:create', target,
                            _context(OTHER)) is None
    with pytest.raises(exception.PolicyNotAuthorized):
        policy.authorize('software_configs:create', target, _context(SU))
    with pytest.raises(exception.PolicyNotAuthorized):
        policy.authorize('software_configs:global_index', target,
                         _context(A))


def test_enforcer_is_cached_and_reset(conf):
    first = policy.get_enforcer()
    assert policy.get_enforcer() is first
    policy.reset()
    assert policy.get_enforcer(conf) is not first


def _enforcer_with_policy_file(tmp_path, clock, rule_text):
    """An enforcer on a private ConfigOpts whose policy file, in
    ``tmp_path``, says ``rule_text`` for software_configs:index."""
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text(f'"software_configs:index": "{rule_text}"\n')
    private = cfg.ConfigOpts()
    private([], project='swconfig-unit-test', default_config_files=[],
            default_config_dirs=[])
    enforcer = policy.Enforcer(private, clock=clock,
                               policy_file=str(policy_file))
    enforcer.register_defaults(policies.list_rules())
    return enforcer, policy_file


def test_policy_files_are_looked_for_once_per_interval(tmp_path,
                                                       monkeypatch):
    """Checks between two looks read no file system (each look is a
    dozen ``stat`` calls); a changed file is seen at the first check
    after ``RELOAD_INTERVAL``."""
    now = [100.0]
    enforcer, policy_file = _enforcer_with_policy_file(
        tmp_path, lambda: now[0], '!')
    looks = []
    real = enforcer._get_policy_path
    monkeypatch.setattr(enforcer, '_get_policy_path',
                        lambda path: looks.append(path) or real(path))
    target = {'project_id': PROJECT}
    creds = _context(R)
    for _ in range(5):
        assert not enforcer.enforce('software_configs:index', target, creds)
    first = len(looks)
    assert first >= 1
    policy_file.write_text('"software_configs:index": "@"\n')
    later = os.path.getmtime(policy_file) + 10  # a newer mtime, however
    os.utime(policy_file, (later, later))      # soon after it was written
    now[0] += enforcer.RELOAD_INTERVAL - 0.01
    assert not enforcer.enforce('software_configs:index', target, creds)
    assert len(looks) == first
    now[0] += 0.01
    assert enforcer.enforce('software_configs:index', target, creds)
    assert len(looks) > first
    assert enforcer.RELOAD_INTERVAL <= 1.0  # as policy.rst promises


def test_a_changed_policy_file_retires_kept_decisions(tmp_path,
                                                      monkeypatch):
    """Kept decisions are reused between looks, and none made under the
    old rules once a look loaded a changed file, long before
    ``Decisions.LIFETIME``."""
    now = [100.0]
    enforcer, policy_file = _enforcer_with_policy_file(
        tmp_path, lambda: now[0], '@')
    monkeypatch.setattr(policy, '_ENFORCER', enforcer)
    target = {'project_id': PROJECT}
    generation = enforcer.rules_generation()
    policy.authorize('software_configs:index', target, _context(R))
    key = policy._key('software_configs:index', target, _context(R))
    assert enforcer.decisions.get(key, generation) is True
    policy_file.write_text('"software_configs:index": "!"\n')
    later = os.path.getmtime(policy_file) + 10
    os.utime(policy_file, (later, later))
    now[0] += enforcer.RELOAD_INTERVAL - 0.01  # no look yet: still kept
    policy.authorize('software_configs:index', target, _context(R))
    assert enforcer.rules_generation() == generation
    now[0] += 0.01
    assert enforcer.rules_generation() != generation
    assert enforcer.decisions.get(key, enforcer.rules_generation()) is None
    with pytest.raises(exception.PolicyNotAuthorized):
        policy.authorize('software_configs:index', target, _context(R))


def test_rules_set_anew_make_a_new_generation(tmp_path):
    enforcer, _ = _enforcer_with_policy_file(tmp_path, lambda: 100.0, '@')
    enforcer.load_rules()
    before = enforcer.generation
    enforcer.load_rules(force_reload=False)  # the same file: same rules
    assert enforcer.generation == before
    enforcer.load_rules(force_reload=True)  # read again, set anew
    forced = enforcer.generation
    assert forced > before
    enforcer.set_rules({}, overwrite=False)
    assert enforcer.generation > forced


def test_a_forced_reload_always_looks(tmp_path):
    enforcer, policy_file = _enforcer_with_policy_file(
        tmp_path, lambda: 100.0, '!')
    creds = _context(R)
    assert not enforcer.enforce('software_configs:index', {}, creds)
    policy_file.write_text('"software_configs:index": "@"\n')
    enforcer.load_rules(force_reload=True)
    assert enforcer.enforce('software_configs:index', {}, creds)


def test_decisions_last_their_lifetime_and_are_bounded():
    now = [100.0]
    decisions = policy.Decisions(clock=lambda: now[0])
    decisions.put(('p', 'u'), 7, True)
    assert decisions.get(('p', 'u'), 7) is True
    assert decisions.get(('p', 'u'), 8) is None  # other rules
    assert decisions.get(('p', 'v'), 7) is None
    now[0] += decisions.LIFETIME - 0.01
    assert decisions.get(('p', 'u'), 7) is True
    now[0] += 0.01
    assert decisions.get(('p', 'u'), 7) is None
    for number in range(decisions.SIZE + 1):
        decisions.put(('p', str(number)), 7, False)
    assert decisions.get(('p', '0'), 7) is None
    assert decisions.get(('p', str(decisions.SIZE)), 7) is False


def _count_oslo_decisions(monkeypatch) -> list:
    """The decisions oslo.policy itself makes (the enforcer's are kept
    in front of it), as (rule, project, roles)."""
    decided = []
    real = oslo_policy.Enforcer.enforce

    def counting(self, rule, target, creds, *args, **kwargs):
        decided.append((rule, creds.project_id, tuple(creds.roles)))
        return real(self, rule, target, creds, *args, **kwargs)

    monkeypatch.setattr(oslo_policy.Enforcer, 'enforce', counting)
    return decided


def test_a_reused_decision_is_only_the_same_callers(conf, monkeypatch):
    """Decisions are reused for the same rule, target and credentials:
    another role set, project or target is decided by oslo.policy, and
    a refusal is raised every time."""
    decided = _count_oslo_decisions(monkeypatch)
    target = {'project_id': PROJECT}
    for _ in range(3):
        policy.authorize('software_configs:create', target, _context(M))
    assert len(decided) == 1
    policy.authorize('software_configs:create', target, _context(A))
    policy.authorize('software_configs:create',
                     {'project_id': OTHER_PROJECT},
                     _context(M, project=OTHER_PROJECT))
    assert len(decided) == 3
    for _ in range(2):
        with pytest.raises(exception.PolicyNotAuthorized):
            policy.authorize('software_configs:create', target, _context(R))
    assert len(decided) == 5


def test_admin_ness_is_reused_and_reset_forgets_it(conf, monkeypatch):
    assert policy.check_is_admin(_context(A)) is True
    assert policy.check_is_admin(_context(M)) is False
    decided = _count_oslo_decisions(monkeypatch)
    assert policy.check_is_admin(_context(A)) is True
    assert policy.check_is_admin(_context(M)) is False
    assert decided == []
    policy.reset()
    policy.get_enforcer(conf)  # a new enforcer, which decides again
    assert policy.check_is_admin(_context(A)) is True
    assert len(decided) == 1


def test_a_contexts_credentials_are_read_once(conf):
    """A request's admin-ness and its rule are keyed by the same
    credentials, read from the context once (oslo.policy reads them too
    when it decides: the decisions are made first)."""
    context = _context(M)
    credentials = policy._credentials(context)
    context.roles = ['admin']
    assert policy._credentials(context) is credentials


def test_credentials_hold_every_policy_value(conf):
    """The decisions' key is what oslo.policy's checks see: every value
    of the context's to_policy_values, each one telling callers apart."""
    context = _context(M)
    values = context.to_policy_values()
    scalars = swconfig_context.POLICY_SCALARS
    assert set(values) == {*scalars, 'roles', 'service_roles'}
    assert policy._credentials(context) == (
        *(values[name] for name in scalars),
        tuple(values['roles']), tuple(values['service_roles']))
    seen = {policy._credentials(context)}
    for name in values:
        other = _context(M)
        setattr(other, name, ['changed'] if name.endswith('roles')
                else 'changed')
        seen.add(policy._credentials(other))
    assert len(seen) == len(values) + 1


def test_the_access_check_reuses_only_the_same_callers_decisions(
        conf, monkeypatch):
    """``access.check``, every request's checks: the same caller's
    decisions are not made again within the decisions' lifetime, another
    role set or project is decided, a refusal raises every time, and
    ``reset`` forgets what was kept."""
    from swconfig.api import access

    decided = _count_oslo_decisions(monkeypatch)

    def environ(who, project=PROJECT):
        return {'HTTP_X_PROJECT_ID': project, 'HTTP_X_USER_ID': f'u-{who}',
                'HTTP_X_ROLES': ','.join(ROLES[who]),
                'openstack.request_id': f'req-{len(decided)}'}

    rule = 'software_deployments:metadata'
    for _ in range(3):
        context, tenant = access.check(environ(M), PROJECT, rule)
        assert (context.is_admin, context.project_id, tenant) == (
            False, PROJECT, PROJECT)
    assert len(decided) == 2  # admin-ness, then the rule
    context, _ = access.check(environ(A), PROJECT, rule)
    assert context.is_admin
    assert len(decided) == 4
    for _ in range(2):
        with pytest.raises(exception.TenantMismatch):
            access.check(environ(M), OTHER_PROJECT, rule)
    for _ in range(2):
        with pytest.raises(exception.PolicyNotAuthorized):
            access.check(environ(R), PROJECT, 'software_configs:create')
    assert len(decided) == 7  # R's admin-ness once; its refusal each time
    policy.reset()
    policy.get_enforcer(conf)
    access.check(environ(M), PROJECT, rule)
    assert len(decided) == 9


def test_the_enforcer_is_published_with_all_its_rules(conf, monkeypatch):
    """The first requests of a worker arrive together: none may find the
    enforcer before its rules are registered (oslo.policy then raises
    PolicyNotRegistered, a 500)."""
    from swconfig import policies

    real = policies.list_rules
    seen_while_building = []

    def registering():
        for position, rule in enumerate(real()):
            if position == 1:
                seen_while_building.append(policy._ENFORCER)
            yield rule

    policy.reset()
    monkeypatch.setattr(policies, 'list_rules', registering)
    enforcer = policy.get_enforcer(conf)
    assert seen_while_building == [None]
    assert policy.get_enforcer(conf) is enforcer
    assert len(enforcer.registered_rules) == len(list(real()))
