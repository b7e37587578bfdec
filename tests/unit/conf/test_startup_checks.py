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

"""The start-up checks of swconfig.common.config: options nothing reads,
values of the wrong type, an incomplete [keystone_authtoken], and the
option list that --help prints. Each test parses a real file into a
ConfigOpts of its own."""

import logging
import os

from oslo_config import cfg
import pytest

from swconfig import transports
from swconfig.common import config
from swconfig.common import exception
from swconfig.conf import agent
from swconfig.conf import api
from swconfig.conf import database
from swconfig.conf import default
from swconfig.conf import engine
from swconfig.conf import opts

GENERATOR_CONFIG = os.path.join(
    os.path.dirname(__file__), '..', '..', '..', 'etc', 'swconfig',
    'swconfig-config-generator.conf')


@pytest.fixture
def parsed(tmp_path):
    """``parsed(text)``: (conf, path) with ``text`` as the config file."""
    def _parsed(text: str) -> tuple[cfg.ConfigOpts, str]:
        path = tmp_path / 'swconfig.conf'
        path.write_text(text)
        conf = cfg.ConfigOpts()
        for module in (default, agent, api, database, engine):
            module.register_opts(conf)
        config.parse_args(['test', '--config-file', str(path)],
                          default_config_files=[], conf=conf)
        return conf, str(path)
    return _parsed


def test_a_typo_in_a_known_section_is_found_with_its_likely_meaning(parsed):
    conf, path = parsed('[api]\nbind_prot = 8004\nbind_host = 0.0.0.0\n')
    assert config.unknown_options(conf) == [
        (path, 'api', 'bind_prot', 'bind_port')]


def test_library_options_and_other_sections_are_not_reported(parsed):
    conf, _ = parsed(
        '[DEFAULT]\ntransport_url = rabbit://h/\ndebug = true\n'
        'graceful_shutdown_timeout = 10\n'
        '[oslo_messaging_rabbit]\nheartbeat_timeout_threshold = 0\n'
        '[database]\nconnection = sqlite://\nmax_pool_size = 4\n'
        '[keystone_authtoken]\nauth_type = password\nauth_url = http://k/\n'
        'username = swconfig\npassword = secret\nproject_name = service\n'
        'www_authenticate_uri = http://k/\n'
        '[some_other_service]\nanything = 1\n')
    assert config.unknown_options(conf) == []


def test_an_option_of_another_plugin_is_reported(parsed):
    """Plugin options are known only for the plugin auth_type names."""
    conf, _ = parsed('[keystone_authtoken]\nauth_type = password\n'
                     'auth_url = http://k/\napplication_credential_id '
                     '= x\n')
    assert [(s, n) for _, s, n, _ in config.unknown_options(conf)] == [
        ('keystone_authtoken', 'application_credential_id')]


def test_unknown_options_are_logged_as_warnings(parsed, caplog):
    conf, path = parsed('[engine]\ntopik = swconfig\n')
    with caplog.at_level(logging.WARNING, logger='swconfig.common.config'):
        config.warn_unknown_options(conf)
    assert [r.getMessage() for r in caplog.records] == [
        f'Unknown option topik in section [engine] of {path} is ignored '
        f'(did you mean topic?)']


def test_a_bad_value_names_the_option_and_its_file(parsed):
    conf, path = parsed('[api]\nbind_port = abc\n')
    with pytest.raises(exception.ConfigurationError) as raised:
        config.check_values(conf)
    assert raised.value.message == (
        f"Configuration error: [api] bind_port in {path}: invalid literal "
        f"for int() with base 10: 'abc'")


def test_a_value_out_of_range_in_default_is_found(parsed):
    conf, path = parsed('[DEFAULT]\nmax_software_configs_per_tenant = -5\n')
    with pytest.raises(exception.ConfigurationError) as raised:
        config.check_values(conf)
    assert raised.value.message.startswith(
        f'Configuration error: [DEFAULT] max_software_configs_per_tenant in '
        f'{path}: ')


def test_good_values_pass(parsed):
    conf, _ = parsed('[api]\nbind_port = 8004\nworkers = 2\n')
    config.check_values(conf)
    assert conf.api.bind_port == 8004


@pytest.mark.parametrize('section, expected', [
    ('', 'needs [keystone_authtoken] auth_type (e.g. password)'),
    ('[keystone_authtoken]\nauth_type = password\nusername = u\n',
     'needs [keystone_authtoken] auth_url for auth_type = password'),
    ('[keystone_authtoken]\nauth_type = passwort\n',
     'needs [keystone_authtoken] auth_type to name a keystoneauth plugin'),
])
def test_an_incomplete_authtoken_section_is_explained(parsed, section,
                                                      expected):
    conf, _ = parsed(section)
    assert expected in config.keystone_authtoken_problem(conf)


def test_a_complete_authtoken_section_passes(parsed):
    conf, _ = parsed('[keystone_authtoken]\nauth_type = password\n'
                     'auth_url = http://k/\nusername = u\npassword = p\n'
                     'project_name = service\n')
    assert config.keystone_authtoken_problem(conf) is None


def test_help_epilog_names_every_swconfig_option():
    epilog = config.help_epilog()
    for group, group_opts in opts.list_opts():
        name = getattr(group, 'name', group)
        assert f'[{name}]' in epilog
        if name != 'database':
            for opt in group_opts:
                assert opt.dest in epilog, (name, opt.dest)


def test_library_namespaces_are_the_sample_configs():
    with open(GENERATOR_CONFIG) as handle:
        lines = handle.read().splitlines()
    namespaces = [line.partition('=')[2].strip() for line in lines
                  if line.replace(' ', '').startswith('namespace=')]
    assert namespaces[:2] == ['swconfig', opts.TRANSPORT_NAMESPACE]
    assert tuple(namespaces[2:]) == opts.LIBRARY_NAMESPACES


def test_help_epilog_names_the_installed_transports_options():
    epilog = config.help_epilog()
    for group, group_opts in transports.list_opts():
        assert f'[{group.name}]' in epilog
        for opt in group_opts:
            assert opt.dest in epilog, (group.name, opt.dest)
