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

"""Creating, updating and deleting software deployments: the engine's side.

Two ways in: Heat's raw one (the client sends an already-derived config,
``signal_transport`` absent) and server-side derivation (the engine derives
the config and issues the signal transport). Either way the server is
claimed for the caller's project and its agent document re-rendered. Every
update is a conditional write on the row's ``version``; on a collision the
update is decided again on fresh data. A list of deployments
(``deployment_batches``) is checked and built by the same functions
(``check_request``, ``new_deployment``, ``check_quota``).
"""

import datetime

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_log import log
from oslo_utils import timeutils
from oslo_utils import uuidutils

from swconfig import transports
from swconfig.common import components
from swconfig.common import deployment_request
from swconfig.common import exception
from swconfig.common import states
from swconfig.common.context import RequestContext
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import configs
from swconfig.engine import deadlines
from swconfig.engine import deriving
from swconfig.engine import idempotency
from swconfig.engine import input_substitution
from swconfig.engine import metadata
from swconfig.engine import servers
from swconfig.transports import base as transports_base

LOG = log.getLogger(__name__)

UPDATABLE = ('config_id', 'input_values', 'output_values', 'action',
             'status', 'status_reason')
UPDATE_ATTEMPTS = 5
CREATE_ATTEMPTS = 5
# What the agent runs of a server-derived deployment: changing any of them
# starts a new action.
NEW_ACTION_FIELDS = ('config_id', 'input_values', 'action')


def check_request(request: deployment_request.DeploymentRequest) -> None:
    """What a creation must satisfy whatever the database holds."""
    stack_user_project_id = request.stack_user_project_id
    if not request.server_id:
        raise exception.InvalidParameterValue(
            reason='"server_id" is required.')
    if stack_user_project_id is not None and len(stack_user_project_id) > 64:
        raise exception.Invalid(reason='"stack_user_project_id" should be '
                                       'no more than 64 characters')
    if not request.server_derived and (
            request.input_key is not None
            or request.input_values_validate is not None):
        raise exception.InvalidParameterValue(
            reason='"input_key" and "input_values_validate" need '
                   '"signal_transport": only a config the engine derives '
                   'can have input values substituted into it.')


def check_quota(context: RequestContext, adding: int = 1) -> None:
    """Refuse ``adding`` more deployments past the project's quota.
    Counting is skipped when nothing would be refused, and stops at the
    limit otherwise: the check costs the same with 100,000 deployments."""
    limit = CONF.max_software_deployments_per_tenant
    count = (0 if context.is_admin or limit < 0
             else db_api.software_deployment_count(context, at_most=limit))
    configs.check_quota(context, count, limit, 'software deployments',
                        adding)


def _check_create(context: RequestContext,
                  request: deployment_request.DeploymentRequest) -> dict:
    check_request(request)
    # Visibility of the config is part of the contract: another project's
    # config is "not found", exactly as on GET.
    config = db_api.software_config_get(context, request.config_id)
    check_quota(context)
    return config


def create(context: RequestContext,
           request: deployment_request.DeploymentRequest,
           idempotency_key: str | None = None) -> dict:
    """Create a deployment; a server-derived request has the engine derive
    the config and issue the signal transport. With an
    ``idempotency_key`` already used for the same request, the deployment
    that request made (nothing is created); used for another, 422."""
    row, created, rendered = _create_once(context, request, idempotency_key)
    if not created:
        LOG.info('Creation with Idempotency-Key %s repeated: deployment '
                 '%s, not created again', idempotency_key, row['id'])
        return row
    LOG.info('Created deployment %(id)s of config %(config_id)s on server '
             '%(server_id)s (%(action)s %(status)s, transport '
             '%(signal_transport)s)', row)
    deadlines.expect(row['timeout_at'])
    if not rendered:
        metadata.render(request.server_id)
    return row


# Concurrent first deployments to one new server both insert its row, and
# two requests with one new Idempotency-Key both store it: the second
# meets the first's once it commits, and starts again.
@oslo_db_api.wrap_db_retry(max_retries=CREATE_ATTEMPTS, retry_interval=0.05,
                           max_retry_interval=1, jitter=True,
                           retry_on_deadlock=True,
                           exception_checker=lambda exc: isinstance(
                               exc, db_exc.DBDuplicateEntry))
