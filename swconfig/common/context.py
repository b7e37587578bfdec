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

"""The request context that travels from the API through RPC to the DB."""

from typing import Any

from oslo_context import context
from oslo_db.sqlalchemy import enginefacade

#: The request's identity as keystonemiddleware's auth_token (or noauth)
#: leaves it in the WSGI environ, by context attribute: the environ keys,
#: the preferred first (the later ones are older spellings).
_ENVIRON_KEYS: dict[str, tuple[str, ...]] = {
    'auth_token': ('HTTP_X_AUTH_TOKEN', 'HTTP_X_STORAGE_TOKEN'),
    'user_id': ('HTTP_X_USER_ID', 'HTTP_X_USER'),
    'project_id': ('HTTP_X_PROJECT_ID', 'HTTP_X_TENANT_ID',
                   'HTTP_X_TENANT'),
    'domain_id': ('HTTP_X_DOMAIN_ID',),
    'domain_name': ('HTTP_X_DOMAIN_NAME',),
    'system_scope': ('HTTP_OPENSTACK_SYSTEM_SCOPE',),
    'user_domain_id': ('HTTP_X_USER_DOMAIN_ID',),
    'project_domain_id': ('HTTP_X_PROJECT_DOMAIN_ID',),
    'user_name': ('HTTP_X_USER_NAME',),
    'project_name': ('HTTP_X_PROJECT_NAME', 'HTTP_X_TENANT_NAME'),
    'user_domain_name': ('HTTP_X_USER_DOMAIN_NAME',),
    'project_domain_name': ('HTTP_X_PROJECT_DOMAIN_NAME',),
    'request_id': ('openstack.request_id',),
    'global_request_id': ('openstack.global_request_id',),
    'service_token': ('HTTP_X_SERVICE_TOKEN',),
    'service_user_id': ('HTTP_X_SERVICE_USER_ID',),
    'service_user_name': ('HTTP_X_SERVICE_USER_NAME',),
    'service_user_domain_id': ('HTTP_X_SERVICE_USER_DOMAIN_ID',),
    'service_user_domain_name': ('HTTP_X_SERVICE_USER_DOMAIN_NAME',),
    'service_project_id': ('HTTP_X_SERVICE_PROJECT_ID',),
    'service_project_name': ('HTTP_X_SERVICE_PROJECT_NAME',),
    'service_project_domain_id': ('HTTP_X_SERVICE_PROJECT_DOMAIN_ID',),
    'service_project_domain_name': (
        'HTTP_X_SERVICE_PROJECT_DOMAIN_NAME',),
}
#: Each environ key: its attribute and the keys preferred to it.
_BY_KEY: dict[str, tuple[str, tuple[str, ...]]] = {
    key: (name, keys[:position])
    for name, keys in _ENVIRON_KEYS.items()
    for position, key in enumerate(keys)}
_KEYS = frozenset(_BY_KEY)
#: The environ keys ``from_environ`` reads besides ``_ENVIRON_KEYS``.
_ROLES = 'HTTP_X_ROLES'
_ROLE = 'HTTP_X_ROLE'  # the older spelling
_SERVICE_ROLES = 'HTTP_X_SERVICE_ROLES'
_IS_ADMIN_PROJECT = 'HTTP_X_IS_ADMIN_PROJECT'
#: What oslo.context's ``to_policy_values`` reads from a context besides
#: the two role lists (``roles``, ``service_roles``): the credentials
#: oslo.policy's checks see (tests/unit/api/test_policy.py holds the two
#: lists equal). Names are not among them: no check sees a name.
POLICY_SCALARS = ('user_id', 'user_domain_id', 'system_scope', 'domain_id',
                  'project_id', 'project_domain_id', 'is_admin_project',
                  'service_user_id', 'service_user_domain_id',
                  'service_project_id', 'service_project_domain_id')
#: The environ keys ``from_environ`` makes the caller's credentials of:
#: those of the policy attributes, older spellings included, and the
#: role and admin-project headers.
_IDENTITY_KEYS = frozenset(
    key for key, (name, _) in _BY_KEY.items()
    if name in POLICY_SCALARS) | {
    _ROLES, _ROLE, _SERVICE_ROLES, _IS_ADMIN_PROJECT}
#: ``_IDENTITY_KEYS`` in a fixed order, the order of an identity's values.
_IDENTITY_ORDER = tuple(sorted(_IDENTITY_KEYS))


def identity(environ: dict[str, Any]) -> tuple:
    """The caller's credential headers' values (None for each one
    absent), hashable: requests with equal identities get contexts from
    ``from_environ`` with equal policy credentials, and so the same
    policy decisions. Looked up by C code alone: a third less than
    collecting the headers present."""
    return tuple(map(environ.get, _IDENTITY_ORDER))


def _roles(value: str | None) -> list[str]:
    return [role.strip() for role in value.split(',')] if value else []


@enginefacade.transaction_context_provider
class RequestContext(context.RequestContext):
    """oslo.context's context; enginefacade attaches its session to it.

    ``is_admin`` is decided once, by policy (``context_is_admin``), when the
    API builds the context, and then travels with it so the engine and the
    DB layer scope their queries the same way the API did.

    ``rpc_deadline`` (seconds since the epoch) is when the API stops
    waiting for the engine's answer to a call: an engine that receives
    the call later (the message bus held it) must not apply it, since the
    client was told 503 and may retry.
    """

    FROM_DICT_EXTRA_KEYS = ['rpc_deadline']

    def __init__(self, *args: Any, rpc_deadline: float | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rpc_deadline = rpc_deadline

    def to_dict(self) -> dict[str, Any]:
        values = super().to_dict()
        values['rpc_deadline'] = self.rpc_deadline
        return values

    @classmethod
    def from_environ(cls, environ: dict[str, Any],
                     **kwargs: Any) -> 'RequestContext':
        """oslo.context's ``from_environ``, by the keys the environ has
        rather than by every key it might have: a request carries a few
        of the thirty (a fifth of a tenant metadata read went to looking
        for the others). Keyword arguments win over the environ."""
        values: dict[str, Any] = {}
        present = _KEYS.intersection(environ)
        for key in present:
            name, preferred = _BY_KEY[key]
            if name not in kwargs and present.isdisjoint(preferred):
                values[name] = environ[key]
        if 'roles' not in kwargs:
            values['roles'] = _roles(environ.get(
                _ROLES, environ.get(_ROLE)))
        if 'service_roles' not in kwargs:
            values['service_roles'] = _roles(environ.get(_SERVICE_ROLES))
        if 'is_admin_project' not in kwargs:
            # No header: the admin project, as oslo.context assumes.
            values['is_admin_project'] = environ.get(
                _IS_ADMIN_PROJECT, 'true').lower() == 'true'
        values.update(kwargs)
        return cls(**values)

    @classmethod
    def from_dict(cls, values: dict[str, Any], **kwargs) -> 'RequestContext':
        kwargs.setdefault('is_admin', values.get('is_admin', False))
        return super().from_dict(values, **kwargs)


def get_admin_context() -> RequestContext:
    """A context for the engine's own background work: sees every project."""
    return RequestContext(is_admin=True, overwrite=False)
