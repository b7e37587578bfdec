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

"""The request context: enginefacade-aware, admin-ness carried along."""

from oslo_context import context as oslo_context
import pytest

from swconfig.common import context as swconfig_context


def test_admin_context_sees_every_project():
    context = swconfig_context.get_admin_context()
    assert context.is_admin is True
    assert context.project_id is None


def test_from_dict_keeps_is_admin():
    values = swconfig_context.RequestContext(
        project_id='p1', roles=['reader'], is_admin=True).to_dict()
    assert swconfig_context.RequestContext.from_dict(values).is_admin
    values['is_admin'] = False
    assert not swconfig_context.RequestContext.from_dict(values).is_admin


def test_from_dict_without_is_admin_is_not_admin():
    values = swconfig_context.RequestContext(project_id='p1').to_dict()
    del values['is_admin']
    assert swconfig_context.RequestContext.from_dict(values).is_admin is False


def test_admin_context_does_not_replace_the_thread_local_context():
    from oslo_context import context as oslo_context
    before = oslo_context.get_current()
    swconfig_context.get_admin_context()
    assert oslo_context.get_current() is before


@pytest.mark.parametrize('deadline', [None, 1700000000.25])
def test_rpc_deadline_crosses_rpc(deadline):
    values = swconfig_context.RequestContext(
        project_id='p1', rpc_deadline=deadline).to_dict()
    assert swconfig_context.RequestContext.from_dict(values).rpc_deadline == (
        deadline)


def _oslo_from_environ(environ, **kwargs):
    """oslo.context's own from_environ, building our class."""
    base = oslo_context.RequestContext.from_environ.__func__
    return base(swconfig_context.RequestContext, environ, **kwargs)


_IDENTITY = {
    'HTTP_X_AUTH_TOKEN': 'token', 'HTTP_X_USER_ID': 'u1',
    'HTTP_X_USER_NAME': 'alice', 'HTTP_X_PROJECT_ID': 'p1',
    'HTTP_X_PROJECT_NAME': 'demo', 'HTTP_X_USER_DOMAIN_ID': 'default',
    'HTTP_X_PROJECT_DOMAIN_ID': 'default', 'HTTP_X_ROLES': 'member, reader',
    'openstack.request_id': 'req-1',
    'openstack.global_request_id': 'req-g',
    'HTTP_X_SERVICE_TOKEN': 'st', 'HTTP_X_SERVICE_USER_ID': 'su',
    'HTTP_X_SERVICE_ROLES': 'service', 'HTTP_X_IS_ADMIN_PROJECT': 'False',
    'HTTP_OPENSTACK_SYSTEM_SCOPE': 'all', 'PATH_INFO': '/v1/p1/x',
}


@pytest.mark.parametrize('environ', [
    _IDENTITY,
    {'openstack.request_id': 'req-2'},
    # Older spellings, alone and beside the preferred ones.
    {'HTTP_X_TENANT_ID': 't1', 'HTTP_X_TENANT': 't2', 'HTTP_X_USER': 'u',
     'HTTP_X_ROLE': 'admin', 'HTTP_X_TENANT_NAME': 'tn',
     'HTTP_X_STORAGE_TOKEN': 's', 'openstack.request_id': 'req-3'},
    {'HTTP_X_PROJECT_ID': 'p', 'HTTP_X_TENANT_ID': 't', 'HTTP_X_TENANT': 'x',
     'HTTP_X_ROLES': '', 'HTTP_X_ROLE': 'ignored',
     'HTTP_X_IS_ADMIN_PROJECT': 'TRUE', 'openstack.request_id': 'req-4'},
    {'HTTP_X_TENANT': 'only', 'HTTP_X_PROJECT_NAME': 'n',
     'HTTP_X_TENANT_NAME': 'm', 'openstack.request_id': 'req-5'},
], ids=['keystone', 'nothing', 'old-spellings', 'both-spellings', 'tenant'])
def test_from_environ_is_oslo_contexts(environ):
    ours = swconfig_context.RequestContext.from_environ(environ)
    theirs = _oslo_from_environ(environ)
    assert ours.to_dict() == theirs.to_dict()
    assert ours.service_roles == theirs.service_roles
    assert ours.is_admin_project == theirs.is_admin_project


def test_from_environ_keyword_arguments_win():
    kwargs = {'project_id': 'kw', 'roles': ['r'], 'is_admin_project': True,
              'service_roles': ['s'], 'request_id': 'req-kw'}
    ours = swconfig_context.RequestContext.from_environ(_IDENTITY, **kwargs)
    theirs = _oslo_from_environ(_IDENTITY, **kwargs)
    assert ours.to_dict() == theirs.to_dict()
    assert ours.project_id == 'kw'


def test_from_environ_reads_every_key_oslo_context_reads():
    """Fails when oslo.context learns a header this module does not
    know (its table is private, so it is only compared here)."""
    theirs = oslo_context._ENVIRON_HEADERS
    ours = swconfig_context._ENVIRON_KEYS
    assert {name: tuple(keys) for name, keys in theirs.items()} == ours


#: Every environ key oslo.context's own ``from_environ`` reads: its header
#: table and the role and admin-project headers it reads by name.
_OSLO_READS = sorted({key for keys in oslo_context._ENVIRON_HEADERS.values()
                      for key in keys} | {
    'HTTP_X_ROLES', 'HTTP_X_ROLE', 'HTTP_X_SERVICE_ROLES',
    'HTTP_X_IS_ADMIN_PROJECT'})


@pytest.mark.parametrize('base', [_IDENTITY, {}], ids=['keystone', 'bare'])
@pytest.mark.parametrize('key', _OSLO_READS)
def test_every_credential_header_is_part_of_the_identity(key, base):
    """A header that changes oslo.context's policy credentials changes
    the identity: decisions kept by identity are the context's."""
    scalars = swconfig_context.POLICY_SCALARS

    def credentials(environ):
        context = _oslo_from_environ(environ)
        return (*(getattr(context, name) for name in scalars),
                context.roles, context.service_roles)

    changed = dict(base, **{key: 'True' if key.endswith(
        'ADMIN_PROJECT') and base else 'changed'})
    if credentials(changed) != credentials(base):
        assert swconfig_context.identity(changed) != (
            swconfig_context.identity(base)), key


def test_the_identity_leaves_out_request_ids_tokens_and_names():
    """No policy check sees them: a key of fewer parts is cheaper to
    make, hash and compare on every tenant read."""
    other = dict(_IDENTITY, **{'HTTP_X_AUTH_TOKEN': 'another',
                               'HTTP_X_SERVICE_TOKEN': 'another',
                               'openstack.request_id': 'req-9',
                               'openstack.global_request_id': 'req-h',
                               'HTTP_X_USER_NAME': 'another',
                               'HTTP_X_PROJECT_NAME': 'another',
                               'HTTP_X_SERVICE_USER_NAME': 'another',
                               'PATH_INFO': '/elsewhere'})
    assert swconfig_context.identity(other) == swconfig_context.identity(
        _IDENTITY)
    # Every header from_environ reads for the credentials is a part.
    policy_keys = {key for key, (name, _) in swconfig_context._BY_KEY.items()
                   if name in swconfig_context.POLICY_SCALARS}
    assert policy_keys <= swconfig_context._IDENTITY_KEYS
    assert not any('NAME' in key for key in swconfig_context._IDENTITY_KEYS)
    # The older spellings too: they count when the newer is absent.
    alone = {'HTTP_X_TENANT': 'only'}
    assert swconfig_context.identity(alone) != swconfig_context.identity(
        {'HTTP_X_TENANT': 'other'})
