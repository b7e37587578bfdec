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

"""Rolling upgrades: EngineAPI under ``[upgrade_levels] engine``.

Each method either sends a version the pin allows (an older form when it
means the same to the engine) or refuses with EngineUpgradeRequired (409)
without sending anything. ``EXPECTED`` is the behaviour chosen for every
method; the client is faked as in test_rpcapi.py, with oslo.messaging's
own version check, and the last tests use its in-process transport with
an engine of RPC API 1.5.
"""

import inspect
from typing import Any
from unittest import mock

import oslo_messaging as messaging
from oslo_messaging import _utils as messaging_utils
import pytest

from swconfig.cmd import startup
from swconfig.common import deployment_request
from swconfig.common import exception
from swconfig.common import rpc
from swconfig.conf import CONF
from swconfig.engine import rpcapi
from swconfig.engine import service as engine_service

# Every engine these tests call runs (conftest's engines_running).
pytestmark = pytest.mark.usefixtures('engines_running')

CAPS = [None, '1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7',
        '1.8', '1.9', '1.10', '1.11']

DERIVED = deployment_request.DeploymentRequest(
    server_id='s1', config_id='c1', input_values={'a': 1}, action='CREATE',
    status='IN_PROGRESS', signal_transport='HEAT_SIGNAL', name='deploy-1',
    timeout=60)
# Heat's raw form: none of the fields RPC API 1.1 added.
RAW = deployment_request.DeploymentRequest(
    server_id='s1', config_id='c1', input_values={'a': 1}, action='CREATE',
    status='IN_PROGRESS')
RAW_1_0 = {key: value for key, value in RAW.to_dict().items()
           if key not in ('signal_transport', 'name', 'timeout')}
# Structured-config input substitution: RPC API 1.8.
STRUCTURED = deployment_request.DeploymentRequest(
    server_id='s1', config_id='c1', input_values={'a': 1},
    signal_transport='HEAT_SIGNAL', input_key='get_input',
    input_values_validate='STRICT')

