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

"""The ``swconfig`` console script: a cliff App and its command table."""

import argparse
from collections.abc import Sequence
import sys

from cliff import app
from cliff import commandmanager
from cliff import help as cliff_help

from swconfig import version
from swconfig.cli import cloud
from swconfig.cli import configs
from swconfig.cli import deployments
from swconfig.cli import overview
from swconfig.cli import rollouts
from swconfig.cli import server_groups
from swconfig.cli import servers
from swconfig.cli import signalling
from swconfig.client import rest as api_client

#: Every command, spelled as the user types it (no entry points: the table
#: is the documentation's list).
COMMANDS = {
    'config create': configs.CreateConfig,
    'config list': configs.ListConfigs,
    'config show': configs.ShowConfig,
    'config delete': configs.DeleteConfigs,
    'deployment create': deployments.CreateDeployment,
    'deployment list': deployments.ListDeployments,
    'deployment show': deployments.ShowDeployment,
    'deployment delete': deployments.DeleteDeployments,
    'deployment trigger': deployments.TriggerDeployment,
    'deployment action': deployments.RunAction,
    'deployment events': deployments.ListEvents,
    'deployment output show': deployments.ShowOutput,
    'deployment cancel': deployments.CancelDeployment,
    'deployment wait': deployments.WaitForDeployment,
    'deployment signal': signalling.SignalDeployment,
    'server list': servers.ListServers,
    'server show': servers.ShowServer,
    'server set': servers.SetServer,
    'server metadata show': servers.ShowMetadata,
    'server agent-config': servers.AgentConfig,
    'server-group create': server_groups.CreateServerGroup,
    'server-group list': server_groups.ListServerGroups,
    'server-group show': server_groups.ShowServerGroup,
    'server-group delete': server_groups.DeleteServerGroups,
    'rollout create': rollouts.CreateRollout,
    'rollout list': rollouts.ListRollouts,
    'rollout show': rollouts.ShowRollout,
    'rollout wait': rollouts.WaitForRollout,
    'rollout targets': rollouts.ListTargets,
    'rollout events': rollouts.ListRolloutEvents,
    'rollout cancel': rollouts.CancelRollout,
}


class SwconfigApp(app.App):
    """The App builds its REST client on first use, so ``--help`` and
    usage errors need no credentials."""

    def __init__(self, argv: Sequence[str]) -> None:
        #: The command line, for the options that depend on it.
        self.argv = list(argv)
        self._loader = None
        self._client: api_client.Client | None = None
        manager = commandmanager.CommandManager('swconfig.cli')
        for name, command in COMMANDS.items():
            manager.add_command(name, command)
        super().__init__(
            description='Create software configs, deploy them to servers, '
                        'run and trigger their actions, follow them, read '
                        'their outputs, cancel them; label servers, '
                        'group them and roll configs out to many.',
            version=version.version_string(),
            command_manager=manager, deferred_help=True)
        # cliff adds its help command: ours leads with the commands.
        manager.add_command('help', overview.Help)
        manager.add_command('help auth', overview.AuthHelp)

    def print_help_if_requested(self) -> None:
        if self.deferred_help and self.options.deferred_help:
            self.stdout.write(overview.text(self))
            raise cliff_help.HelpExit()

    def build_option_parser(self, description: str | None,
                            version: str | None,
                            argparse_kwargs: dict | None = None
                            ) -> argparse.ArgumentParser:
        parser = super().build_option_parser(description, version,
                                             argparse_kwargs)
        self._loader = cloud.register_arguments(parser, self.argv)
        return parser

    def configure_logging(self) -> None:
        # --debug shows the debug lines too, as with ``openstack --debug``.
        if self.options.debug:
            self.options.verbose_level = max(self.options.verbose_level, 2)
        super().configure_logging()

    @property
    def client(self) -> api_client.Client:
        if self._client is None:
            self._client = cloud.make_client(self._loader, self.options)
        return self._client


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        swconfig = SwconfigApp(argv)
    except api_client.SwconfigError as error:
        # Before cliff can report it: e.g. an unknown --os-cloud.
        sys.stderr.write(f'{error}\n')
        return 1
    return swconfig.run(argv)
