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

"""``swconfig deployment ...``: deploy, run actions, trigger, follow,
read outputs, cancel."""

import argparse
import logging

from cliff import command
from cliff import lister
from cliff import show

from swconfig.cli import exit_codes
from swconfig.cli import views
from swconfig.cli import waiting
from swconfig.client import rest as api_client

LOG = logging.getLogger(__name__)


def key_value(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` of ``--input`` as a pair (argparse's type)."""
    key, has_value, value = text.partition('=')
    if not key or not has_value:
        raise argparse.ArgumentTypeError(f'{text!r} is not KEY=VALUE')
    return key, value


def _add_inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        '--input', dest='inputs', metavar='KEY=VALUE', action='append',
        type=key_value, default=[],
        help="A value for one of the config's inputs; repeat for more")


def add_strict(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        '--strict', action='store_true',
        help='Refuse an --input the config does not declare (a typo, '
             'say) instead of warning and passing it on')


def check_inputs(client: api_client.Client, config_id: str,
                 inputs: dict, strict: bool,
                 input_key: str | None = None) -> None:
    """Warn of the ``--input`` names the config does not take, as the
    service finds them (Heat passes them on as extra inputs, so a typo
    goes through silently); with ``strict``, refuse them before anything
    is created."""
    if not inputs:
        return
    message = client.config_input_check(config_id, inputs,
                                        input_key)['message']
    if message is None:
        return
    if strict:
        raise api_client.SwconfigError(
            f'{message} Nothing was created (--strict).')
    LOG.warning('%s The value is passed to the agent as given; --strict '
                'refuses it.', message)


def _add_timeout(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        '--timeout', type=int, metavar='SECONDS',
        help="Seconds to wait for the agent's signal before the deployment "
             "fails (0: for ever; default: the service's)")


def _add_wait(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        '--wait', action='store_true',
        help='Follow the action until it finishes (progress on stderr), '
             f'then show the deployment; {exit_codes.HELP}')
    waiting.add_retry_for(parser)


class DeploymentCommand(show.ShowOne):
    """A command that answers with one deployment, optionally after
    waiting for its action to finish."""

    exit_status = 0
    #: Wait without being asked (``deployment wait``).
    always_waits = False

    def show(self, deployment: dict | None,
             parsed_args: argparse.Namespace) -> tuple:
        if deployment is None:
            raise waiting.DeploymentGone(parsed_args.deployment_id)
        if self.always_waits or getattr(parsed_args, 'wait', False):
            deployment = waiting.wait(self.app.client, deployment,
                                      self.app.stderr,
                                      parsed_args.retry_for)
            self.exit_status = exit_codes.of_deployment(deployment)
        return views.one(deployment, views.DEPLOYMENT)

    def run(self, parsed_args: argparse.Namespace) -> int:
        try:
            return super().run(parsed_args) or self.exit_status
        except waiting.DeploymentGone as gone:
            # A DELETE action removed it: nothing left to show.
            LOG.info('%s', gone)
            return 0


class CreateDeployment(DeploymentCommand):
    """Deploy a config to a server; the service derives what the agent
    runs and how it reports back."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('--config', required=True, metavar='ID',
                            help='The config to deploy')
        parser.add_argument('--server', required=True, metavar='SERVER',
                            help='The server whose agent runs it')
        _add_inputs(parser)
        parser.add_argument('--action', metavar='ACTION',
                            help='The action to run (default: CREATE)')
        parser.add_argument(
            '--signal-transport', default='default', metavar='TRANSPORT',
            help="How the agent reports: the name of a signal transport "
                 "the service offers (a 400 lists them), or 'default' for "
                 "the operator's default (the default)")
        _add_timeout(parser)
        parser.add_argument(
            '--name', metavar='NAME',
            help="Name of the derived config, which orders the server's "
                 "deployments (default: the config's name)")
        parser.add_argument(
            '--input-key', metavar='KEY',
            help='Write the input values into a structured (JSON) config, '
                 "as Heat's StructuredDeployment does: every map with this "
                 'one key, e.g. {"get_input": "port"} for --input-key '
                 'get_input, becomes the value of that input, in this and '
                 "every later action of the deployment. A string config is "
                 'left as it is')
        parser.add_argument(
            '--strict-inputs', action='store_true',
            help='With --input-key: refuse the deployment (nothing is '
                 'created) when the config refers to an input it does not '
                 'have (not declared, not given with --input, not a '
                 'deploy_* input) instead of writing null')
        parser.add_argument(
            '--idempotency-key', metavar='KEY',
            help='Running the command again with the same key returns '
                 'the deployment the first run made instead of a second '
                 'one')
        add_strict(parser)
        _add_wait(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        if parsed_args.strict_inputs and parsed_args.input_key is None:
            raise api_client.SwconfigError(
                '--strict-inputs needs --input-key (the key of the maps '
                'that input values replace)')
        body = {'config_id': parsed_args.config,
                'server_id': parsed_args.server,
                'input_values': dict(parsed_args.inputs),
                'signal_transport': parsed_args.signal_transport}
        for key in ('action', 'timeout', 'name', 'input_key'):
            if getattr(parsed_args, key) is not None:
                body[key] = getattr(parsed_args, key)
        if parsed_args.strict_inputs:
            body['input_values_validate'] = 'STRICT'
        check_inputs(self.app.client, parsed_args.config,
                     body['input_values'], parsed_args.strict,
                     parsed_args.input_key)
        return self.show(self.app.client.deployment_create(
            body, parsed_args.idempotency_key), parsed_args)


class ListDeployments(lister.Lister):
    """List the project's deployments, oldest first."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('--server', metavar='SERVER',
                            help="Only this server's deployments")
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.many(
            self.app.client.deployment_list(parsed_args.server),
            views.DEPLOYMENT_LIST)


class _OneDeployment(DeploymentCommand):
    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('deployment_id', metavar='ID',
                            help='The deployment')
        return parser


class ShowDeployment(_OneDeployment):
    """Show a deployment: status, reason, inputs and outputs."""

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return self.show(
            self.app.client.deployment_show(parsed_args.deployment_id),
            parsed_args)


class TriggerDeployment(_OneDeployment):
    """Run one action (e.g. BACKUP) of a deployed component as a new
    trigger deployment on the same server; the original is untouched."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('--action', required=True, metavar='ACTION',
                            help='The action to run, e.g. BACKUP')
        _add_inputs(parser)
        parser.add_argument(
            '--idempotency-key', metavar='KEY',
            help='Retrying with the same key returns the same trigger '
                 'instead of running the action again')
        parser.add_argument(
            '--allow-concurrent', action='store_true',
            help='Run the action even if the deployment, or a trigger of '
                 'it, is still running it (otherwise refused, 409)')
        _add_timeout(parser)
        _add_wait(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        body = {'action': parsed_args.action}
        if parsed_args.inputs:
            body['input_values'] = dict(parsed_args.inputs)
        if parsed_args.timeout is not None:
            body['timeout'] = parsed_args.timeout
        if parsed_args.allow_concurrent:
            body['allow_concurrent'] = True
        trigger = self.app.client.deployment_trigger(
            parsed_args.deployment_id, body, parsed_args.idempotency_key)
        self._say_what_runs(trigger)
        return self.show(trigger, parsed_args)

    def _say_what_runs(self, trigger: dict) -> None:
        """One line on stderr with what the agent runs (a component's
        entry, or a plain config again with ``deploy_action``), as the
        trigger's first event records it; ``-q`` silences it."""
        try:
            events = self.app.client.deployment_events(trigger['id'])
        except api_client.SwconfigError as error:
            LOG.debug('Events of trigger %s not read: %s', trigger['id'],
                      error)
            return
        if events and events[0].get('reason'):
            LOG.info('Deployment %s: %s', trigger['id'],
                     events[0]['reason'])


class RunAction(_OneDeployment):
    """Run a lifecycle action (CREATE, UPDATE, SUSPEND, RESUME, DELETE) or
    a custom one of a deployment's component."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('action', metavar='ACTION',
                            help='The action, e.g. SUSPEND')
        _add_wait(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return self.show(self.app.client.deployment_action(
            parsed_args.deployment_id, parsed_args.action), parsed_args)


class CancelDeployment(_OneDeployment):
    """Cancel a deployment's running action: it fails at once and leaves
    the server's document (an agent that has not started it never runs
    it)."""

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return self.show(
            self.app.client.deployment_cancel(parsed_args.deployment_id),
            parsed_args)


class WaitForDeployment(_OneDeployment):
    """Follow a deployment's action until it finishes, as --wait does
    (again after Ctrl-C, say): progress on stderr, then the deployment;
    exit status 0 COMPLETE, 3 FAILED, 4 CANCELLED."""

    always_waits = True

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        waiting.add_retry_for(parser)
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        # Started while the service restarts, it waits for it too.
        calls = waiting.Reconnecting(
            waiting.line_writer(self.app.stderr), parsed_args.retry_for,
            f'swconfig deployment wait {parsed_args.deployment_id}')
        return self.show(calls.call(self.app.client.deployment_show,
                                    parsed_args.deployment_id), parsed_args)


class DeleteDeployments(command.Command):
    """Delete deployments (a component's DELETE action runs first)."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('deployment_ids', metavar='ID', nargs='+',
                            help='The deployments to delete')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> int:
        failed = 0
        for deployment_id in parsed_args.deployment_ids:
            try:
                running = self.app.client.deployment_delete(deployment_id)
            except api_client.SwconfigError as error:
                LOG.error('%s: %s', deployment_id, error)
                failed += 1
                continue
            if running:
                LOG.info('%s: its DELETE action runs first; the '
                         'deployment is removed when it finishes '
                         '(swconfig deployment events %s)',
                         deployment_id, deployment_id)
        return 1 if failed else 0


class ListEvents(lister.Lister):
    """What happened to a deployment: status changes, progress notes,
    stale signals, oldest first."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('deployment_id', metavar='ID',
                            help='The deployment')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        return views.many(
            self.app.client.deployment_events(parsed_args.deployment_id),
            views.EVENT)


class ShowOutput(show.ShowOne):
    """Show one output of a deployment, or all of them."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        parser.add_argument('deployment_id', metavar='ID',
                            help='The deployment')
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument('output', metavar='NAME', nargs='?',
                           help='The output')
        which.add_argument('--all', action='store_true',
                           help='Every output, one column each')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        client = self.app.client
        if parsed_args.all:
            deployment = client.deployment_show(parsed_args.deployment_id)
            outputs = deployment.get('output_values') or {}
            if not outputs:
                raise api_client.SwconfigError(_no_outputs(deployment))
            return views.one(outputs, ())
        answer = client.deployment_output(parsed_args.deployment_id,
                                          parsed_args.output)
        if not isinstance(answer, dict) or 'value' not in answer:
            answer = {'name': parsed_args.output, 'value': answer}
        return views.one(answer, ('name', 'value'))


def _no_outputs(deployment: dict) -> str:
    """Why ``--all`` has nothing to show: no agent has reported yet, or
    the transport waits for no report."""
    state = ' '.join(filter(None, (deployment.get('action'),
                                   deployment.get('status'))))
    reason = deployment.get('status_reason')
    detail = f'{state}: {reason}' if state and reason else state or reason
    return (f'Deployment {deployment["id"]} has no outputs'
            + (f' ({detail}).' if detail else '.'))
