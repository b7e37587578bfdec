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

"""Options renamed to say what they are: the old name in a configuration
file still sets the option, oslo.config logs that it is deprecated, and
the start-up check does not report it as unknown."""

import logging

from oslo_config import cfg
import pytest

from swconfig.common import config
from swconfig.conf import agent
from swconfig.conf import api
from swconfig.conf import coordination
from swconfig.conf import database
from swconfig.conf import default
from swconfig.conf import engine

RENAMED = [
    ('engine', 'heartbeat_interval', 'database_heartbeat_interval', '7', 7),
    ('coordination', 'heartbeat_interval', 'member_heartbeat_interval',
     '2.5', 2.5),
]


def _parsed(tmp_path, text: str) -> cfg.ConfigOpts:
    path = tmp_path / 'swconfig.conf'
    path.write_text(text)
    conf = cfg.ConfigOpts()
    for module in (default, agent, api, database, engine, coordination):
        module.register_opts(conf)
    config.parse_args(['test', '--config-file', str(path)],
                      default_config_files=[], conf=conf)
    return conf


@pytest.mark.parametrize('group, old, new, text, value', RENAMED,
                         ids=[f'{g}.{o}' for g, o, *_ in RENAMED])
def test_the_old_name_sets_the_option_and_is_logged_deprecated(
        tmp_path, caplog, group, old, new, text, value):
    conf = _parsed(tmp_path, f'[{group}]\n{old} = {text}\n')
    with caplog.at_level(logging.WARNING, logger='oslo_config.cfg'):
        assert getattr(conf[group], new) == value
    assert [r.getMessage() for r in caplog.records
            if r.name == 'oslo_config.cfg'] == [
        f'Deprecated: Option "{old}" from group "{group}" is deprecated. '
        f'Use option "{new}" from group "{group}".']
    assert config.unknown_options(conf) == []


@pytest.mark.parametrize('group, old, new, text, value', RENAMED,
                         ids=[f'{g}.{o}' for g, o, *_ in RENAMED])
def test_the_new_name_sets_the_option_without_a_warning(
        tmp_path, caplog, group, old, new, text, value):
    conf = _parsed(tmp_path, f'[{group}]\n{new} = {text}\n')
    with caplog.at_level(logging.WARNING, logger='oslo_config.cfg'):
        assert getattr(conf[group], new) == value
    assert [r for r in caplog.records if r.name == 'oslo_config.cfg'] == []
