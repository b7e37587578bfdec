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

# 19 operations (every route) x 5 role sets; the closing note quotes it.
EXPECTED_ROWS = 110
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
