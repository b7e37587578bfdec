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

"""The RPC contract: EngineAPI (client) against EngineManager (server)."""

import inspect
import threading
import time
from unittest import mock

from kombu import exceptions as kombu_exceptions
import oslo_messaging as messaging
from oslo_messaging import _utils as messaging_utils
import pytest

from swconfig.common import deployment_request
from swconfig.common import exception
from swconfig.common import rpc
from swconfig.conf import CONF
from swconfig.engine import deployments
from swconfig.engine import manager
from swconfig.engine import rpcapi

# Every engine these tests call runs (conftest's engines_running).
pytestmark = pytest.mark.usefixtures('engines_running')

# Manager methods that still accept the keyword arguments of an older RPC
# API version (an engine upgraded before the APIs serves both).
LEGACY_KEYWORDS = {'create_software_deployment': 'fields',
                   'get_agent_config': 'legacy',
                   'register_server': 'legacy'}


def _public_methods(cls):
    return {name: member for name, member in inspect.getmembers(
        cls, inspect.isfunction) if not name.startswith('_')}


def _unwrap(function):
    """The endpoint function under oslo.messaging's expected_exceptions
    wrapper (which does not use functools.wraps)."""
    function = inspect.unwrap(function)
    for value in inspect.getclosurevars(function).nonlocals.values():
        if inspect.isfunction(value):
            return _unwrap(value)
    return function


def _declared_exceptions(function):
    for value in inspect.getclosurevars(function).nonlocals.values():
        if isinstance(value, tuple) and all(
                isinstance(cls, type) for cls in value):
            return value
    return ()


def test_rpc_api_versions_are_in_sync():
    assert rpcapi.EngineAPI.RPC_API_VERSION == rpcapi.RPC_API_VERSION
    assert (manager.EngineManager.RPC_API_VERSION
            == rpcapi.EngineAPI.RPC_API_VERSION)
    assert (manager.EngineManager.target.version
            == rpcapi.EngineAPI.RPC_API_VERSION)


def test_version_history_mentions_the_current_version():
    assert f'    {rpcapi.RPC_API_VERSION} - ' in rpcapi.__doc__


def test_client_and_manager_expose_the_same_methods():
    assert set(_public_methods(rpcapi.EngineAPI)) == set(
        _public_methods(manager.EngineManager))


@pytest.mark.parametrize('name', sorted(_public_methods(rpcapi.EngineAPI)))
def test_signatures_match(name):
    client_method = getattr(rpcapi.EngineAPI, name)
    manager_method = _unwrap(getattr(manager.EngineManager, name))
    client_sig = inspect.signature(client_method)
    manager_params = dict(inspect.signature(manager_method).parameters)
    legacy = manager_params.pop(LEGACY_KEYWORDS.get(name, ''), None)
    assert legacy is None or legacy.kind is legacy.VAR_KEYWORD
    assert list(client_sig.parameters) == list(manager_params)
    assert list(client_sig.parameters)[:2] == ['self', 'context']
    for param, server_param in zip(client_sig.parameters.values(),
                                   manager_params.values(), strict=True):
        # Where older keywords are accepted, the new argument is optional.
        if legacy is None:
            assert param.default == server_param.default, param.name


# -- what the client puts on the wire (only the RPC client is faked) ---------

@pytest.fixture
def client(monkeypatch):
    """The oslo.messaging RPCClient, replaced by a mock; records the Target,
    timeout and send retries EngineAPI asked for."""
    fake = mock.Mock(name='RPCClient')
    fake.prepare.return_value.call.return_value = {'answer': 42}

    def get_client(target, version_cap=None, timeout=None, retry=None):
        fake.target = target
        fake.timeout = timeout
        fake.retry = retry
        return fake

    monkeypatch.setattr(rpc, 'get_client', get_client)
    return fake


def test_client_target(client):
    api = rpcapi.EngineAPI()
    assert client.target.topic == CONF.engine.topic
    assert client.target.version == rpcapi.RPC_API_VERSION
    assert client.timeout == CONF.engine.rpc_response_timeout
    # Bounded: oslo.messaging's default retries sending forever.
    assert client.retry == CONF.engine.rpc_send_retries
    assert client.retry is not None
    assert api.client is client
    rpcapi.EngineAPI(topic='other-topic')
    assert client.target.topic == 'other-topic'