# case id -> (method, kwargs given, [(version, RPC method, kwargs on the
# wire), ...] newest first: the first the pin allows is sent; none
# allowed: refused). 'cast' marks the one cast, which never raises.
EXPECTED: dict[str, tuple[str, dict, list[tuple[str, str, dict]]]] = {
    'create_software_config': (
        'create_software_config',
        {'name': 'n', 'group': 'script', 'config': 'x', 'inputs': [],
         'outputs': [], 'options': {}},
        [('1.0', 'create_software_config',
          {'name': 'n', 'group': 'script', 'config': 'x', 'inputs': [],
           'outputs': [], 'options': {}})]),
    'delete_software_config': (
        'delete_software_config', {'config_id': 'c1'},
        [('1.0', 'delete_software_config', {'config_id': 'c1'})]),
    'create_software_deployment-derived': (
        'create_software_deployment', {'request': DERIVED},
        [('1.3', 'create_software_deployment',
          {'request': DERIVED.to_dict()}),
         ('1.1', 'create_software_deployment', DERIVED.to_dict())]),
    'create_software_deployment-raw': (
        'create_software_deployment', {'request': RAW},
        [('1.3', 'create_software_deployment', {'request': RAW.to_dict()}),
         ('1.1', 'create_software_deployment', RAW.to_dict()),
         ('1.0', 'create_software_deployment', RAW_1_0)]),
    # An older engine would ignore input_key and deploy the config
    # without substituting: refused below 1.8, with or without a key.
    'create_software_deployment-input-key': (
        'create_software_deployment', {'request': STRUCTURED},
        [('1.8', 'create_software_deployment',
          {'request': STRUCTURED.to_dict()})]),
    'create_software_deployment-input-key-idempotency-key': (
        'create_software_deployment',
        {'request': STRUCTURED, 'idempotency_key': 'k1'},
        [('1.8', 'create_software_deployment',
          {'request': STRUCTURED.to_dict(), 'idempotency_key': 'k1'})]),
    'create_software_deployment-idempotency-key': (
        'create_software_deployment',
        {'request': RAW, 'idempotency_key': 'k1'},
        [('1.6', 'create_software_deployment',
          {'request': RAW.to_dict(), 'idempotency_key': 'k1'})]),
    # No older form creates a list all or none, in chunks: refused below
    # 1.9, with or without a key (sent only when given).
    'create_software_deployments': (
        'create_software_deployments', {'requests': [DERIVED, RAW]},
        [('1.9', 'create_software_deployments',
          {'requests': [DERIVED.to_dict(), RAW.to_dict()]})]),
    'create_software_deployments-idempotency-key': (
        'create_software_deployments',
        {'requests': [RAW], 'idempotency_key': 'k1'},
        [('1.9', 'create_software_deployments',
          {'requests': [RAW.to_dict()], 'idempotency_key': 'k1'})]),
    'update_software_deployment': (
        'update_software_deployment',
        {'deployment_id': 'd1', 'values': {'status': 'COMPLETE'}},
        [('1.0', 'update_software_deployment',
          {'deployment_id': 'd1', 'values': {'status': 'COMPLETE'}})]),
    'delete_software_deployment': (
        'delete_software_deployment', {'deployment_id': 'd1'},
        [('1.0', 'delete_software_deployment', {'deployment_id': 'd1'})]),
    'run_deployment_action': (
        'run_deployment_action', {'deployment_id': 'd1', 'action': 'SUSPEND'},
        [('1.4', 'run_deployment_action',
          {'deployment_id': 'd1', 'action': 'SUSPEND'})]),
    # The trigger's Idempotency-Key came with triggers, in 1.4.
    'trigger_deployment-idempotency-key': (
        'trigger_deployment',
        {'deployment_id': 'd1', 'request': {'action': 'BACKUP'},
         'idempotency_key': 'k1'},
        [('1.4', 'trigger_deployment',
          {'deployment_id': 'd1', 'request': {'action': 'BACKUP'},
           'idempotency_key': 'k1'})]),
    # Without allow_concurrent the 1.4 form means the same to any engine.
    'trigger_deployment': (
        'trigger_deployment',
        {'deployment_id': 'd1', 'request': {'action': 'BACKUP'}},
        [('1.4', 'trigger_deployment',
          {'deployment_id': 'd1', 'request': {'action': 'BACKUP'},
           'idempotency_key': None})]),
    # With it, refused below 1.7: an engine of 1.7 would read the 1.4
    # form as "not allowed" and refuse the trigger the client allowed.
    'trigger_deployment-allow-concurrent': (
        'trigger_deployment',
        {'deployment_id': 'd1', 'request': {'action': 'BACKUP'},
         'idempotency_key': 'k1', 'allow_concurrent': True},
        [('1.7', 'trigger_deployment',
          {'deployment_id': 'd1', 'request': {'action': 'BACKUP'},
           'idempotency_key': 'k1', 'allow_concurrent': True})]),
    'cancel_deployment': (
        'cancel_deployment', {'deployment_id': 'd1'},
        [('1.4', 'cancel_deployment', {'deployment_id': 'd1'})]),
    'get_agent_config': (
        'get_agent_config', {'server_id': 's1'},
        [('1.1', 'get_agent_config', {'server_id': 's1'})]),
    'register_server': (
        'register_server', {'server_id': 's1'},
        [('1.2', 'register_server', {'server_id': 's1'})]),
    'unregister_server': (
        'unregister_server', {'server_id': 's1'},
        [('1.2', 'unregister_server', {'server_id': 's1'})]),
    # Below 1.5 the engine still applies the signal before it answers.
    'apply_signal': (
        'apply_signal', {'inbox_id': 7},
        [('1.5', 'apply_signal', {'inbox_id': 7}),
         ('1.1', 'process_signal', {'inbox_id': 7})]),
    'process_signal': (
        'process_signal', {'inbox_id': 7},
        [('1.1', 'process_signal', {'inbox_id': 7})]),
    # Labels and server groups are new in 1.10: no older form.
    'set_server_labels': (
        'set_server_labels', {'server_id': 's1', 'labels': {'role': 'db'}},
        [('1.10', 'set_server_labels',
          {'server_id': 's1', 'labels': {'role': 'db'}})]),
    'create_server_group': (
        'create_server_group',
        {'name': 'dbs', 'servers': ['s1'], 'selector': {'role': 'db'}},
        [('1.10', 'create_server_group',
          {'name': 'dbs', 'servers': ['s1'], 'selector': {'role': 'db'}})]),
    'update_server_group': (
        'update_server_group', {'group_id': 'g1', 'values': {'name': 'n'}},
        [('1.10', 'update_server_group',
          {'group_id': 'g1', 'values': {'name': 'n'}})]),
    'delete_server_group': (
        'delete_server_group', {'group_id': 'g1'},
        [('1.10', 'delete_server_group', {'group_id': 'g1'})]),
    # Rollouts are new in 1.11: no older form.
    'create_rollout': (
        'create_rollout',
        {'target': {'servers': ['s1']}, 'work': {'config_id': 'c1'},
         'max_concurrency': '10%', 'max_errors': '1'},
        [('1.11', 'create_rollout',
          {'target': {'servers': ['s1']}, 'work': {'config_id': 'c1'},
           'max_concurrency': '10%', 'max_errors': '1'})]),
    'cancel_rollout': (
        'cancel_rollout', {'rollout_id': 'r1'},
        [('1.11', 'cancel_rollout', {'rollout_id': 'r1'})]),
}
CASES = [(case, cap) for case in EXPECTED for cap in CAPS]


