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

"""``swconfig --help`` leads with the commands and the three ways to
point the command at a service; the Keystone options are under
``swconfig help auth``, all of them. No service is needed."""

from swconfig.cli import main
from tests.integration.swconfig_cli.cli_helpers import Cli

KEYSTONE_OPTIONS = ('--os-auth-url', '--os-username', '--os-password',
                    '--os-project-name', '--os-user-domain-id',
                    '--os-project-domain-name', '--os-region-name')


def test_help_leads_with_the_commands_and_the_ways_to_connect(tmp_path):
    cli = Cli(tmp_path, 'http://127.0.0.1:1/v1/demo')
    shown = cli('--help').ok()
    text = shown.stdout
    assert text.startswith('usage: swconfig [options] COMMAND [ARGS...]\n')
    commands = text.index('Commands (')
    connecting = text.index('Pointing at a service (one of three ways):')
    assert commands < connecting < text.index('Options:')
    listed = {line[2:26].strip() for line in
              text[commands:connecting].splitlines()[1:] if line[2:3] != ' '}
    assert listed - {''} == set(main.COMMANDS), listed
    for way in ('--os-cloud NAME, or OS_CLOUD=NAME', 'OS_AUTH_URL',
                'OS_AUTH_TYPE=none',
                'OS_ENDPOINT=http://127.0.0.1:8004/v1/PROJECT'):
        assert way in text[connecting:], way
    assert not [option for option in KEYSTONE_OPTIONS if option in text]
    assert max(len(line) for line in text.splitlines()) <= 79
    assert cli('help').ok().stdout == text


def test_help_auth_lists_every_keystone_option(tmp_path):
    cli = Cli(tmp_path, 'http://127.0.0.1:1/v1/demo')
    text = cli('help', 'auth').ok().stdout
    assert [option for option in KEYSTONE_OPTIONS if option not in text] \
        == []
    assert '--os-cloud' in text and '--os-timeout' in text
    one = cli('help', 'deployment', 'wait').ok().stdout
    assert one.startswith('usage: swconfig deployment wait')
    assert '--retry-for SECONDS' in one
