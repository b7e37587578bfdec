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

"""What a deployment's status and action mean, and when a signal counts.

Heat's vocabulary, in one place for every layer: the API answers agents
with the signal-acceptance rule below, the engine applies signals by the
same rule, and the metadata renderer decides from the actions which
deployments stay in a server's document.
"""

import dataclasses

IN_PROGRESS = 'IN_PROGRESS'
COMPLETE = 'COMPLETE'
FAILED = 'FAILED'
STATUSES = (IN_PROGRESS, COMPLETE, FAILED)
#: Statuses after which a deployment's current action wants no signal.
FINAL_STATUSES = frozenset((COMPLETE, FAILED))

INIT = 'INIT'
CREATE = 'CREATE'
UPDATE = 'UPDATE'
DELETE = 'DELETE'
SUSPEND = 'SUSPEND'
RESUME = 'RESUME'
#: Actions that define a server's desired state (Heat's lifecycle
#: actions); any other action, e.g. BACKUP, is a one-off.
DESIRED_STATE_ACTIONS = frozenset(
    (None, INIT, CREATE, UPDATE, SUSPEND, RESUME))
#: Heat's deployment lifecycle actions: one that no entry of a component
#: serves runs nothing and completes (Heat's behaviour), while any other
#: action must match an entry (a typo is refused, not a success).
LIFECYCLE_ACTIONS = (CREATE, UPDATE, DELETE, SUSPEND, RESUME)

#: What an action may be called: Heat's lifecycle actions and custom ones
#: such as BACKUP. The agent matches it against a component's entries and
#: puts it in file names.
ACTION_NAME_PATTERN = r'^[A-Za-z_][A-Za-z0-9_]*$'

#: What became of a stored signal that was not applied.
STALE = 'STALE'
DUPLICATE = 'DUPLICATE'


@dataclasses.dataclass(frozen=True)
class Refusal:
    """Why a signal is recorded but not applied."""

    result: str  # STALE or DUPLICATE, stored with the signal
    reason: str  # the event's reason, for the user


#: The status reason of a cancelled action (status FAILED): it leaves the
#: server's document at once, and a later signal of it is stale.
CANCELLED = 'Deployment cancelled.'


def is_cancelled(status: str | None, status_reason: str | None) -> bool:
    return status == FAILED and status_reason == CANCELLED


def signal_refusal(signal_revision: int, action_revision: int,
                   status: str | None,
                   status_reason: str | None = None) -> Refusal | None:
    """The signal-acceptance rule: a signal counts only for the current
    action revision of a deployment, and only while that action is
    IN_PROGRESS; a signal of a cancelled action is stale. None when the
    signal is wanted."""
    if signal_revision != action_revision:
        return Refusal(STALE, f'Stale signal for action revision '
                              f'{signal_revision} ignored (current '
                              f'revision {action_revision})')
    if is_cancelled(status, status_reason):
        return Refusal(STALE, f'Stale signal for cancelled action revision '
                              f'{signal_revision} ignored')
    if status != IN_PROGRESS:
        return Refusal(DUPLICATE, f'Duplicate signal ignored: the action '
                                  f'already finished ({status})')
    return None


#: The one key of the payload the API stores in place of an agent signal
#: too large to keep: the engine fails the deployment with its reason.
#: The API drops this key from the signals agents send.
OVERSIZED_SIGNAL = 'swconfig:oversized_signal'


def drop_forged_stand_in(payload: dict) -> bool:
    """Remove an ``OVERSIZED_SIGNAL`` key a caller sent (only the API's
    agent path writes one); whether there was one."""
    return payload.pop(OVERSIZED_SIGNAL, None) is not None


def oversized_signal(received: int, complete: bool, limit: int) -> dict:
    """The stored stand-in for a signal of ``received`` bytes (only the
    first ``received`` when not ``complete``) over ``limit``."""
    size = f'{received} bytes' if complete else f'more than {received} bytes'
    return {OVERSIZED_SIGNAL: {
        'received': received, 'complete': complete, 'limit': limit,
        'reason': f'Signal too large: {size}, over the limit of {limit} '
                  f'bytes ([agent] max_signal_size); its outputs were '
                  f'not recorded'}}


def oversized_reason(payload: object) -> str | None:
    """The failure reason if ``payload`` stands for an oversized signal."""
    if type(payload) is not dict or OVERSIZED_SIGNAL not in payload:
        return None
    marker = payload[OVERSIZED_SIGNAL]
    reason = marker.get('reason') if isinstance(marker, dict) else None
    return str(reason or 'Signal too large')
