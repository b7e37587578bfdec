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

"""``swconfig --help`` (and ``swconfig help``): the commands first, then
the three ways to point the command at a service, then the few global
options. The forty-odd Keystone options argparse would list before the
commands move to ``swconfig help auth``, which prints them all."""

import argparse
import textwrap
from typing import Any

from cliff import command
from cliff import help as cliff_help

from swconfig.cli import cloud

#: Commands not listed among the user's (cliff's own).
_NOT_LISTED = ('help', 'help auth', 'complete')

_CONNECTING = """\
Pointing at a service (one of three ways):
  a cloud of clouds.yaml  --os-cloud NAME, or OS_CLOUD=NAME
  Keystone (an openrc)    OS_AUTH_URL, OS_USERNAME, OS_PASSWORD,
                          OS_PROJECT_NAME, OS_USER_DOMAIN_NAME,
                          OS_PROJECT_DOMAIN_NAME; swconfig is found in the
                          catalog (swconfig help auth: every option)
  no Keystone             OS_AUTH_TYPE=none
                          OS_ENDPOINT=http://127.0.0.1:8004/v1/PROJECT
                          (the embedded default, tools/dev.py serve)
"""

_OPTIONS = """\
Options:
  -h, --help              this help
  --version               the version of swconfig
  -v, -q                  more, or less, output on stderr
  --debug                 debug lines, and a traceback with an error
  --log-file FILE         a copy of the log in FILE
"""


#: Where the name column ends and the lines wrap.
_NAME_WIDTH = 26
_LINE_WIDTH = 79


def summary(factory: Any) -> str:
    """A command's docstring up to its first ``;``, ``:`` or sentence end
    outside parentheses: what it does, in a few words."""
    doc = ' '.join((factory.__doc__ or '').split())
    depth = 0
    for index, char in enumerate(doc):
        depth += {'(': 1, ')': -1}.get(char, 0)
        if depth == 0 and (char in ';:' or doc.startswith('. ', index)):
            return doc[:index]
    return doc.rstrip('.')


def text(app: Any) -> str:
    """The overview: commands, connecting, options."""
    lines = ['usage: swconfig [options] COMMAND [ARGS...]', '',
             textwrap.fill(app.parser.description, _LINE_WIDTH), '',
             'Commands (swconfig help COMMAND, or COMMAND --help: its '
             'options):']
    for name, entry in sorted(app.command_manager):
        if name in _NOT_LISTED:
            continue
        lines.extend(textwrap.wrap(
            summary(entry.load()), _LINE_WIDTH,
            initial_indent=f'  {name:<{_NAME_WIDTH - 2}}',
            subsequent_indent=' ' * _NAME_WIDTH))
    return '\n'.join(lines) + '\n\n' + _CONNECTING + '\n' + _OPTIONS


class Help(command.Command):
    """Help on swconfig, or on one command."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('cmd', nargs='*', metavar='COMMAND',
                            help='The command (e.g. deployment create)')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        if not parsed_args.cmd:
            self.app.stdout.write(text(self.app))
            return 0
        # One command's options: cliff's own help command.
        return cliff_help.HelpCommand(self.app, self.app_args).take_action(
            parsed_args)


class AuthHelp(command.Command):
    """Every option for reaching a service: Keystone's (those of the
    password plugin, or of the ``--os-auth-type`` given before ``help``),
    clouds.yaml's and the endpoint's."""

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        chosen = self.app_args.os_auth_type if '--os-auth-type' in ' '.join(
            self.app.argv) else None
        parser = argparse.ArgumentParser(
            prog='swconfig', usage='swconfig [options] COMMAND [ARGS...]',
            description='The options that point swconfig at a service '
                        f'(auth type {chosen or "password"}; swconfig '
                        '--os-auth-type TYPE help auth: those of TYPE).',
            add_help=False)
        cloud.register_arguments(
            parser, ['--os-auth-type', chosen or 'password'])
        parser.print_help(self.app.stdout)
        return 0
