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

"""Where agents are told to reach swconfig (swconfig.common.urls): from
configuration only, with a start-up warning for unreachable loopback URLs.

Each test builds its own ConfigOpts, so the process-wide one is untouched.
"""

import socket

from oslo_config import cfg
import pytest

from swconfig.common import urls
from swconfig.conf import api as api_conf


def make_conf(**api_options):
    conf = cfg.ConfigOpts()
    conf.register_group(cfg.OptGroup(api_conf.group.name))
    conf.register_opts(api_conf.opts, group=api_conf.group.name)
    conf([], default_config_files=[])
    for name, value in api_options.items():
        conf.set_override(name, value, group='api')
    return conf


@pytest.mark.parametrize('options, expected', [
    ({}, 'http://127.0.0.1:8004'),
    ({'bind_host': '192.0.2.10', 'bind_port': 9000},
     'http://192.0.2.10:9000'),
    ({'bind_host': '2001:db8::5'}, 'http://[2001:db8::5]:8004'),
    ({'public_url': 'https://swconfig.example.com/'},
     'https://swconfig.example.com'),
    ({'public_url': 'https://swconfig.example.com:8004',
      'bind_host': '0.0.0.0'}, 'https://swconfig.example.com:8004'),
], ids=['default', 'bind address', 'ipv6 bind', 'public_url',
        'public_url over wildcard'])
def test_agent_base_url(options, expected):
    assert urls.agent_base_url(make_conf(**options)) == expected


def test_wildcard_bind_uses_the_host_name():
    conf = make_conf(bind_host='0.0.0.0', bind_port=8004)
    assert urls.agent_base_url(conf) == f'http://{socket.getfqdn()}:8004'


@pytest.mark.parametrize('options', [
    {'bind_host': '0.0.0.0', 'public_url': 'http://127.0.0.1:8004'},
    {'bind_host': '192.0.2.10', 'public_url': 'http://localhost:8004'},
    {'bind_host': '::', 'public_url': 'http://[::1]:8004'},
], ids=['127.0.0.1', 'localhost', '::1'])
def test_loopback_url_while_listening_elsewhere_is_a_problem(options):
    problem = urls.agent_base_url_problem(make_conf(**options))
    assert problem is not None
    assert options['public_url'].rstrip('/') in problem
    assert '[api] public_url' in problem


@pytest.mark.parametrize('options', [
    {},  # the embedded default: loopback URL, loopback bind
    {'bind_host': '0.0.0.0', 'public_url': 'http://192.0.2.10:8004'},
    {'bind_host': '192.0.2.10'},
], ids=['embedded default', 'public address', 'bind address'])
def test_reachable_url_is_no_problem(options):
    assert urls.agent_base_url_problem(make_conf(**options)) is None
