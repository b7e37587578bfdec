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

"""A database outage in the engine reaches the API as 503, not 500.

Only swconfig's exceptions cross RPC with their class; the manager turns
the database's outage errors into DatabaseUnavailable before they leave.
"""

import inspect
import time

from oslo_db import exception as db_exc
from oslo_messaging.rpc import dispatcher
import pytest
from sqlalchemy import exc as sa_exc

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.engine import actions
from swconfig.engine import configs
from swconfig.engine import deployment_batches
from swconfig.engine import deployments
from swconfig.engine import manager
from swconfig.engine import rollouts
from swconfig.engine import server_groups
from swconfig.engine import servers
from swconfig.engine import signals

REQUEST = {'server_id': 's1', 'config_id': 'c1'}
# manager method -> (workflow module, function, arguments of the method)
ENDPOINTS = {
    'create_software_config': (configs, 'create', {
        'name': 'n', 'group': 'script', 'config': '', 'inputs': [],
        'outputs': [], 'options': {}}),
    'delete_software_config': (configs, 'delete', {'config_id': 'c1'}),
    'create_software_deployment': (deployments, 'create',
                                   {'request': REQUEST}),
    'create_software_deployments': (deployment_batches, 'create_many',
                                    {'requests': [REQUEST, REQUEST]}),
    'update_software_deployment': (deployments, 'update', {
        'deployment_id': 'd1', 'values': {}}),
    'delete_software_deployment': (actions, 'delete',
                                   {'deployment_id': 'd1'}),
    'run_deployment_action': (actions, 'run_action', {
        'deployment_id': 'd1', 'action': 'SUSPEND'}),
    'trigger_deployment': (actions, 'trigger', {
        'deployment_id': 'd1', 'request': {'action': 'BACKUP'},
        'idempotency_key': 'k1'}),
    'cancel_deployment': (actions, 'cancel', {'deployment_id': 'd1'}),
    'get_agent_config': (servers, 'agent_config', {'server_id': 's1'}),
    'register_server': (servers, 'register', {'server_id': 's1'}),
    'unregister_server': (servers, 'unregister', {'server_id': 's1'}),
    'process_signal': (signals, 'process', {'inbox_id': 7}),
    'apply_signal': (signals, 'process', {'inbox_id': 7}),
    'set_server_labels': (servers, 'set_labels', {
        'server_id': 's1', 'labels': {'role': 'db'}}),
    'create_server_group': (server_groups, 'create', {
        'name': 'dbs', 'servers': ['s1'], 'selector': None}),
    'update_server_group': (server_groups, 'update', {
        'group_id': 'g1', 'values': {'name': 'n'}}),
    'delete_server_group': (server_groups, 'delete', {'group_id': 'g1'}),
    'create_rollout': (rollouts, 'create', {
        'target': {'servers': ['s1']}, 'work': {'config_id': 'c1'},
        'max_concurrency': None, 'max_errors': None}),
    'cancel_rollout': (rollouts, 'cancel', {'rollout_id': 'r1'}),
}


def _outages():
    refused = sa_exc.OperationalError(
        'SELECT 1', {}, Exception('(2003) Can\'t connect to MySQL server'))
    return {
        'DBConnectionError': db_exc.DBConnectionError(refused),
        'DBDeadlock': db_exc.DBDeadlock(refused),
        'OperationalError': refused,
        'InterfaceError': sa_exc.InterfaceError(
            'SELECT 1', {}, Exception('connection already closed')),
    }


OUTAGES = sorted(_outages())


def _raise(error):
    def workflow(*args, **kwargs):
        raise error
    return workflow


def _unexpected(raised):
    """What the RPC dispatcher receives: expected errors arrive wrapped
    in ExpectedException (so the engine does not log a traceback)."""
    if isinstance(raised, dispatcher.ExpectedException):
        return raised.exc_info[1]
    return raised


def test_every_endpoint_is_listed():
    public = {name for name, value in vars(manager.EngineManager).items()
              if not name.startswith('_') and inspect.isfunction(value)}
    assert public == set(ENDPOINTS)