def _create_once(context: RequestContext,
                 request: deployment_request.DeploymentRequest,
                 key: str | None) -> tuple[dict, bool, bool]:
    """The deployment, whether this call created it, and whether its
    server's document was rendered in the transaction."""
    if key is None:
        row, rendered = create_in_transaction(context, request)
        return row, True, rendered
    request_digest = idempotency.digest({'create': request.to_dict()})
    with db_api.writer.using(context):
        made = idempotency.made_before(context, key, request_digest)
        if made is not None:
            return db_api.software_deployment_get(context, made), False, True
        row, rendered = create_in_transaction(context, request)
        idempotency.remember(context, key, request_digest, row['id'],
                             row['id'])
    return row, True, rendered


def create_in_transaction(context: RequestContext,
                          request: deployment_request.DeploymentRequest,
                          triggered_from: str | None = None,
                          event_reason: str | None = None
                          ) -> tuple[dict, bool]:
    """Create the deployment in the caller's writer transaction (or one
    of its own); returns the row and whether its server's document was
    rendered in that transaction (else render it after committing). A
    trigger names the deployment it was triggered from (``triggered_from``)
    and says in its first event what it runs (``event_reason``)."""
    # One transaction: the checks, the claim of the server, the derived
    # config, the deployment with its event, and the server's document.
    with db_api.writer.using(context):
        source = _check_create(context, request)
        server = servers.claim(context, request.server_id)
        values, derived = new_deployment(
            context, request, source, server, uuidutils.generate_uuid(),
            triggered_from)
        if derived is not None:
            db_api.software_config_create(context, derived)
        row = db_api.software_deployment_create(context, values,
                                                event_reason)
        rendered = metadata.render_in_transaction(context, server)
    return row, rendered


def new_deployment(context: RequestContext,
                   request: deployment_request.DeploymentRequest,
                   source: dict, server: dict, deployment_id: str,
                   triggered_from: str | None = None
                   ) -> tuple[dict, dict | None]:
    """The values of the deployment ``request`` makes (with id
    ``deployment_id``) and, when the engine derives its config, of that
    derived config; nothing is stored. ``source`` is the config the
    request names, ``server`` the server's row. Every way of creating
    deployments (one, a list, a trigger) builds them here.

    :raises UnknownSignalTransport, UndefinedAction, InputValueMissing:
        the request cannot be derived.
    """
    values = {
        'id': deployment_id,
        'server_id': request.server_id,
        'input_values': request.input_values or {},
        'tenant': context.project_id,
        'stack_user_project_id': request.stack_user_project_id,
        'triggered_from': triggered_from,
    }
    if not request.server_derived:
        values.update(config_id=request.config_id, action=request.action,
                      status=request.status,
                      status_reason=request.status_reason)
        return values, None
    derived, derivation = _derive(source, server, deployment_id, request)
    values.update(derivation)
    return values, derived


def _derive(source: dict, server: dict, deployment_id: str,
            request: deployment_request.DeploymentRequest
            ) -> tuple[dict, dict]:
    """The config derived for revision 1 of a new deployment (not
    stored), and the deployment's values that follow from it."""
    transport_name = request.signal_transport
    if transport_name == 'default':
        transport_name = CONF.default_deployment_signal_transport
    transport = transports.get(transport_name)
    action = request.action or states.CREATE
    input_key, input_values_validate = input_substitution.settings(
        request.input_key, request.input_values_validate)
    derived = deriving.derive(
        source, server, deployment_id, 1, action, request.input_values or {},
        transport, name=request.name, input_key=input_key,
        input_values_validate=input_values_validate)
    values = {'config_id': derived['id'], 'source_config_id': source['id'],
              'signal_transport': transport.name, 'action_revision': 1,
              'action': action, 'input_key': input_key,
              'input_values_validate': input_values_validate}
    values.update(_action_started(source, action, transport,
                                  request.timeout))
    return derived, values


def _action_started(source: dict, action: str,
                    transport: transports_base.SignalTransport,
                    timeout: int | None) -> dict:
    """The status of an action just handed to the agent: waiting for its
    signal (with a deadline), or complete at once for NO_SIGNAL and for
    a component action no entry serves (nothing will run)."""
    if not deriving.serves(source, action):
        return {'status': states.COMPLETE,
                'status_reason': components.unserved_reason(source, action),
                'timeout_at': None}
    if not transport.waits_for_signal:
        return {'status': states.COMPLETE,
                'status_reason': 'Not waiting for outputs signal',
                'timeout_at': None}
    timeout = CONF.default_deployment_timeout if timeout is None else timeout
    return {'status': states.IN_PROGRESS,
            'status_reason': 'Deploy data available',
            'timeout_at': (timeutils.utcnow()
                           + datetime.timedelta(seconds=timeout)
                           if timeout else None)}


