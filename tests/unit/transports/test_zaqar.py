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

"""The Zaqar transports' configuration: start-up checks and the agent
settings of ZAQAR_MESSAGE (no Zaqar is contacted here)."""

import contextlib

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg
import pytest

from swconfig import transports
from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.transports.zaqar import client as zaqar
from swconfig.transports.zaqar import metadata as zaqar_message


@pytest.fixture
def fresh_session():
    zaqar.reset()
    yield
    zaqar.reset()


#: A Zaqar behind Keystone: swconfig's options and the password plugin's.
KEYSTONE_SETTINGS = {'endpoint': 'http://zaqar.test:8888',
                     'auth_type': 'password', 'project_id': 'p-svc',
                     'auth_url': 'http://keystone.test:5000/v3',
                     'username': 'swconfig', 'password': 'secret',
                     'user_domain_id': 'default'}


@pytest.fixture
def zaqar_with_keystone(fresh_session):
    """``[zaqar]`` with ``auth_type = password``, the plugin's options
    registered for this test only (the option list test sees the rest)."""
    ours = set(CONF.zaqar)
    CONF.set_override('auth_type', 'password', group='zaqar')
    zaqar.register_auth_plugin_opts()
    for name, value in KEYSTONE_SETTINGS.items():
        CONF.set_override(name, value, group='zaqar')
    yield
    for name in KEYSTONE_SETTINGS:
        CONF.clear_override(name, group='zaqar')
    for opt in ks_loading.get_auth_plugin_conf_options('password'):
        if opt.dest not in ours:
            # Once the session's tests parsed CONF, options stay; left
            # registered they change nothing (nothing sets them).
            with contextlib.suppress(cfg.ArgsAlreadyParsedError):
                CONF.unregister_opt(opt, group='zaqar')


def test_unconfigured_zaqar_default_refuses_to_start_in_one_line():
    with pytest.raises(exception.ConfigurationError) as caught:
        transports.check_defaults('ZAQAR_SIGNAL', 'POLL_SERVER_URL')
    assert caught.value.message == (
        'Configuration error: default_deployment_signal_transport = '
        'ZAQAR_SIGNAL but the [zaqar] section has no endpoint')
    with pytest.raises(exception.ConfigurationError) as caught:
        transports.check_defaults('HEAT_SIGNAL', 'ZAQAR_MESSAGE')
    assert caught.value.message == (
        'Configuration error: default_software_config_transport = '
        'ZAQAR_MESSAGE but the [zaqar] section has no endpoint')


def test_zaqar_without_keystone_needs_a_project(set_conf, fresh_session):
    set_conf('endpoint', 'http://zaqar.test:8888', group='zaqar')
    set_conf('auth_type', 'none', group='zaqar')
    assert 'ZAQAR_SIGNAL' not in transports.available()
    with pytest.raises(exception.ConfigurationError) as caught:
        transports.check_defaults('ZAQAR_SIGNAL', 'POLL_SERVER_URL')
    assert 'project_id is required with auth_type = none' in str(
        caught.value)
    set_conf('project_id', 'p-1', group='zaqar')
    transports.check_defaults('ZAQAR_SIGNAL', 'ZAQAR_MESSAGE')
    assert 'ZAQAR_SIGNAL' in transports.available()


def test_agent_settings_name_keystone_when_zaqar_uses_it(
        zaqar_with_keystone):
    """The plugin's own options live in [zaqar] beside swconfig's, and
    ``project_id`` is both swconfig's and the plugin's scope."""
    settings = zaqar_message.ZaqarMessageTransport().collector_settings(
        {'id': 'server-1'})
    assert settings['zaqar'] == {
        'queue_id': 'swconfig-m-server-1', 'project_id': 'p-svc',
        'auth_url': 'http://keystone.test:5000/v3'}
    plugin = zaqar.session().auth
    assert (plugin.auth_url, plugin._project_id) == (
        'http://keystone.test:5000/v3', 'p-svc')


def test_agent_settings_without_keystone_have_no_auth_url(set_conf,
                                                          fresh_session):
    set_conf('endpoint', 'http://zaqar.test:8888', group='zaqar')
    set_conf('project_id', 'p-svc', group='zaqar')
    settings = zaqar_message.ZaqarMessageTransport().collector_settings(
        {'id': 'server-1'})
    assert settings['collectors'] == ['zaqar']
    assert settings['zaqar'] == {'queue_id': 'swconfig-m-server-1',
                                 'project_id': 'p-svc'}


def test_queue_names_zaqar_would_refuse_become_digests():
    assert zaqar.queue_name('s', 'd-1-2') == 'swconfig-s-d-1-2'
    odd = zaqar.queue_name('m', 'server/with spaces' + 'x' * 80)
    assert len(odd) <= 64 and zaqar._QUEUE_NAME.match(odd)
    assert odd == zaqar.queue_name('m', 'server/with spaces' + 'x' * 80)
