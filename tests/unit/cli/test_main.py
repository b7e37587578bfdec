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

"""The command table, its documentation and its argument parsing."""

import pathlib
import re

import pytest

from swconfig.cli import deployments
from swconfig.cli import main

DOC = pathlib.Path(__file__).parents[3] / 'doc/source/user/cli.rst'


def test_every_command_is_documented_and_nothing_else():
    documented = set()
    for line in DOC.read_text().splitlines():
        for name in re.findall(r'``((?:config|deployment|server|'
                               r'server-group|rollout) [a-z -]+?)'
                               r'(?: [A-Z(\[-].*?)?``', line):
            documented.add(name.strip())
    assert documented == set(main.COMMANDS)


@pytest.mark.parametrize('text', ['=x', 'novalue'])
def test_key_value_needs_both(text):
    with pytest.raises(Exception, match='is not KEY=VALUE'):
        deployments.key_value(text)


def test_key_value_keeps_later_equals_signs():
    assert deployments.key_value('url=http://x/?a=b') == (
        'url', 'http://x/?a=b')


def test_the_deployment_timeout_is_not_taken_by_the_global_options():
    """cliff parses global options anywhere on the line: keystoneauth's
    ``--timeout`` is renamed so ``deployment create --timeout`` keeps
    its value."""
    argv = ['deployment', 'create', '--config', 'c', '--server', 's',
            '--timeout', '5']
    app = main.SwconfigApp(argv)
    options, rest = app.parser.parse_known_args(argv)
    assert rest[-2:] == ['--timeout', '5']
    assert app.parser.parse_known_args(['--os-timeout', '7'])[0].timeout \
        == 7
