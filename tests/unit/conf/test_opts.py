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

"""Every option is listed once, registered, and has help text."""

import importlib
from importlib import metadata
import pkgutil

from oslo_config import cfg
from oslo_config import generator
import pytest

from swconfig import conf as swconfig_conf
from swconfig.conf import opts

LISTED = [(str(group), opt) for group, group_opts in opts.list_opts()
          for opt in group_opts]


def _group_name(group):
    return group.name if isinstance(group, cfg.OptGroup) else group


def _listed_names():
    return {(_group_name(group), opt.dest) for group, group_opts in
            opts.list_opts() for opt in group_opts}


@pytest.mark.parametrize('group, opt', LISTED,
                         ids=[f'{g}.{o.name}' for g, o in LISTED])
def test_every_option_has_help(group, opt):
    assert opt.help and opt.help.strip()


def test_no_option_is_listed_twice_in_a_group():
    seen = [(_group_name(group), opt.dest)
            for group, group_opts in opts.list_opts() for opt in group_opts]
    assert len(seen) == len(set(seen))


def test_each_group_is_listed_once():
    groups = [_group_name(group) for group, _ in opts.list_opts()]
    assert len(groups) == len(set(groups))


def _registered(conf):
    registered = set()
    for name in conf:
        if isinstance(getattr(conf, name), cfg.ConfigOpts.GroupAttr):
            registered |= {(name, opt) for opt in conf[name]}
        else:
            registered.add(('DEFAULT', name))
    return registered


def test_listed_options_are_exactly_what_the_conf_modules_register():
    conf = cfg.ConfigOpts()
    builtin = _registered(conf)
    for info in pkgutil.iter_modules(swconfig_conf.__path__):
        module = importlib.import_module(f'swconfig.conf.{info.name}')
        if hasattr(module, 'register_opts'):
            module.register_opts(conf)
    assert _registered(conf) - builtin == _listed_names()


def test_listed_options_are_registered_on_the_global_conf():
    from swconfig.conf import CONF
    for group, opt_name in _listed_names():
        namespace = CONF if group == 'DEFAULT' else CONF[group]
        assert opt_name in namespace, (group, opt_name)


def test_entry_point_is_list_opts():
    (entry_point,) = [ep for ep in metadata.entry_points(
        group='oslo.config.opts') if ep.name == 'swconfig']
    assert entry_point.load() is opts.list_opts


def test_sample_config_can_be_generated(tmp_path):
    sample = tmp_path / 'swconfig.conf.sample'
    conf = cfg.ConfigOpts()
    generator.register_cli_opts(conf)
    conf(['--namespace', 'swconfig', '--output-file', str(sample)])
    generator.generate(conf)
    text = sample.read_text()
    assert '[api]' in text
    assert '#max_json_body_size = 1048576' in text
    for group, opt_name in _listed_names():
        assert f'#{opt_name} = ' in text or f'#{opt_name} =\n' in text, (
            group, opt_name)
