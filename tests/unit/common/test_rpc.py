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

"""The request context crosses RPC as a dict, admin-ness included."""

import datetime

import pytest

from swconfig.common import context as swconfig_context
from swconfig.common import rpc


@pytest.fixture
def serializer():
    return rpc.RequestContextSerializer()


@pytest.mark.parametrize('is_admin', [True, False])
def test_context_round_trip(serializer, is_admin):
    context = swconfig_context.RequestContext(
        project_id='p1', user_id='u1', roles=['admin', 'member', 'reader'],
        is_admin=is_admin, request_id='req-1234')
    wire = serializer.serialize_context(context)
    assert isinstance(wire, dict)
    again = serializer.deserialize_context(wire)
    assert isinstance(again, swconfig_context.RequestContext)
    assert again.project_id == 'p1'
    assert again.user_id == 'u1'
    assert again.roles == ['admin', 'member', 'reader']
    assert again.request_id == 'req-1234'
    # Decided once in the API by policy; the engine must not re-derive it
    # from the roles.
    assert again.is_admin is is_admin


def test_entities_are_json_primitives(serializer):
    context = swconfig_context.RequestContext(project_id='p1')
    when = datetime.datetime(2024, 1, 2, 3, 4, 5, 6)
    entity = {'created_at': when, 'inputs': [{'name': 'a'}], 'n': None}
    wire = serializer.serialize_entity(context, entity)
    assert wire == {'created_at': '2024-01-02T03:04:05.000006',
                    'inputs': [{'name': 'a'}], 'n': None}
    assert serializer.deserialize_entity(context, wire) == wire


def test_only_swconfig_exceptions_cross_rpc():
    assert rpc.ALLOWED_EXMODS == ['swconfig.common.exception']


def test_transport_must_be_initialised(monkeypatch):
    monkeypatch.setattr(rpc, '_TRANSPORT', None)
    with pytest.raises(RuntimeError):
        rpc.get_transport()
