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

"""``swconfig deployment signal``: report an action's result or progress
as its agent would, for an action run by hand or by a script.

The signal goes to the user signal endpoint (``POST
.../software_deployments/{id}/signal``) with the keys heat-agents send:
``deploy_status_code``, ``deploy_stdout``, ``deploy_stderr`` and the
outputs by name, or ``deploy_status`` ``IN_PROGRESS`` with
``deploy_status_reason`` for progress. The service stores it and an
engine applies it just after answering, recording what became of it as
the deployment's next event (applied, or ignored because the action had
already finished); the command waits for that event, so a signal that
did not count is an error, not a silent success.
"""

import argparse
import logging
import time

from swconfig.cli import deployments
from swconfig.cli import waiting
from swconfig.client import rest as api_client
from swconfig.common import states

LOG = logging.getLogger(__name__)

#: How long to wait for an engine to apply the signal. It is stored
#: already: if no engine applies it by then (the engines are busy or
#: down), the engines' sweep does later.
OUTCOME_SECONDS = 30
FIRST_LOOK_SECONDS = 0.1
MAX_LOOK_SECONDS = 1.0
#: The keys of a result signal the command sets with its own options.
RESERVED_OUTPUTS = {'deploy_status_code': '--status-code',
                    'deploy_stdout': '--stdout',
                    'deploy_stderr': '--stderr',
                    'deploy_status': '--progress',
                    'deploy_status_reason': '--progress'}


def _output(text: str) -> tuple[str, str]:
    name, has_value, value = text.partition('=')
    if not name or not has_value:
        raise argparse.ArgumentTypeError(f'{text!r} is not NAME=VALUE')
    if name in RESERVED_OUTPUTS:
        raise argparse.ArgumentTypeError(
            f'{name} is not an output: use {RESERVED_OUTPUTS[name]}')
    return name, value


def _progress(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError('--progress needs a text')
    return text


def payload(parsed_args: argparse.Namespace) -> dict:
    """The body heat-agents would send for these options."""
    if parsed_args.progress is not None:
        return {'deploy_status': states.IN_PROGRESS,
                'deploy_status_reason': parsed_args.progress}
    body = dict(parsed_args.outputs)
    for key, value in (('deploy_status_code', parsed_args.status_code),
                       ('deploy_stdout', parsed_args.stdout),
                       ('deploy_stderr', parsed_args.stderr)):
        if value is not None:
            body[key] = value
    return body


def applied(event: dict, body: dict) -> bool:
    """Whether ``event``, the one the signal made, says it counted: a
    result moves the action out of IN_PROGRESS; progress keeps it there
    with the text as its reason. An ignored signal leaves the status as
    it was, with the reason it was ignored."""
    if body.get('deploy_status') == states.IN_PROGRESS:
        return (event.get('new_status') == states.IN_PROGRESS
                and event.get('reason') == body['deploy_status_reason'])
    return event.get('old_status') != event.get('new_status')


class SignalDeployment(deployments.DeploymentCommand):
    """Signal a deployment's running action as its agent would: its
    result (exit status, output values, stdout and stderr) or a progress
    note. For actions run by hand or by a script."""

    def get_parser(self, prog_name: str) -> argparse.ArgumentParser:
        parser = super().get_parser(prog_name)
        self._parser = parser
        parser.add_argument('deployment_id', metavar='ID',
                            help='The deployment')
        parser.add_argument(
            '--status-code', type=int, metavar='N',
            help='The exit status of the action (deploy_status_code): '
                 '0 completes it, anything else fails it')
        parser.add_argument(
            '--output', dest='outputs', metavar='NAME=VALUE',
            action='append', type=_output, default=[],
            help="A value for one of the config's declared outputs; "
                 'repeat for more')
        parser.add_argument('--stdout', metavar='TEXT',
                            help='What the action printed (deploy_stdout)')
        parser.add_argument('--stderr', metavar='TEXT',
                            help='What the action printed on stderr '
                                 '(deploy_stderr)')
        parser.add_argument(
            '--progress', metavar='TEXT', type=_progress,
            help='Report progress instead of a result: the action stays '
                 'IN_PROGRESS with TEXT as its reason (not with the '
                 'other options)')
        return parser

    def take_action(self, parsed_args: argparse.Namespace) -> tuple:
        result_given = (parsed_args.outputs or parsed_args.status_code
                        is not None or parsed_args.stdout is not None
                        or parsed_args.stderr is not None)
        if parsed_args.progress is not None and result_given:
            # argparse's own usage error: exit status 2.
            self._parser.error('--progress reports progress, not a '
                               'result: leave out --status-code, '
                               '--output, --stdout and --stderr')
        client = self.app.client
        deployment_id = parsed_args.deployment_id
        body = payload(parsed_args)
        if parsed_args.outputs:
            _check_declared(client, deployment_id,
                            [name for name, _ in parsed_args.outputs])
        seen = len(client.deployment_events(deployment_id))
        signal_id = client.deployment_signal(deployment_id, body)
        event = _outcome(client, deployment_id, seen)
        if event is None:
            LOG.warning('Signal %s is stored, but no engine applied it '
                        'within %s s; the engines apply it when they can '
                        '(swconfig deployment events %s shows it then).',
                        signal_id, OUTCOME_SECONDS, deployment_id)
        elif not applied(event, body):
            raise api_client.SwconfigError(
                f'Signal {signal_id} was not applied: '
                f'{event.get("reason")}.')
        else:
            LOG.info('Signal %s applied: %s', signal_id,
                     waiting.describe_event(event))
        return self.show(_current(client, deployment_id), parsed_args)


def _check_declared(client: api_client.Client, deployment_id: str,
                    names: list[str]) -> None:
    """Refuse outputs the deployment's config does not declare: the
    service would ignore them without a word (an agent sends only the
    declared ones), and a typo would look like success."""
    deployment = client.deployment_show(deployment_id)
    try:
        config = client.config_show(deployment['config_id'])
    except api_client.SwconfigError as error:
        if error.status != 404:
            raise
        return  # another project's (a stack user's view): not ours to check
    declared = [output['name'] for output in config.get('outputs') or []]
    unknown = [name for name in names if name not in declared]
    if unknown:
        raise api_client.SwconfigError(
            f'The config of deployment {deployment_id} declares no output '
            f'{", ".join(unknown)} (it declares '
            f'{", ".join(declared) or "none"}); nothing was sent.')


def _current(client: api_client.Client, deployment_id: str) -> dict | None:
    """The deployment as the signal left it; None when the signal
    finished its DELETE action, which removed it."""
    try:
        return client.deployment_show(deployment_id)
    except api_client.SwconfigError as error:
        if error.status == 404:
            return None
        raise


def _outcome(client: api_client.Client, deployment_id: str,
             seen: int) -> dict | None:
    """The first event after the ``seen`` ones: what became of the
    signal; None if none came within OUTCOME_SECONDS."""
    deadline = time.monotonic() + OUTCOME_SECONDS
    pause = FIRST_LOOK_SECONDS
    while True:
        events = client.deployment_events(deployment_id)
        if len(events) > seen:
            return events[seen]
        if time.monotonic() >= deadline:
            return None
        time.sleep(pause)
        pause = min(pause * 2, MAX_LOOK_SECONDS)
