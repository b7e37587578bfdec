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

"""The RBAC matrix (rbac_matrix.yaml) run through the real API in-process.

One test per row (role set x operation), with the noauth stack: the
project is the one in the URL, the roles come from ``X-Roles``. Every
request names objects that exist in that project, made by a member: shared
ones for the operations that leave them usable, fresh ones for each delete
and signal. So a refusal must be the policy's 403 naming the operation's
rule, never a 404 masking it, and a success proves the check passed.
"""

import uuid

import pytest

from swconfig import policies
from tests.fixtures import rbac

# 35 operations (every route) x 5 role sets; the closing note quotes it.
EXPECTED_ROWS = 175
MEMBER = {'X-Roles': rbac.ROLES['member']}


def test_matrix_size_and_shape():
    print(f'RBAC matrix: {len(rbac.OPERATIONS)} operations x '
          f'{len(rbac.COLUMNS)} role sets = {len(rbac.ROWS)} rows')
    assert len(rbac.ROWS) == EXPECTED_ROWS
    assert set(rbac.COLUMNS) == set(rbac.ROLES)
    assert set(rbac.SPEC['matrix']) == set(rbac.OPERATIONS)
    assert {status for _op, _role, status in rbac.ROWS} <= {200, 201, 204,
                                                            403}


def test_matrix_covers_every_resource_rule():
    registered = {rule.name for rule in policies.list_rules()
                  if ':' in rule.name}
    assert {op['rule'] for op in rbac.OPERATIONS.values()} == registered


@pytest.fixture(scope='module')
def shared(inprocess_stack):
    project = f'rbac-{uuid.uuid4().hex[:12]}'
    return project, rbac.make_objects(inprocess_stack, project, MEMBER)


@pytest.mark.parametrize('operation, role, status', rbac.ROWS, ids=rbac.IDS)
def test_rbac_matrix(inprocess_stack, shared, operation, role, status):
    project, names = shared
    if rbac.needs_fresh_objects(operation):
        names = rbac.make_objects(inprocess_stack, project, MEMBER)
    rbac.run_row(inprocess_stack, project, operation, status, names,
                 headers={'X-Roles': rbac.ROLES[role]})
