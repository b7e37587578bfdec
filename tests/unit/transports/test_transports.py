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

"""Transport plugins: which are available, start-up checks, TempURLs,
and the agent settings each metadata transport hands out."""

import hashlib
import hmac
from urllib import parse

import pytest

from swconfig import transports
from swconfig.common import exception
from swconfig.common import signing
from swconfig.engine import metadata
from swconfig.transports.swift import client as swift
from swconfig.transports.swift import client_derived as client_temp_url
from swconfig.transports.swift import poller
from swconfig.transports.swift import signal as temp_url_signal


@pytest.fixture
def swift_conf(set_conf):
    """A configured [swift] whose account details are already known, so
    nothing here talks to a Swift."""
    set_conf('auth_url', 'http://swift.test/auth/v1.0', group='swift')
    set_conf('user', 'svc:swconfig', group='swift')
    set_conf('key', 'secret', group='swift')
    set_conf('temp_url_key', 'tempurl-key', group='swift')
    swift.reset()
    swift._account.update({
        'storage_url': 'http://10.0.0.1:8080/v1/AUTH_svc',
        'agent_url': 'https://swift.example.com/v1/AUTH_svc',
        'key': 'tempurl-key'})
    swift._known_containers.update(
        swift.signal_container_name(shard)
        for shard in range(swift.SIGNAL_CONTAINERS))
    yield
    swift.reset()


def test_swift_transports_need_their_section():
    assert 'TEMP_URL_SIGNAL' not in transports.available()
    with pytest.raises(exception.UnknownSignalTransport) as caught:
        transports.get('TEMP_URL_SIGNAL')
    assert 'HEAT_SIGNAL' in str(caught.value)


def test_unconfigured_default_refuses_to_start_in_one_line():
    with pytest.raises(exception.ConfigurationError) as caught:
        transports.check_defaults('TEMP_URL_SIGNAL', 'POLL_SERVER_URL')
    assert caught.value.message == (
        'Configuration error: default_deployment_signal_transport = '
        'TEMP_URL_SIGNAL but the [swift] section has no auth_url')
    with pytest.raises(exception.ConfigurationError) as caught:
        transports.check_defaults('HEAT_SIGNAL', 'POLL_TEMP_URL')
    assert 'default_software_config_transport = POLL_TEMP_URL' in str(
        caught.value)


def test_configured_swift_makes_its_transports_available(swift_conf):
    assert {'TEMP_URL_SIGNAL', 'HEAT_SIGNAL', 'NO_SIGNAL'} <= set(
        transports.available())
    transports.check_defaults('TEMP_URL_SIGNAL', 'POLL_TEMP_URL')


def _verify(url: str, key: str, method: str) -> None:
    """Check a TempURL the way Swift's tempurl middleware does (sha256:
    a hex signature)."""
    parts = parse.urlsplit(url)
    query = dict(parse.parse_qsl(parts.query))
    body = f'{method}\n{query["temp_url_expires"]}\n{parts.path}'
    expected = hmac.new(key.encode(), body.encode(),
                        hashlib.sha256).hexdigest()
    assert query['temp_url_sig'] == expected


def test_signal_temp_url_is_signed_for_put_on_the_agents_url(swift_conf):
    deployment_id = 'a1b2c3d4-0000-4000-8000-000000000001'
    inputs = transports.get('TEMP_URL_SIGNAL').signal_inputs(
        {'id': 'server-1'}, deployment_id, 3)
    values = {item['name']: item['value'] for item in inputs}
    assert values['deploy_signal_verb'] == 'PUT'
    url = values['deploy_signal_id']
    container = swift.signal_container(deployment_id)
    assert url.startswith('https://swift.example.com/v1/AUTH_svc/'
                          f'{container}/{deployment_id}/3?')
    _verify(url, 'tempurl-key', 'PUT')


def test_signal_containers_are_stable_and_spread():
    ids = [f'{n:08x}-0000-4000-8000-{n:012x}' for n in range(3200)]
    containers = [swift.signal_container(i) for i in ids]
    assert containers == [swift.signal_container(i) for i in ids]
    counts = {c: containers.count(c) for c in set(containers)}
    assert len(counts) == swift.SIGNAL_CONTAINERS
    assert min(counts.values()) > 50 and max(counts.values()) < 160


