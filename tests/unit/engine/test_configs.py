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

"""Heat's per-project quotas (doc/source/reference/configs.rst,
doc/source/reference/deployments.rst)."""

import pytest

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.engine import configs


def _context(is_admin=False):
    return swconfig_context.RequestContext(
        project_id='p1', roles=['member', 'reader'], is_admin=is_admin)


@pytest.mark.parametrize('count, limit', [(0, 1), (4095, 4096), (10, -1),
                                          (10**6, -1)])
def test_under_the_limit_passes(count, limit):
    assert configs.check_quota(_context(), count, limit,
                               'software configs') is None


@pytest.mark.parametrize('count, limit', [(1, 1), (5, 1), (0, 0)])
def test_admin_is_never_limited(count, limit):
    assert configs.check_quota(_context(is_admin=True), count, limit,
                               'software configs') is None


@pytest.mark.parametrize('what, limit, message', [
    ('software configs', 3,
     'Request limit exceeded: You have reached the maximum software configs '
     'per tenant, 3. Please delete some configs.'),
    ('software deployments', 0,
     'Request limit exceeded: You have reached the maximum software '
     'deployments per tenant, 0. Please delete some deployments.'),
])
def test_at_the_limit_is_heats_request_limit_exceeded(what, limit, message):
    with pytest.raises(exception.RequestLimitExceeded) as info:
        configs.check_quota(_context(), limit, limit, what)
    assert info.value.code == 400
    assert info.value.type_name == 'RequestLimitExceeded'
    assert info.value.message == message
