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

"""Running one action of a deployment already on a server: lifecycle
actions, triggers, cancel, and the DELETE entry run before a delete.

All of them work on server-derived deployments (the engine derives the
config, so it can derive it again for another action). A component
(group ``component``) gives each action its own entry; an action no
entry serves completes at once (``deployments._action_started``).

Deleting a deployment whose component has a DELETE entry runs that entry
first: the deployment goes IN_PROGRESS with action DELETE and is removed
when the action finishes (signal COMPLETE or FAILED, or the timeout
``[engine] delete_action_timeout``). ``POST .../actions {"action":
"DELETE"}`` means the same. A second delete while it runs removes the
deployment at once.
"""

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_log import log

from swconfig import transports
from swconfig.common import components
from swconfig.common import context as swconfig_context
from swconfig.common import deployment_request
from swconfig.common import exception
from swconfig.common import representations
from swconfig.common import states
from swconfig.common.context import RequestContext
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import deadlines
from swconfig.engine import deployments
from swconfig.engine import deriving
from swconfig.engine import idempotency
from swconfig.engine import metadata

LOG = log.getLogger(__name__)

ATTEMPTS = 5


def _server_derived(deployment: dict, what: str) -> None:
    if deployment['source_config_id'] is None:
        raise exception.NotServerDerived(deployment_id=deployment['id'],
                                         what=what)


def _retrying(context: RequestContext, deployment_id: str, step) -> dict:
    """``step(current)`` on a fresh read, again while another writer
    changes the deployment under it (its writes are conditional)."""
    for _attempt in range(ATTEMPTS):
        current = db_api.software_deployment_get(context, deployment_id)
        try:
            return step(current)
        except exception.ConcurrentUpdate:
            LOG.debug('Deployment %s changed under us; retrying',
                      deployment_id)
    raise exception.ConcurrentUpdate(deployment_id=deployment_id)


def run_action(context: RequestContext, deployment_id: str,
               action: str) -> dict | None:
    """Derive the config again for ``action`` and hand it to the agent
    (a new action revision; the former one's signals become stale).
    DELETE is a delete: None when the deployment is gone already."""
    if action == states.DELETE:
        return delete(context, deployment_id)

    def step(current: dict) -> dict:
        _server_derived(current, 'run actions')
        return deployments.new_action(context, current, {'action': action})

    row = _retrying(context, deployment_id, step)
    LOG.info('Deployment %s: %s started (action revision %s, %s)',
             deployment_id, action, row['action_revision'], row['status'])
    deadlines.expect(row['timeout_at'])
    metadata.render(row['server_id'])
    return row


def _delete_entry(context: RequestContext, deployment: dict) -> bool:
    """Whether deleting ``deployment`` runs its component's DELETE entry
    first: server-derived, a component with a DELETE entry, a transport
    that signals, and the component in place on the server (its action
    a desired-state one: not a one-off such as a trigger's BACKUP, nor a
    DELETE already run or running, which a second delete cuts short)."""
    if (deployment['source_config_id'] is None
            or deployment['action'] not in states.DESIRED_STATE_ACTIONS):
        return False
    if not transports.get(deployment['signal_transport']).waits_for_signal:
        return False
    source = db_api.software_config_get(context,
                                        deployment['source_config_id'])
    return (components.is_component(source)
            and components.entry_for(source, states.DELETE) is not None)


def delete(context: RequestContext, deployment_id: str) -> dict | None:
    """Delete a deployment, running its component's DELETE entry first
    when it has one: returns the deployment then IN_PROGRESS (removed
    when the action finishes), or None when it is gone already."""

    def step(current: dict) -> dict | None:
        if not _delete_entry(context, current):
            return None
        return deployments.new_action(
            context, current, {'action': states.DELETE},
            timeout=CONF.engine.delete_action_timeout)

    row = _retrying(context, deployment_id, step)
    if row is None:
        deployments.delete(context, deployment_id)
        return None
    LOG.info('Deployment %s: DELETE entry started (action revision %s); '
             'the deployment goes when it finishes or after %s s',
             deployment_id, row['action_revision'],
             CONF.engine.delete_action_timeout)
    deadlines.expect(row['timeout_at'])
    metadata.render(row['server_id'])
    return row


def finish_deletes(deployment_ids: list[str]) -> None:
    """Remove the deployments whose DELETE action finished (a signal or
    the timeout decided it); one that started another action since, or
    was cancelled, stays."""
    admin = swconfig_context.get_admin_context()
    for deployment_id in deployment_ids:
        try:
            current = db_api.software_deployment_get(admin, deployment_id)
        except exception.DeploymentNotFound:
            continue
        if (current['action'] != states.DELETE
                or current['source_config_id'] is None
                or current['status'] not in states.FINAL_STATUSES
                or current['status_reason'] == states.CANCELLED):
            continue
        try:
            deployments.delete(admin, deployment_id)
        except exception.DeploymentNotFound:
            continue
        LOG.info('Deployment %s removed: its DELETE action finished (%s: '
                 '%s)', deployment_id, current['status'],
                 current['status_reason'])