def _allowed(cap: str | None, version: str) -> bool:
    return messaging_utils.version_is_compatible(cap, version)


@pytest.fixture
def client(monkeypatch):
    """The RPCClient, faked: records the version_cap EngineAPI asked for
    and answers can_send_version as oslo.messaging does for that cap."""
    fake = mock.Mock(name='RPCClient')
    fake.prepare.return_value.call.return_value = {'answer': 42}

    def get_client(target, version_cap=None, timeout=None, retry=None):
        fake.version_cap = version_cap
        fake.can_send_version.side_effect = (
            lambda version: _allowed(version_cap, version))
        return fake

    monkeypatch.setattr(rpc, 'get_client', get_client)
    return fake


@pytest.fixture
def pinned(set_conf):
    """``pinned(cap)``: an EngineAPI built under ``[upgrade_levels]
    engine = cap`` (None: unset)."""
    def _pinned(cap: str | None) -> rpcapi.EngineAPI:
        set_conf('engine', cap, group='upgrade_levels')
        return rpcapi.EngineAPI()
    return _pinned


def test_every_method_has_its_upgrade_behaviour():
    public = {name for name, _ in inspect.getmembers(
        rpcapi.EngineAPI, inspect.isfunction) if not name.startswith('_')}
    assert {method for method, _, _ in EXPECTED.values()} == public


@pytest.mark.parametrize('case', sorted(EXPECTED))
def test_every_version_sent_is_at_most_rpc_api_version(case):
    for version, _, _ in EXPECTED[case][2]:
        assert _allowed(rpcapi.RPC_API_VERSION, version), version
        assert f'    {version} - ' in rpcapi.__doc__


@pytest.mark.parametrize('case, cap', CASES,
                         ids=[f'{case}@{cap}' for case, cap in CASES])
def test_each_call_under_each_cap(client, pinned, context, case, cap):
    method, kwargs, forms = EXPECTED[case]
    api = pinned(cap)
    allowed = [form for form in forms if _allowed(cap, form[0])]
    prepared = client.prepare.return_value
    rpc_method = 'cast' if method == 'process_signal' else 'call'
    if not allowed:
        if rpc_method == 'cast':
            api.process_signal(context, **kwargs)  # logged, never raised
        else:
            with pytest.raises(exception.EngineUpgradeRequired) as caught:
                getattr(api, method)(context, **kwargs)
            assert caught.value.code == 409
            assert f'needs engine RPC API {forms[-1][0]}' in str(
                caught.value)
        client.prepare.assert_not_called()
        prepared.call.assert_not_called()
        prepared.cast.assert_not_called()
        return
    version, wire_method, wire = allowed[0]
    result = getattr(api, method)(context, **kwargs)
    assert client.prepare.call_args.kwargs['version'] == version
    assert _allowed(cap, version)
    assert _allowed(rpcapi.RPC_API_VERSION, version)
    getattr(prepared, rpc_method).assert_called_once_with(
        context, wire_method, **wire)
    if wire_method != method:  # apply_signal as a call of process_signal
        assert result is None
    elif rpc_method == 'call':
        assert result == {'answer': 42}


