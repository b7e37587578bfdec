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

"""``swconfig server list|metadata show|agent-config``."""

import argparse

from cliff import lister
from cliff import show

from swconfig.cli import views


class ListServers(lister.Lister):
    """List the project's servers and when their document last changed."""

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.many(self.app.client.server_list(), views.SERVER)


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
