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

"""/v1/{tenant_id}/rollouts: a config deployed to, or an action run on,
many servers in waves, with an error budget (``swconfig.engine.rollouts``
does the work; reading needs no engine)."""

import time

import pecan

from swconfig.api import deployment_watch
from swconfig.api import request_body
from swconfig.api import views
from swconfig.api.controllers.v1 import params
from swconfig.api.openapi import spec
from swconfig.api.schemas.v1 import rollouts as schemas
from swconfig.common import exception
from swconfig.db import api as db_api
from swconfig.db import rollouts as rollout_db

TAG = 'rollouts'
#: How often a ``?wait`` GET looks at the rollout again.
WAIT_STEP = 0.2
_WAIT = spec.query(
    'wait', spec.NON_NEGATIVE_INT,
    f'While the rollout runs, answer when it finished or after this many '
    f'seconds (at most {deployment_watch.MAX_WAIT}).')


def _split(document: dict) -> tuple[dict, dict]:
    """The request's target and work (the schema's rules made each
    exactly one kind)."""
    target = {key: document[key] for key in schemas.TARGETS
              if key in document}
    if 'config_id' in document:
        work = {key: document[key] for key in schemas.CONFIG_WORK
                if key in document}
        if work.get('signal_transport') is None:
            work['signal_transport'] = 'default'
        return target, work
    work = {key: document[key] for key in schemas.ACTION_WORK}
    if document.get('skip_missing'):
        work['skip_missing'] = True
    return target, work


@pecan.expose('json')
@spec.operation(
    'listRollouts', "The project's rollouts, newest first.", tag=TAG,
    responses={**spec.ok('RolloutList', 'Rollouts, without counts.'),
               **spec.errors(400, 403)},
    parameters=(
        spec.query('limit', spec.NON_NEGATIVE_INT,
                   'At most this many rollouts.'),
        spec.query('marker', {'type': 'string'},
                   'Continue after this rollout id (ignored when '
                   'unknown).'),
    ))
def index() -> dict:
    context = pecan.request.context
    limit = params.non_negative_int('limit', params.get('limit'))
    rows = db_api.rollout_get_all(context, limit=limit,
                                  marker=params.get('marker') or None)
    return {'rollouts': [views.rollout(row) for row in rows]}


@pecan.expose('json')
@spec.operation('showRollout',
                'Show a rollout with its targets counted by state.',
                tag=TAG,
                responses={**spec.ok('RolloutShow', 'The rollout.'),
                           **spec.errors(400, 403, 404)},
                parameters=(_WAIT,))
def show(rollout_id: str) -> dict:
    context = pecan.request.context
    wait = params.non_negative_int('wait', params.get('wait'))
    row = db_api.rollout_get(context, rollout_id)
    if wait:
        deadline = time.monotonic() + min(wait, deployment_watch.MAX_WAIT)
        while row['finished_at'] is None and time.monotonic() < deadline:
            time.sleep(WAIT_STEP)
            row = db_api.rollout_get(context, rollout_id)
    return {'rollout': views.rollout(row)}


@pecan.expose('json')
@spec.operation('createRollout',
                'Deploy a config to, or run an action on, many servers '
                'in waves.', tag=TAG,
                body=spec.Body('RolloutCreate', schemas.CREATE),
                responses={**spec.ok('RolloutShow', 'The new rollout, its '
                                     'first wave started.'),
                           **spec.errors(400, 403, 404, 409, 422)},
                parameters=(spec.IDEMPOTENCY_KEY,))
def create() -> dict:
    context = pecan.request.context
    document = request_body.load(pecan.request, schemas.CREATE)
    target, work = _split(document)
    row = pecan.request.engine.create_rollout(
        context, target, work,
        None if document.get('max_concurrency') is None
        else str(document['max_concurrency']),
        None if document.get('max_errors') is None
        else str(document['max_errors']), params.idempotency_key())
    return {'rollout': views.rollout(row)}


@pecan.expose('json')
@spec.operation('cancelRollout',
                'Cancel a rollout: no new target starts; running ones '
                'are cancelled.', tag=TAG,
                responses={**spec.ok('RolloutShow', 'The rollout.'),
                           **spec.errors(400, 403, 404, 409)})
def cancel(rollout_id: str) -> dict:
    context = pecan.request.context
    row = pecan.request.engine.cancel_rollout(context, rollout_id)
    return {'rollout': views.rollout(row)}


@pecan.expose('json')
@spec.operation(
    'listRolloutTargets', "A rollout's targets in the order they start.",
    tag=TAG,
    responses={**spec.ok('RolloutTargetList', 'Targets.'),
               **spec.errors(400, 403, 404)},
    parameters=(
        spec.query('limit', spec.NON_NEGATIVE_INT,
                   'At most this many targets.'),
        spec.query('marker', spec.NON_NEGATIVE_INT,
                   'Continue after the target at this position.'),
        spec.query('state', {'enum': list(rollout_db.TARGET_STATES)},
                   'Only targets in this state.'),
    ))
def targets(rollout_id: str) -> dict:
    context = pecan.request.context
    limit = params.non_negative_int('limit', params.get('limit'))
    marker = params.non_negative_int('marker', params.get('marker'))
    state = params.get('state') or None
    if state is not None and state not in rollout_db.TARGET_STATES:
        raise exception.InvalidParameterValue(
            reason=f'Unknown state {state!r}; give one of '
                   f'{", ".join(rollout_db.TARGET_STATES)}.')
    rows = db_api.rollout_targets_get(context, rollout_id, state=state,
                                      limit=limit, marker=marker)
    return {'targets': [views.rollout_target(row) for row in rows]}


@pecan.expose('json')
@spec.operation('listRolloutEvents', "A rollout's events, oldest first.",
                tag=TAG,
                responses={**spec.ok('RolloutEventList', 'Events.'),
                           **spec.errors(400, 403, 404)})
def events(rollout_id: str) -> dict:
    context = pecan.request.context
    rows = db_api.rollout_events_get(context, rollout_id)
    return {'events': [views.rollout_event(row) for row in rows]}