def test_without_a_cap_a_creation_with_a_key_prepares_1_6(client, pinned,
                                                          context):
    pinned(None).create_software_deployment(context, RAW, 'k1')
    client.prepare.assert_called_once_with(
        version='1.6', transport_options=rpcapi.AT_LEAST_ONCE)
    client.prepare.return_value.call.assert_called_once_with(
        context, 'create_software_deployment', request=RAW.to_dict(),
        idempotency_key='k1')


def test_under_1_5_a_creation_without_a_key_is_sent(client, pinned,
                                                    context):
    pinned('1.5').create_software_deployment(context, DERIVED)
    version = client.prepare.call_args.kwargs['version']
    assert version == '1.3'
    assert _allowed('1.5', version)


def test_under_1_5_a_creation_with_a_key_is_refused_unsent(client, pinned,
                                                          context):
    """Not sent without its key: the client retries on the promise that
    a retry creates nothing twice."""
    with pytest.raises(exception.EngineUpgradeRequired) as caught:
        pinned('1.5').create_software_deployment(context, RAW, 'k1')
    error = caught.value
    assert error.code == 409
    assert error.type_name == 'EngineUpgradeRequired'
    assert isinstance(error, exception.Conflict)
    assert error.message.startswith(
        'A deployment creation with an Idempotency-Key needs engine RPC '
        'API 1.6, but this API server is pinned to 1.5')
    assert 'upgrade every engine' in error.message
    assert 'lift the pin' in error.message
    client.prepare.assert_not_called()
    client.prepare.return_value.call.assert_not_called()


@pytest.mark.parametrize('value, cap', [
    (None, None), ('', None), ('  ', None), ('1.0', '1.0'), ('1.5', '1.5'),
    (' 1.5 ', '1.5'), (rpcapi.RPC_API_VERSION, rpcapi.RPC_API_VERSION)])
def test_the_cap_reaches_the_rpc_client(client, pinned, value, cap):
    api = pinned(value)
    assert api.version_cap == cap
    assert client.version_cap == cap


@pytest.mark.parametrize('value, problem', [
    ('abc', 'is not an RPC API version'),
    ('1', 'is not an RPC API version'),
    ('1.5.1', 'is not an RPC API version'),
    ('v1.5', 'is not an RPC API version'),
    ('1.12', 'is not a version this release can pin to'),
    ('1.20', 'is not a version this release can pin to'),
    ('2.0', 'is not a version this release can pin to'),
    ('0.9', 'is not a version this release can pin to'),
])
def test_a_bad_cap_stops_the_api_at_start_up(client, set_conf, capsys,
                                            value, problem):
    """The API builds its EngineAPI before it serves (setup_app, before
    swconfig-api launches its workers): one line, exit status 2."""
    set_conf('engine', value, group='upgrade_levels')
    with pytest.raises(exception.ConfigurationError) as caught:
        rpcapi.EngineAPI()
    assert caught.value.message.startswith(
        f"Configuration error: [upgrade_levels] engine = '{value}' "
        f'{problem}')
    with pytest.raises(SystemExit) as exited:
        startup.run(rpcapi.EngineAPI)
    assert exited.value.code == startup.EXIT_CONFIG
    err = capsys.readouterr().err
    assert err.count('\n') == 1
    assert f"[upgrade_levels] engine = '{value}' {problem}" in err


# -- the real RPC client, on oslo.messaging's in-process transport ----------

