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

"""``swconfig rollout create|list|show|targets|events|cancel``: one
config deployed to, or one action run on, many servers in waves.

``rollout create --wait`` and ``rollout wait`` follow the rollout until
it is over: a bar redrawn in place on a terminal, a line per change
otherwise; the exit status is that of ``exit_codes`` (0 only when the
rollout is COMPLETE)."""

import argparse
import logging
import sys
import time
from typing import TextIO

from cliff import lister
from cliff import show

from swconfig.cli import deployments
from swconfig.cli import exit_codes
from swconfig.cli import server_groups
from swconfig.cli import servers
from swconfig.cli import views
from swconfig.cli import waiting
from swconfig.client import rest as api_client

LOG = logging.getLogger(__name__)

ROLLOUT = ('id', 'status', 'status_reason', 'targets', 'server_group',
           'servers', 'selector', 'config_id', 'deployment_name', 'action',
           'max_concurrency', 'max_errors', 'project_id', 'creation_time',
           'started_time', 'finished_time')
ROLLOUT_LIST = ('id', 'status', 'max_concurrency', 'max_errors',
                'creation_time', 'finished_time')
TARGET_LIST = ('position', 'server_id', 'state', 'deployment_id',
               'started_time', 'finished_time')
EVENT_LIST = ('id', 'creation_time', 'event', 'reason')
#: Seconds each long poll of ``--wait`` may last.
POLL_SECONDS = 2
BAR_WIDTH = 30


def progress(rollout: dict, elapsed: float, bar: bool) -> str:
    """One progress line: done, failed, in progress, not started, the
    elapsed time and, once something finished, an estimate of the rest."""
    counts = rollout.get('targets') or {}
    total = sum(counts.values()) or 1
    done = counts.get('COMPLETE', 0)
    failed = counts.get('FAILED', 0)
    finished = done + failed + counts.get('CANCELLED', 0)
    text = (f'{done}/{total} done, {failed} failed, '
            f'{counts.get("IN_PROGRESS", 0)} in progress, '
            f'{counts.get("NOT_STARTED", 0)} not started, '
            f'{elapsed:.0f} s elapsed')
    if finished and finished < total:
        text += f', ETA {elapsed / finished * (total - finished):.0f} s'
    if bar:
        filled = round(BAR_WIDTH * finished / total)
        text = f'[{"#" * filled}{"." * (BAR_WIDTH - filled)}] {text}'
    return f'{rollout["status"]} {text}'


def _stopped_message(rollout_id: str) -> str:
    return (f'Stopped waiting; rollout {rollout_id} goes on: swconfig '
            f'rollout wait {rollout_id} follows it again, swconfig rollout '
            f'cancel {rollout_id} stops it.')


def follow(client: api_client.Client, rollout: dict, out: TextIO,
           tty: bool | None = None,
           retry_for: float = waiting.RETRY_FOR_SECONDS) -> dict:
    """Wait for the rollout to be over, reporting progress on ``out``: a
    bar redrawn in place on a terminal, else a line whenever the status
    or a count changed; the rollout as it ended."""
    tty = out.isatty() if tty is None else tty

    def say(text: str) -> None:
        out.write(('\r\033[K' if tty else '') + text + '\n')
        out.flush()

    calls = waiting.Reconnecting(
        say, retry_for, f'swconfig rollout wait {rollout["id"]}')
    try:
        return _follow(calls, client, rollout, out, tty)
    except KeyboardInterrupt:
        say(_stopped_message(rollout['id']))
        raise


def _follow(calls: waiting.Reconnecting, client: api_client.Client,
            rollout: dict, out: TextIO, tty: bool) -> dict:
    start = time.monotonic()
    last = None
    while True:
        seen = (rollout['status'], sorted((rollout.get('targets')
                                           or {}).items()))
        line = progress(rollout, time.monotonic() - start, tty)
        if tty:
            out.write('\r' + line + '\033[K')
            out.flush()
        elif seen != last:
            out.write(line + '\n')
            last = seen
        if rollout.get('finished_time'):
            if tty:
                out.write('\n')
            return rollout
        rollout = calls.call(client.rollout_show, rollout['id'],
                             wait=POLL_SECONDS)


class _ExitsAsTheRollout:
    """A command that follows a rollout: it exits with the status of
    ``exit_codes`` for how the rollout ended (``take_action`` sets it)."""

    _exit_status = exit_codes.COMPLETE

    def run(self, parsed_args: argparse.Namespace) -> int:
        self._exit_status = exit_codes.COMPLETE
        status = super().run(parsed_args)  # type: ignore[misc]
        return status or self._exit_status


