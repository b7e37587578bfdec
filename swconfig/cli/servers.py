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

"""``swconfig server list|show|set|metadata show|agent-config``."""

import argparse

from cliff import lister
from cliff import show

from swconfig.cli import views
from swconfig.client import rest as api_client


def label(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` -> a label (the service checks the rules)."""
    key, has_value, value = text.partition('=')
    if not key or not has_value:
        raise argparse.ArgumentTypeError(
            f'{text!r} is not KEY=VALUE (an empty VALUE is allowed: KEY=)')
    return key, value


def labels(pairs: list[tuple[str, str]]) -> dict[str, str]:
    """Repeated ``KEY=VALUE`` options as one mapping; a key given two
    values is an error (a server has one value per key)."""
    found: dict[str, str] = {}
    for key, value in pairs:
        if found.setdefault(key, value) != value:
            raise api_client.SwconfigError(
                f'Label {key} is given twice ({found[key]!r} and '
                f'{value!r}); a server has one value per key.')
    return found


class ListServers(lister.Lister):
    """List the project's servers, their labels and when their document
    last changed."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--label', dest='labels', metavar='KEY=VALUE', action='append',
            type=label, default=[],
            help='Only the servers with this label; repeat for the '
                 'servers with all of them')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.many(
            self.app.client.server_list(labels(parsed_args.labels)),
            views.SERVER)


class ShowServer(show.ShowOne):
    """Show a server registered to the project, with its labels."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('server_id', metavar='SERVER',
                            help='The server')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.one(self.app.client.server_show(parsed_args.server_id),
                         views.SERVER)


class SetServer(show.ShowOne):
    """Set a server's labels, which server group selectors match. The
    labels given replace all the server's labels; a new server is
    registered to the project."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('server_id', metavar='SERVER',
                            help='The server')
        given = parser.add_mutually_exclusive_group(required=True)
        given.add_argument(
            '--label', dest='labels', metavar='KEY=VALUE', action='append',
            type=label,
            help='A label of the server; repeat for more. The labels given '
                 'become all its labels (keys: 1 to 63 letters, digits, '
                 '"-", "_", "." or "/"; values: up to 255 characters; at '
                 'most 64 labels)')
        given.add_argument(
            '--no-label', action='store_true',
            help='Remove all the labels of the server')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        wanted = {} if parsed_args.no_label else labels(parsed_args.labels)
        return views.one(
            self.app.client.server_set_labels(parsed_args.server_id, wanted),
            views.SERVER)


class ShowMetadata(lister.Lister):
    """The deployments a server's agent receives, in the order it runs
    them (the document the agent polls)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('server_id', metavar='SERVER',
                            help='The server')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.many(
            self.app.client.server_metadata(parsed_args.server_id),
            views.METADATA)


class AgentConfig(show.ShowOne):
    """The agent's bootstrap settings for cloud-init; the first call
    claims the server for the project. ``-f value -c
    os_collect_config_conf`` prints a ready os-collect-config.conf."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('server_id', metavar='SERVER',
                            help='The server')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.one(
            self.app.client.agent_config(parsed_args.server_id),
            ('server_id', 'os-collect-config', 'os_collect_config_conf'))
