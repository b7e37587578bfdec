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

"""``swconfig server-group create|list|show|delete``: named sets of the
project's servers, explicit and/or by label, that rollouts target.

A group is named by its id or by its name (names are unique in a
project)."""

import argparse
import logging

from cliff import command
from cliff import lister
from cliff import show

from swconfig.cli import servers
from swconfig.cli import views
from swconfig.client import rest as api_client

LOG = logging.getLogger(__name__)


def find(client: api_client.Client, name_or_id: str) -> dict:
    """The group with this id, or else with this name."""
    try:
        return client.server_group_show(name_or_id)
    except api_client.SwconfigError as error:
        if error.status != 404:
            raise
    named = [group for group in client.server_group_list()
             if group['name'] == name_or_id]
    if not named:
        raise api_client.SwconfigError(
            f'No server group with id or name {name_or_id!r} in the '
            f'project.', 404)
    return client.server_group_show(named[0]['id'])


class CreateServerGroup(show.ShowOne):
    """Create a server group: explicit servers, the servers whose labels
    match a selector, or both. Shows the servers it holds now."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('name', metavar='NAME',
                            help='Name of the group, unique in the project')
        parser.add_argument(
            '--selector', dest='selector', metavar='KEY=VALUE',
            action='append', type=servers.label, default=[],
            help='A label the members carry; repeat for more: a server '
                 'must carry all of them (servers labelled later join)')
        parser.add_argument(
            '--server', dest='servers', metavar='SERVER', action='append',
            default=[],
            help='A server that is a member whatever its labels (it must '
                 'be registered to the project); repeat for more')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        if not parsed_args.selector and not parsed_args.servers:
            raise api_client.SwconfigError(
                'A server group needs --selector, --server or both.')
        body: dict = {'name': parsed_args.name}
        if parsed_args.servers:
            body['servers'] = parsed_args.servers
        if parsed_args.selector:
            body['selector'] = servers.labels(parsed_args.selector)
        return views.one(self.app.client.server_group_create(body),
                         views.SERVER_GROUP)


class ListServerGroups(lister.Lister):
    """List the project's server groups, by name."""

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.many(self.app.client.server_group_list(),
                          views.SERVER_GROUP_LIST)


class ShowServerGroup(show.ShowOne):
    """Show a server group and the servers it holds now (``members``,
    sorted by id: what a rollout would target)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('group', metavar='GROUP',
                            help='The group, by id or name')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.one(find(self.app.client, parsed_args.group),
                         views.SERVER_GROUP)


class DeleteServerGroups(command.Command):
    """Delete server groups (their servers stay registered)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('groups', metavar='GROUP', nargs='+',
                            help='The groups to delete, by id or name')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        failed = 0
        for name_or_id in parsed_args.groups:
            try:
                group = find(self.app.client, name_or_id)
                self.app.client.server_group_delete(group['id'])
            except api_client.SwconfigError as error:
                LOG.error('%s: %s', name_or_id, error)
                failed += 1
        return 1 if failed else 0