def _call(version: str) -> dict:
    """prepare() arguments of a call: its version, and at-least-once
    delivery so a call nobody can receive fails at once."""
    return {'version': version, 'transport_options': rpcapi.AT_LEAST_ONCE}


REQUEST = deployment_request.DeploymentRequest(
    server_id='s1', config_id='c1', input_values={'a': 1}, action='CREATE',
    status='IN_PROGRESS', status_reason='r', stack_user_project_id='p2',
    signal_transport='HEAT_SIGNAL', name='deploy-1', timeout=60)
# (method, RPC method, prepare() arguments, kwargs given, kwargs on the
# wire where they differ)
CALLS = [
    ('create_software_config', 'call', _call('1.0'),
     {'name': 'n', 'group': 'script', 'config': '#!/bin/sh',
      'inputs': [{'name': 'a'}], 'outputs': [], 'options': {'o': 1}}),
    ('delete_software_config', 'call', _call('1.0'),
     {'config_id': 'c1'}),
    ('create_software_deployment', 'call', _call('1.3'),
     {'request': REQUEST}, {'request': {
         'server_id': 's1', 'config_id': 'c1', 'input_values': {'a': 1},
         'action': 'CREATE', 'status': 'IN_PROGRESS', 'status_reason': 'r',
         'stack_user_project_id': 'p2', 'signal_transport': 'HEAT_SIGNAL',
         'name': 'deploy-1', 'timeout': 60}}),
    ('create_software_deployments', 'call', _call('1.9'),
     {'requests': [REQUEST, REQUEST], 'idempotency_key': 'k1'},
     {'requests': [REQUEST.to_dict(), REQUEST.to_dict()],
      'idempotency_key': 'k1'}),
    ('update_software_deployment', 'call', _call('1.0'),
     {'deployment_id': 'd1', 'values': {'status': 'COMPLETE'}}),
    ('delete_software_deployment', 'call', _call('1.0'),
     {'deployment_id': 'd1'}),
    ('run_deployment_action', 'call', _call('1.4'),
     {'deployment_id': 'd1', 'action': 'SUSPEND'}),
    ('trigger_deployment', 'call', _call('1.4'),
     {'deployment_id': 'd1', 'request': {'action': 'BACKUP'},
      'idempotency_key': 'k1'}),
    ('cancel_deployment', 'call', _call('1.4'), {'deployment_id': 'd1'}),
    ('get_agent_config', 'call', _call('1.1'), {'server_id': 's1'}),
    ('register_server', 'call', _call('1.2'), {'server_id': 's1'}),
    ('unregister_server', 'call', _call('1.2'), {'server_id': 's1'}),
    ('apply_signal', 'call', _call('1.5'), {'inbox_id': 7}),
    ('process_signal', 'cast', {'version': '1.1', 'retry': 0},
     {'inbox_id': 7}),
    ('set_server_labels', 'call', _call('1.10'),
     {'server_id': 's1', 'labels': {'role': 'db'}}),
    ('create_server_group', 'call', _call('1.10'),
     {'name': 'dbs', 'servers': ['s1'], 'selector': {'role': 'db'}}),
    ('update_server_group', 'call', _call('1.10'),
     {'group_id': 'g1', 'values': {'selector': None}}),
    ('delete_server_group', 'call', _call('1.10'), {'group_id': 'g1'}),
    ('create_rollout', 'call', _call('1.11'),
     {'target': {'servers': ['s1']}, 'work': {'config_id': 'c1'},
      'max_concurrency': '10%', 'max_errors': None}),
    ('cancel_rollout', 'call', _call('1.11'), {'rollout_id': 'r1'}),
]
CALLS = [call if len(call) == 5 else (*call, call[3]) for call in CALLS]
CALLED = sorted(call[0] for call in CALLS if call[1] == 'call')


