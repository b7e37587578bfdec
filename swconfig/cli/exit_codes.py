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

"""The exit status of the commands that wait (every ``--wait``,
``deployment wait`` and ``rollout wait``): one table, so a script can
tell an action that failed from a request that was refused. The table is
printed in doc/source/user/cli.rst; cliff itself gives 130 for Ctrl-C
and argparse 2 for a usage error."""

from swconfig.common import states

#: The action (or every target of the rollout) completed.
COMPLETE = 0
#: The request was refused, the service could not be reached, or another
#: error kept the command from finishing.
REFUSED = 1
#: The command line was wrong (argparse's own code).
USAGE = 2
#: The action failed, timed out, or the rollout ended FAILED.
FAILED = 3
#: The action or the rollout was cancelled.
CANCELLED = 4
#: The wait was interrupted (Ctrl-C); the action goes on.
INTERRUPTED = 130

#: What ``--help`` of a waiting command says about it.
HELP = ('exit status 0 COMPLETE, 3 FAILED, 4 CANCELLED, 1 refused or '
        'unreachable, 130 interrupted')


def of_deployment(deployment: dict) -> int:
    """The exit status for a deployment whose action is over."""
    if deployment.get('status') == states.COMPLETE:
        return COMPLETE
    if states.is_cancelled(deployment.get('status'),
                           deployment.get('status_reason')):
        return CANCELLED
    return FAILED


def of_rollout(rollout: dict) -> int:
    """The exit status for a rollout that is over."""
    return {'COMPLETE': COMPLETE,
            'CANCELLED': CANCELLED}.get(rollout.get('status'), FAILED)