def update(context: RequestContext, deployment_id: str, values: dict) -> dict:
    """Apply the given fields; ``None`` means "not given" (unlike Heat,
    falsy values such as ``""`` or ``{}`` are applied).

    A server-derived deployment whose config, input values or action
    change gets a new action: see ``new_action``. Anything else is
    written as given (Heat's client-derived deployments, or status and
    outputs reported through the API).
    """
    values = {key: value for key, value in values.items()
              if key in UPDATABLE and value is not None}
    if 'config_id' in values:
        db_api.software_config_get(context, values['config_id'])
    for _attempt in range(UPDATE_ATTEMPTS):
        current = db_api.software_deployment_get(context, deployment_id)
        try:
            if _starts_new_action(current, values):
                row = new_action(context, current, values)
            else:
                row = db_api.software_deployment_update(
                    context, deployment_id, current['version'], values)
        except exception.ConcurrentUpdate:
            LOG.debug('Deployment %s changed under us; retrying',
                      deployment_id)
            continue
        LOG.info('Updated deployment %s: %s', deployment_id,
                 ', '.join(sorted(values)) or 'no fields')
        deadlines.expect(row['timeout_at'])
        metadata.render(row['server_id'])
        return row
    raise exception.ConcurrentUpdate(deployment_id=deployment_id)


def _starts_new_action(current: dict, values: dict) -> bool:
    """Whether ``values`` change what the agent must run on a
    server-derived deployment."""
    return current['source_config_id'] is not None and any(
        key in values and values[key] != current[key]
        for key in NEW_ACTION_FIELDS)


def new_action(context: RequestContext, current: dict,
               values: dict, timeout: int | None = None) -> dict:
    """Derive the config again (from a new source config if ``config_id``
    names one) for the next action revision: the agent's document gets
    the new config, a new signal URL is issued and the old one is refused
    as stale; the former derived config is removed. Output values given
    are written; the status is the new action's. The deployment's
    ``input_key`` applies again, so an update re-derives the same way."""
    revision = current['action_revision'] + 1
    action = values.get('action', current['action'])
    input_values = values.get('input_values', current['input_values'])
    source_id = current['source_config_id']
    if values.get('config_id', current['config_id']) != current['config_id']:
        source_id = values['config_id']
    with db_api.writer.using(context):
        source = db_api.software_config_get(context, source_id)
        former = db_api.software_config_get(context, current['config_id'])
        server = db_api.server_get(context, current['server_id'])
        transport = transports.get(current['signal_transport'])
        derived = db_api.software_config_create(context, deriving.derive(
            source, server, current['id'], revision, action,
            input_values or {}, transport, name=former['name'],
            input_key=current['input_key'],
            input_values_validate=current['input_values_validate']))
        changes = {'config_id': derived['id'], 'source_config_id': source_id,
                   'input_values': input_values, 'action': action,
                   'action_revision': revision,
                   **_action_started(source, action, transport, timeout)}
        if 'output_values' in values:
            changes['output_values'] = values['output_values']
        row = db_api.software_deployment_update(
            context, current['id'], current['version'], changes,
            event_reason=f'{action} started: config derived again for '
                         f'action revision {revision}')
        try:
            db_api.software_config_delete(context, former['id'])
        except exception.ConfigInUse:
            LOG.info('Kept config %s, derived for deployment %s: another '
                     'deployment uses it as its source', former['id'],
                     current['id'])
    transport.forget_action(current['id'], current['action_revision'])
    return row


def delete(context: RequestContext, deployment_id: str) -> None:
    with db_api.writer.using(context):
        row = db_api.software_deployment_delete(context, deployment_id)
        if row['source_config_id'] is not None:
            # The engine derived that config for this deployment alone.
            db_api.software_config_delete(context, row['config_id'])
    LOG.info('Deleted deployment %(id)s on server %(server_id)s', row)
    metadata.render(row['server_id'])
    forget_transport(row)


def forget_transport(row: dict) -> None:
    """Remove what the signal transport made for a deleted deployment
    (a Swift object, a Zaqar queue); an outage only leaves it to the
    transport's own clean-up."""
    if not row.get('signal_transport'):
        return
    try:
        transport = transports.get(row['signal_transport'])
    except exception.UnknownSignalTransport:
        return  # no longer configured: nothing of ours to reach
    try:
        transport.forget(row)
    except exception.BackendUnavailable as exc:
        LOG.warning('Could not remove the %s resources of deleted '
                    'deployment %s: %s', transport.name, row['id'], exc)