def test_every_method_has_a_wire_test():
    assert {call[0] for call in CALLS} == set(
        _public_methods(rpcapi.EngineAPI))


@pytest.mark.parametrize('name', CALLED)
def test_manager_declares_domain_errors_as_expected(name):
    """So the engine does not log a 404 as a crash and the API gets the
    exception class back."""
    declared = _declared_exceptions(getattr(manager.EngineManager, name))
    assert exception.SwconfigException in declared


@pytest.mark.parametrize('method, rpc_method, prepare, kwargs, wire', CALLS,
                         ids=[c[0] for c in CALLS])
def test_method_prepares_its_version_and_sends(client, context, method,
                                              rpc_method, prepare, kwargs,
                                              wire):
    api = rpcapi.EngineAPI()
    result = getattr(api, method)(context, **kwargs)
    client.prepare.assert_called_once_with(**prepare)
    prepared = client.prepare.return_value
    getattr(prepared, rpc_method).assert_called_once_with(
        context, method, **wire)
    other = 'cast' if rpc_method == 'call' else 'call'
    getattr(prepared, other).assert_not_called()
    if rpc_method == 'call':
        assert result == {'answer': 42}
    else:
        # A cast never reconnects: the signal is stored, and the engines'
        # sweep applies it if the cast is lost.
        assert prepare['retry'] == 0
    version = prepare['version']
    assert messaging_utils.version_is_compatible(rpcapi.RPC_API_VERSION,
                                                 version)
    assert f'    {version} - ' in rpcapi.__doc__


def test_process_signal_never_fails_the_request(client, context):
    """The signal is already stored; the engines' sweep applies it if no
    engine takes the cast."""
    client.prepare.return_value.cast.side_effect = (
        messaging.MessageDeliveryFailure('no broker'))
    rpcapi.EngineAPI().process_signal(context, 7)  # does not raise
    client.prepare.return_value.cast.assert_called_once_with(
        context, 'process_signal', inbox_id=7)


def test_create_deployment_sends_every_field_unset_as_null(client,
                                                          context):
    """Every field but those RPC API 1.8 added, which are left out while
    unset: the request is the one engines of 1.3 to 1.7 know, and its
    Idempotency-Key digest the one they stored."""
    request = deployment_request.DeploymentRequest(server_id='s1',
                                                   config_id='c1')
    rpcapi.EngineAPI().create_software_deployment(context, request)
    client.prepare.assert_called_with(version='1.3',
                                      transport_options=mock.ANY)
    client.prepare.return_value.call.assert_called_once_with(
        context, 'create_software_deployment', request={
            'server_id': 's1', 'config_id': 'c1', 'input_values': None,
            'action': None, 'status': None, 'status_reason': None,
            'stack_user_project_id': None, 'signal_transport': None,
            'name': None, 'timeout': None})


def test_a_creation_with_an_input_key_asks_for_1_8(client, context,
                                                   monkeypatch):
    request = deployment_request.DeploymentRequest(
        server_id='s1', config_id='c1', signal_transport='NO_SIGNAL',
        input_key='get_input', input_values_validate='STRICT')
    rpcapi.EngineAPI().create_software_deployment(context, request)
    client.prepare.assert_called_with(version='1.8',
                                      transport_options=mock.ANY)
    sent = client.prepare.return_value.call.call_args.kwargs['request']
    assert (sent['input_key'], sent['input_values_validate']) == (
        'get_input', 'STRICT')
    seen = []
    monkeypatch.setattr(deployments, 'create',
                        lambda ctx, request, key: seen.append(
                            (request, key)) or {})
    manager.EngineManager().create_software_deployment(context,
                                                       request=sent)
    assert seen == [(request, None)]