class CreateRollout(_ExitsAsTheRollout, show.ShowOne):
    """Deploy a config to, or run an action on, many servers in waves."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument('--group', metavar='GROUP',
                            help='A server group, by id or name')
        target.add_argument('--server', dest='servers', metavar='SERVER',
                            action='append',
                            help='A server; repeat for more (started in '
                                 'the order given)')
        target.add_argument('--selector', metavar='KEY=VALUE',
                            action='append', type=servers.label,
                            help='A label the servers carry; repeat for '
                                 'more (all must match)')
        work = parser.add_mutually_exclusive_group(required=True)
        work.add_argument('--config', metavar='ID',
                          help='The config to deploy to every server')
        work.add_argument('--deployment-name', metavar='NAME',
                          help="With --action: each server's deployment "
                               'of the config of this name')
        parser.add_argument('--action', metavar='ACTION',
                            help='With --deployment-name: the action to '
                                 'trigger')
        parser.add_argument('--skip-missing', action='store_true',
                            help='With --deployment-name: leave out the '
                                 'servers that have no deployment of that '
                                 'name (otherwise the rollout is refused, '
                                 'naming them)')
        parser.add_argument('--input', dest='inputs', metavar='KEY=VALUE',
                            action='append', type=deployments.key_value,
                            default=[],
                            help="With --config: a value for one of the "
                                 "config's inputs; repeat for more")
        deployments.add_strict(parser)
        parser.add_argument('--signal-transport', metavar='NAME',
                            help="With --config (default: the service's)")
        parser.add_argument('--max-concurrency', metavar='N|N%',
                            help='Targets in progress at once (default 50)')
        parser.add_argument('--max-errors', metavar='N|N%',
                            help='Failures allowed before the rollout '
                                 'stops (default 0)')
        parser.add_argument('--wait', action='store_true',
                            help='Follow the rollout until it is over; '
                                 f'{exit_codes.HELP}')
        waiting.add_retry_for(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        if bool(parsed_args.deployment_name) != bool(parsed_args.action):
            raise api_client.SwconfigError(
                '--deployment-name and --action go together.')
        client = self.app.client
        body: dict = {}
        if parsed_args.group:
            body['server_group'] = server_groups.find(
                client, parsed_args.group)['id']
        elif parsed_args.servers:
            body['servers'] = parsed_args.servers
        else:
            body['selector'] = servers.labels(parsed_args.selector)
        if parsed_args.config:
            body['config_id'] = parsed_args.config
            if parsed_args.inputs:
                body['input_values'] = dict(parsed_args.inputs)
                deployments.check_inputs(client, parsed_args.config,
                                         body['input_values'],
                                         parsed_args.strict)
            if parsed_args.signal_transport:
                body['signal_transport'] = parsed_args.signal_transport
        else:
            body['deployment_name'] = parsed_args.deployment_name
            body['action'] = parsed_args.action
            if parsed_args.skip_missing:
                body['skip_missing'] = True
        for option in ('max_concurrency', 'max_errors'):
            if getattr(parsed_args, option) is not None:
                body[option] = getattr(parsed_args, option)
        rollout = client.rollout_create(body)
        if parsed_args.wait:
            rollout = follow(client, rollout, sys.stderr,
                             retry_for=parsed_args.retry_for)
            self._exit_status = exit_codes.of_rollout(rollout)
        return views.one(rollout, ROLLOUT)


class ListRollouts(lister.Lister):
    """List the project's rollouts, newest first."""

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.many(self.app.client.rollout_list(), ROLLOUT_LIST)


class _OneRollout:
    @staticmethod
    def add_rollout(parser: argparse.ArgumentParser) -> None:
        parser.add_argument('rollout', metavar='ROLLOUT',
                            help='The rollout id')


class ShowRollout(show.ShowOne, _OneRollout):
    """Show a rollout with its targets counted by state."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        self.add_rollout(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.one(self.app.client.rollout_show(parsed_args.rollout),
                         ROLLOUT)


class WaitForRollout(_ExitsAsTheRollout, show.ShowOne, _OneRollout):
    """Follow a rollout until it is over, as rollout create --wait does
    (again after Ctrl-C, say), then show it; exit status 0 COMPLETE, 3
    FAILED, 4 CANCELLED."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        self.add_rollout(parser)
        waiting.add_retry_for(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        client = self.app.client
        # Started while the service restarts, it waits for it too.
        first = waiting.Reconnecting(
            waiting.line_writer(sys.stderr), parsed_args.retry_for,
            f'swconfig rollout wait {parsed_args.rollout}').call(
                client.rollout_show, parsed_args.rollout)
        rollout = follow(client, first, sys.stderr,
                         retry_for=parsed_args.retry_for)
        self._exit_status = exit_codes.of_rollout(rollout)
        return views.one(rollout, ROLLOUT)


class ListTargets(lister.Lister, _OneRollout):
    """List a rollout's targets in the order they start."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        self.add_rollout(parser)
        parser.add_argument('--state', metavar='STATE',
                            help='Only targets in this state (NOT_STARTED, '
                                 'IN_PROGRESS, COMPLETE, FAILED, CANCELLED)')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.many(self.app.client.rollout_targets(
            parsed_args.rollout, parsed_args.state), TARGET_LIST)


class ListRolloutEvents(lister.Lister, _OneRollout):
    """List what happened to a rollout, oldest first."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        self.add_rollout(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.many(self.app.client.rollout_events(parsed_args.rollout),
                          EVENT_LIST)


class CancelRollout(show.ShowOne, _OneRollout):
    """Cancel a rollout: no new target starts, running ones are
    cancelled."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        self.add_rollout(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.one(self.app.client.rollout_cancel(parsed_args.rollout),
                         ROLLOUT)
