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