@pytest.mark.parametrize('call', [
    lambda engine, ctx: engine.create_software_deployment(
        ctx, request=REQUEST.to_dict()),
    lambda engine, ctx: engine.create_software_deployment(
        ctx, **REQUEST.to_dict()),  # an API still on RPC API 1.1/1.2
    # An older API also sends the request's URL: ignored.
    lambda engine, ctx: engine.create_software_deployment(
        ctx, request=dict(REQUEST.to_dict(), base_url='http://injected')),
], ids=['1.3', '1.1', 'base_url'])
def test_manager_builds_the_request_from_either_form(monkeypatch, context,
                                                     call):
    seen = []
    monkeypatch.setattr(deployments, 'create',
                        lambda ctx, request, key: seen.append(
                            (request, key)) or {})
    call(manager.EngineManager(), context)
    assert seen == [(REQUEST, None)]


def test_a_creation_with_an_idempotency_key_asks_for_1_6(client, context,
                                                          monkeypatch):
    """Without a key the call stays 1.3, so engines of the previous
    release still take it; with one, the key reaches the engine."""
    rpcapi.EngineAPI().create_software_deployment(context, REQUEST, 'k1')
    client.prepare.assert_called_with(version='1.6',
                                      transport_options=mock.ANY)
    client.prepare.return_value.call.assert_called_once_with(
        context, 'create_software_deployment', request=REQUEST.to_dict(),
        idempotency_key='k1')
    seen = []
    monkeypatch.setattr(deployments, 'create',
                        lambda ctx, request, key: seen.append(
                            (request, key)) or {})
    manager.EngineManager().create_software_deployment(
        context, request=REQUEST.to_dict(), idempotency_key='k1')
    assert seen == [(REQUEST, 'k1')]


# -- every call is bounded (the message bus may be down) ---------------------

def test_call_gives_up_at_the_response_timeout(client, context, set_conf):
    """Whatever oslo.messaging does (it may reconnect for as long as the
    broker is down), the caller gets 503 at rpc_response_timeout."""
    set_conf('rpc_response_timeout', 2, group='engine')
    release = threading.Event()
    client.prepare.return_value.call.side_effect = (
        lambda *args, **kwargs: release.wait(60))
    api = rpcapi.EngineAPI()
    started = time.monotonic()
    try:
        with pytest.raises(exception.ServiceUnavailable) as caught:
            api.delete_software_config(context, 'c1')
    finally:
        release.set()
    elapsed = time.monotonic() - started
    assert 2 <= elapsed < 2 + 3, elapsed
    assert caught.value.code == 503
    assert ('Retry-After', '5') in caught.value.headers
    assert 'within 2 s' in caught.value.message


@pytest.mark.parametrize('error', [
    kombu_exceptions.OperationalError('[Errno 111] Connection refused'),
    ConnectionRefusedError(111, 'Connection refused'),
], ids=['kombu', 'socket'])
def test_transport_errors_become_messaging_unavailable(client, context,
                                                        error):
    """A new connection to a broker that is down raises the driver's own
    error, which the API would answer with 500."""
    client.prepare.return_value.call.side_effect = error
    with pytest.raises(exception.MessagingUnavailable) as caught:
        rpcapi.EngineAPI().delete_software_config(context, 'c1')
    assert caught.value.__cause__ is error
    assert caught.value.code == 503


@pytest.mark.parametrize('error', [
    exception.ConfigNotFound(config_id='c1'),
    messaging.MessagingTimeout('no reply'),
    messaging.RemoteError('ValueError', 'boom'),
], ids=['domain', 'timeout', 'remote'])
def test_other_errors_reach_the_caller_unchanged(client, context, error):
    client.prepare.return_value.call.side_effect = error
    with pytest.raises(type(error)) as caught:
        rpcapi.EngineAPI().delete_software_config(context, 'c1')
    assert caught.value is error


def test_calls_carry_the_time_the_api_stops_waiting(client, context):
    """The engine refuses a call that reaches it later (see
    test_manager_outages.py); a cast has no deadline."""
    timeout = CONF.engine.rpc_response_timeout
    before = time.time()
    rpcapi.EngineAPI().delete_software_config(context, 'c1')
    sent = client.prepare.return_value.call.call_args.args[0]
    assert before + timeout <= sent.rpc_deadline <= time.time() + timeout

    rpcapi.EngineAPI().process_signal(context, 7)
    assert client.prepare.return_value.cast.call_args.args[0].rpc_deadline is (
        None)