@pytest.mark.parametrize('outage', OUTAGES)
@pytest.mark.parametrize('method', sorted(ENDPOINTS))
def test_database_outage_becomes_database_unavailable(monkeypatch, method,
                                                      outage):
    module, function, kwargs = ENDPOINTS[method]
    error = _outages()[outage]
    monkeypatch.setattr(module, function, _raise(error))
    context = swconfig_context.RequestContext(project_id='p1')
    with pytest.raises(Exception) as caught:
        getattr(manager.EngineManager(), method)(context, **kwargs)
    raised = _unexpected(caught.value)
    assert type(raised) is exception.DatabaseUnavailable
    assert raised.__cause__ is error
    assert raised.code == 503
    assert ('Retry-After', '5') in raised.headers
    assert raised.type_name == 'ServiceUnavailable'
    assert outage in raised.message
    # The API re-raises it with its class: it is one of swconfig's.
    assert type(raised).__module__ == 'swconfig.common.exception'


@pytest.mark.parametrize('method', sorted(ENDPOINTS))
def test_other_errors_are_left_alone(monkeypatch, method):
    module, function, kwargs = ENDPOINTS[method]
    domain = exception.ConfigNotFound(config_id='c1')
    monkeypatch.setattr(module, function, _raise(domain))
    context = swconfig_context.RequestContext(project_id='p1')
    with pytest.raises(Exception) as caught:
        getattr(manager.EngineManager(), method)(context, **kwargs)
    assert _unexpected(caught.value) is domain


def test_a_data_error_is_not_an_outage(monkeypatch):
    """Only the outage classes: a constraint violation is a bug or a
    conflict, never "retry later"."""
    duplicate = db_exc.DBDuplicateEntry(columns=['id'])
    monkeypatch.setattr(configs, 'delete', _raise(duplicate))
    context = swconfig_context.RequestContext(project_id='p1')
    with pytest.raises(db_exc.DBDuplicateEntry) as caught:
        manager.EngineManager().delete_software_config(context, 'c1')
    assert caught.value is duplicate


# -- calls that arrive after their caller gave up ----------------------------

@pytest.mark.parametrize('name', sorted(set(ENDPOINTS) - {'process_signal'}))
def test_a_late_call_is_not_applied(monkeypatch, name, caplog):
    """The bus held the call past the API's deadline: the client was
    answered 503 and may retry, so applying it now would apply twice."""
    module, function, arguments = ENDPOINTS[name]
    applied = []
    monkeypatch.setattr(module, function,
                        lambda *args, **kwargs: applied.append(args))
    context = swconfig_context.RequestContext(
        project_id='p1', rpc_deadline=time.time() - 3)
    with pytest.raises(Exception) as caught:
        getattr(manager.EngineManager(), name)(context, **arguments)
    assert type(_unexpected(caught.value)) is exception.ServiceUnavailable
    assert applied == []
    assert f'{name} of request {context.request_id} arrived' in caplog.text


def test_a_late_signal_cast_is_still_applied(monkeypatch):
    """A stored signal is applied exactly once whenever it is handed
    over: lateness does not matter for it."""
    applied = []
    monkeypatch.setattr(signals, 'process', applied.append)
    context = swconfig_context.RequestContext(
        project_id='p1', rpc_deadline=time.time() - 3)
    manager.EngineManager().process_signal(context, inbox_id=7)
    assert applied == [7]


@pytest.mark.parametrize('deadline', [None, 'future'])
def test_a_call_in_time_is_applied(monkeypatch, deadline):
    module, function, arguments = ENDPOINTS['delete_software_config']
    applied = []
    monkeypatch.setattr(module, function,
                        lambda *args, **kwargs: applied.append(args))
    context = swconfig_context.RequestContext(
        project_id='p1',
        rpc_deadline=None if deadline is None else time.time() + 60)
    manager.EngineManager().delete_software_config(context, **arguments)
    assert len(applied) == 1