class OldEngine:
    """An engine of RPC API 1.5 (the release before Idempotency-Keys on
    creation): what it received."""

    target = messaging.Target(version='1.5')

    def __init__(self) -> None:
        self.received: list[dict] = []

    def create_software_deployment(self, context: Any,
                                   request: dict | None = None,
                                   **fields: Any) -> dict:
        self.received.append(request)
        return {'id': 'd1'}


@pytest.fixture
def old_engine(monkeypatch, set_conf):
    transport = messaging.get_rpc_transport(CONF, url='fake://')
    monkeypatch.setattr(rpc, '_TRANSPORT', transport)
    set_conf('topic', 'upgrade-test', group='engine')
    set_conf('rpc_response_timeout', 10, group='engine')
    engine = OldEngine()
    server = rpc.get_server(messaging.Target(topic='upgrade-test',
                                             server='old'), [engine])
    server.start()
    yield engine
    server.stop()
    server.wait()
    transport.cleanup()


def test_the_real_client_carries_the_cap(old_engine, pinned):
    client = pinned('1.5').client
    assert isinstance(client, messaging.RPCClient)
    assert client.version_cap == '1.5'
    assert client.can_send_version('1.5')
    assert not client.can_send_version('1.6')


def test_an_engine_of_1_5_under_the_pin(old_engine, pinned, context):
    """Without the pin a creation with a key fails on the old engine (the
    API would answer 500); with it, a creation without a key works and one
    with a key is refused before anything is sent."""
    # oslo.messaging re-raises its own exception; the API answers 500.
    with pytest.raises(messaging.UnsupportedVersion):
        pinned(None).create_software_deployment(context, RAW, 'k1')
    assert old_engine.received == []

    api = pinned('1.5')
    assert api.create_software_deployment(context, RAW) == {'id': 'd1'}
    assert old_engine.received == [RAW.to_dict()]
    with pytest.raises(exception.EngineUpgradeRequired):
        api.create_software_deployment(context, RAW, 'k1')
    assert old_engine.received == [RAW.to_dict()]


def test_an_engine_before_1_8_never_receives_an_input_key(old_engine,
                                                         pinned, context):
    """Such an engine would take the request and ignore ``input_key``:
    the agent would get the config with its ``get_input`` maps. Unpinned,
    oslo.messaging refuses the call; pinned, the API does, unsent."""
    with pytest.raises(messaging.UnsupportedVersion):
        pinned(None).create_software_deployment(context, STRUCTURED)
    with pytest.raises(exception.EngineUpgradeRequired) as caught:
        pinned('1.5').create_software_deployment(context, STRUCTURED)
    assert caught.value.message.startswith(
        'A deployment creation with input_key or input_values_validate '
        'needs engine RPC API 1.8')
    assert old_engine.received == []


def test_an_engine_before_1_9_never_receives_a_list(old_engine, pinned,
                                                    context):
    """An engine of 1.5 has no list creation: unpinned, oslo.messaging
    refuses the call; pinned, the API refuses it (409), unsent."""
    with pytest.raises(messaging.UnsupportedVersion):
        pinned(None).create_software_deployments(context, [RAW])
    with pytest.raises(exception.EngineUpgradeRequired) as caught:
        pinned('1.5').create_software_deployments(context, [RAW])
    assert caught.value.message.startswith(
        'Creating deployments from a list needs engine RPC API 1.9, but '
        'this API server is pinned to 1.5')
    assert old_engine.received == []


def test_an_engine_refuses_a_bad_cap_too(monkeypatch, set_conf):
    """The configuration file is often shared with the API servers."""
    monkeypatch.setattr(engine_service.signing, 'keyring', lambda: None)
    monkeypatch.setattr(engine_service.transports, 'check_defaults',
                        lambda *args: None)
    engine_service.check_config()
    set_conf('engine', '1.12', group='upgrade_levels')
    with pytest.raises(exception.ConfigurationError) as caught:
        engine_service.check_config()
    assert "[upgrade_levels] engine = '1.12'" in caught.value.message