def cancel(context: RequestContext, deployment_id: str) -> dict:
    """FAILED ``Deployment cancelled.``: the deployment leaves its
    server's document at once (an agent that has not fetched it never
    runs it) and a later signal of this action is recorded as stale."""

    def step(current: dict) -> dict:
        if current['status'] != states.IN_PROGRESS:
            raise exception.DeploymentFinished(
                deployment_id=deployment_id, action=current['action'],
                status=current['status'])
        return db_api.software_deployment_update(
            context, deployment_id, current['version'],
            {'status': states.FAILED, 'status_reason': states.CANCELLED,
             'timeout_at': None})

    row = _retrying(context, deployment_id, step)
    LOG.info('Deployment %s (%s, action revision %s) cancelled',
             deployment_id, row['action'], row['action_revision'])
    metadata.render(row['server_id'])
    return row


def trigger(context: RequestContext, deployment_id: str, request: dict,
            idempotency_key: str | None = None,
            allow_concurrent: bool = False) -> dict:
    """A new server-derived deployment on the same server, from the same
    source config, running ``request['action']`` with the request's
    input values over the original's; the original is untouched.

    Returns ``{"software_deployment": row, "created": bool}``: with an
    ``idempotency_key`` already used for the same request, the trigger
    deployment that request made (``created`` false); used for another
    request, 422. While the deployment, or a trigger of it, still runs
    the same action, 409 ActionAlreadyRunning unless
    ``allow_concurrent`` (a second click is rarely meant to run a backup
    twice at once; AWX's "allow simultaneous" is off by default too).
    """
    row, created, rendered = _trigger_once(context, deployment_id, request,
                                           idempotency_key,
                                           allow_concurrent)
    if created:
        LOG.info('Deployment %s triggered %s as deployment %s on server '
                 '%s (%s)', deployment_id, row['action'], row['id'],
                 row['server_id'], row['status'])
        deadlines.expect(row['timeout_at'])
        if not rendered:
            metadata.render(row['server_id'])
    else:
        LOG.info('Trigger of deployment %s with Idempotency-Key %s '
                 'repeated: deployment %s, not run again', deployment_id,
                 idempotency_key, row['id'])
    return {'software_deployment': row, 'created': created}


# Two requests with one new key: the second meets the first's row once
# it commits, starts again, and finds it.
@oslo_db_api.wrap_db_retry(max_retries=ATTEMPTS, retry_interval=0.05,
                           max_retry_interval=1, jitter=True,
                           retry_on_deadlock=True,
                           exception_checker=lambda exc: isinstance(
                               exc, db_exc.DBDuplicateEntry))
def _trigger_once(context: RequestContext, deployment_id: str,
                  request: dict, key: str | None,
                  allow_concurrent: bool) -> tuple[dict, bool, bool]:
    request_digest = idempotency.digest({'deployment_id': deployment_id,
                                         **request})
    with db_api.writer.using(context):
        # Locked first: concurrent triggers of this deployment (and the
        # retries of one) are decided one after the other, each seeing
        # what the one before made.
        original = db_api.software_deployment_get_for_update(
            context, deployment_id)
        made = idempotency.made_before(context, key, request_digest)
        if made is not None:
            return db_api.software_deployment_get(context, made), False, True
        _server_derived(original, 'be triggered')
        source = db_api.software_config_get(context,
                                            original['source_config_id'])
        action = request['action']
        components.check_action(source, action)
        # A trigger of a trigger counts as one of the first deployment.
        triggered_from = original['triggered_from'] or original['id']
        if not allow_concurrent:
            _refuse_if_running(context, deployment_id, triggered_from, action)
        row, rendered = deployments.create_in_transaction(
            context, deployment_request.DeploymentRequest(
                server_id=original['server_id'], config_id=source['id'],
                input_values={**(original['input_values'] or {}),
                              **(request.get('input_values') or {})},
                action=action,
                stack_user_project_id=original['stack_user_project_id'],
                signal_transport=(request.get('signal_transport')
                                  or original['signal_transport']),
                name=f'{source["name"] or "config"}-{action}',
                timeout=request.get('timeout'),
                input_key=original['input_key'],
                input_values_validate=original['input_values_validate']),
            triggered_from=triggered_from,
            event_reason=(f'Runs {deriving.describe(source, action)}; '
                          f'triggered from deployment {deployment_id}.'))
        idempotency.remember(context, key, request_digest, deployment_id,
                             row['id'])
    return row, True, rendered


def _refuse_if_running(context: RequestContext, deployment_id: str,
                       triggered_from: str, action: str) -> None:
    """409 naming the deployment that runs ``action`` for ``triggered_from``
    (itself or one of its triggers), if one does."""
    running = db_api.software_deployment_running(context, triggered_from,
                                                 action)
    if running is None:
        return
    LOG.info('Trigger of %s on deployment %s refused: deployment %s runs '
             'it (IN_PROGRESS) and the request did not allow concurrent '
             'runs', action, deployment_id, running['id'])
    raise exception.ActionAlreadyRunning(
        deployment_id=deployment_id, action=action,
        running_id=running['id'],
        since=representations.format_time(
            running['updated_at'] or running['created_at']))