def test_object_names_round_trip():
    name = temp_url_signal.object_name('dep-1', 7)
    assert poller.parse_object_name(name) == ('dep-1', 7)
    assert poller.parse_object_name('stray-object') is None
    assert poller.parse_object_name('dep/x') is None


def test_poll_temp_url_agent_config_is_a_get_temp_url(swift_conf):
    server = {'id': 'server-9', 'token_revision': 1,
              'config_transport': 'POLL_TEMP_URL'}
    config = metadata.agent_config(server)
    settings = config['os-collect-config']
    assert settings['collectors'] == ['request']
    url = settings['request']['metadata_url']
    assert url.startswith('https://swift.example.com/v1/AUTH_svc/'
                          'swconfig-metadata/server-9?')
    _verify(url, 'tempurl-key', 'GET')
    assert config['os_collect_config_conf'] == (
        '[DEFAULT]\ncollectors = request\ncommand = os-refresh-config\n'
        f'polling_interval = {settings["polling_interval"]}\n\n'
        f'[request]\nmetadata_url = {url}\n')


def test_servers_from_before_the_choice_poll_swconfig(agent_base_url,
                                                     monkeypatch):
    monkeypatch.setattr(signing, '_KEYRING',
                        signing.KeyRing({'unit': b'u' * 32}, 'unit'))
    server = {'id': 'server-9', 'token_revision': 1,
              'config_transport': None}
    settings = metadata.stored_collect_config_settings(server)
    assert settings['request']['metadata_url'].startswith(
        f'{agent_base_url}/')


def test_client_temp_url_object_from_the_url_path():
    assert client_temp_url.object_path(
        'http://evil.example/v1/AUTH_p/cont%20a/obj?temp_url_sig=x'
    ) == ('cont a', 'obj')
    assert client_temp_url.object_path('http://h/obj') is None


def test_client_temp_url_reads_the_callers_catalog_only():
    catalog = ('[{"type": "identity", "endpoints": [{"publicURL": '
               '"http://k"}]}, {"type": "object-store", "endpoints": '
               '[{"region": "R", "internalURL": "http://int/v1/AUTH_p", '
               '"publicURL": "http://pub/v1/AUTH_p"}]}]')
    assert client_temp_url.storage_url(catalog, 'p') == (
        'http://pub/v1/AUTH_p')
    assert client_temp_url.storage_url(None, 'p') is None
    assert client_temp_url.storage_url('not json', 'p') is None
    assert client_temp_url.storage_url('[{"type": "identity"}]', 'p') is None


@pytest.fixture
def client_derived_deployment(monkeypatch):
    """An IN_PROGRESS deployment whose config heatclient derived for
    TEMP_URL_SIGNAL; records what the Swift transport is asked."""
    asked = []
    config = {'inputs': [
        {'name': 'deploy_signal_transport', 'value': 'TEMP_URL_SIGNAL'},
        {'name': 'deploy_signal_id', 'value': 'http://s/v1/AUTH_p/c/o'}]}
    monkeypatch.setattr(transports.db_api, 'software_config_get',
                        lambda context, config_id: config)
    monkeypatch.setattr(
        client_temp_url, 'poll',
        lambda context, row, inputs, catalog, sink: asked.append(
            (row['id'], inputs['deploy_signal_id'], catalog)) or True)
    row = {'id': 'dep-1', 'config_id': 'cfg-1', 'status': 'IN_PROGRESS',
           'source_config_id': None, 'action_revision': 1}
    return row, asked


def test_a_client_derived_signal_is_read_when_swift_is_not_ours(
        client_derived_deployment):
    """heatclient's TempURL lives in the user's Swift: the deployment is
    polled on show even when swconfig has no [swift] of its own."""
    row, asked = client_derived_deployment
    assert 'TEMP_URL_SIGNAL' not in transports.available()
    assert transports.poll_on_show(None, row, {'X-Service-Catalog': '[]'},
                                   None)
    assert asked == [('dep-1', 'http://s/v1/AUTH_p/c/o', '[]')]


@pytest.mark.parametrize('change', [{'status': 'COMPLETE'},
                                    {'source_config_id': 'src-1'}])
def test_only_in_progress_client_derived_deployments_are_polled(
        client_derived_deployment, change):
    row, asked = client_derived_deployment
    assert not transports.poll_on_show(None, row | change, {}, None)
    assert asked == []
