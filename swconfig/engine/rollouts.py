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

"""Rollouts, the engine's side: one request's work over many servers,
run in waves with an error budget.

``create`` resolves the target (a server group, a list of servers, or a
label selector) to servers once, records them in order with the rollout,
and starts the first wave at once. ``advance`` is one step: it notes the
targets whose deployments finished, stops the rollout once more than
``max_errors`` failed, and otherwise starts targets in position order
until ``max_concurrency`` run. The engine that owns a rollout (the
coordination's partition, ``periodics.Rollouts``) advances it every
``[engine] rollout_interval`` and whenever it applied a signal
(``WAKE``); if that engine dies another takes the rollout over.

A target is started in the transaction that creates its deployment, and
only if it was not started: a wave's chunk locks the rollout, checks the
concurrency again and marks its targets, or rolls back whole, so a
target never starts twice and never more than ``max_concurrency`` run,
whichever engines advance the rollout. Targets running an action on an
existing deployment are reserved the same way (marked started with no
deployment yet), then triggered with an Idempotency-Key of their own
(``rollout:<id>:<position>``): a target left reserved by an engine that
died is triggered again by the next round, and the key returns the
first trigger's deployment if it made one.
"""

import math
import threading

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_log import log
from oslo_utils import timeutils
from oslo_utils import uuidutils

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common import states
from swconfig.common.context import RequestContext
from swconfig.common.deployment_request import DeploymentRequest
from swconfig.db import api as db_api
from swconfig.db import rollouts as rollout_db
from swconfig.engine import actions
from swconfig.engine import deployment_batches
from swconfig.engine import deployments
from swconfig.engine import idempotency
from swconfig.engine import rollout_targets

LOG = log.getLogger(__name__)

PENDING = 'PENDING'
IN_PROGRESS = 'IN_PROGRESS'
COMPLETE = 'COMPLETE'
FAILED = 'FAILED'
CANCELLED = 'CANCELLED'
STATUSES = (PENDING, IN_PROGRESS, COMPLETE, FAILED, CANCELLED)

DEFAULT_MAX_CONCURRENCY = '50'
DEFAULT_MAX_ERRORS = '0'

#: Set when a signal was applied: the owner's round looks at once.
WAKE = threading.Event()
#: Seconds the owner leaves a PENDING rollout to the engine creating it
#: (which starts its first wave in the creation call), so that two
#: engines do not both derive the first wave; after that the creator is
#: taken for dead and the owner starts it.
CREATION_GRACE_SECONDS = 60
#: Targets in the first chunk of a wave (later ones: a batch's chunk).
FIRST_CHUNK = 50


class _Raced(Exception):
    """Another engine changed the rollout while a wave was written: the
    wave's chunk rolls back and the next round starts again."""


def limit(value: str, total: int) -> int:
    """``value`` (a number, or ``"N%"`` of ``total`` targets, rounded
    up) as a number of targets."""
    if value.endswith('%'):
        return math.ceil(total * int(value[:-1]) / 100)
    return int(value)


def create(context: RequestContext, target: dict, work: dict,
           max_concurrency: str | None = None,
           max_errors: str | None = None,
           idempotency_key: str | None = None) -> dict:
    """A new rollout of the caller's project over ``target``
    (``server_group``, ``servers`` or ``selector``) doing ``work``
    (``config_id`` and the deployment's fields, or ``deployment_name``
    and ``action``); its first wave is started before it is returned.

    With an ``idempotency_key`` already used for the same request: the
    rollout that request made (nothing is created); used for another
    request, 422 (as deployments' keys)."""
    request_digest = idempotency.digest({'rollout': {
        'target': target, 'work': work, 'max_concurrency': max_concurrency,
        'max_errors': max_errors}})
    made, rollout_id = _create_once(context, target, work, max_concurrency,
                                    max_errors, idempotency_key,
                                    request_digest)
    if made:
        advance(rollout_id)
    else:
        LOG.info('Rollout creation with Idempotency-Key %s repeated: '
                 'rollout %s, not created again', idempotency_key,
                 rollout_id)
    return db_api.rollout_get(context, rollout_id)


# Two requests with one new key: the second meets the first's row once
# it commits, starts again, and finds it.
@oslo_db_api.wrap_db_retry(max_retries=5, retry_interval=0.05,
                           max_retry_interval=1, jitter=True,
                           exception_checker=lambda exc: isinstance(
                               exc, db_exc.DBDuplicateEntry))
def _create_once(context: RequestContext, target: dict, work: dict,
                 max_concurrency: str | None, max_errors: str | None,
                 key: str | None, request_digest: str) -> tuple[bool, str]:
    """(whether it was made now, the rollout's id)."""
    with db_api.writer.using(context):
        made = idempotency.made_before(context, key, request_digest)
    if made is not None:
        return False, made
    servers, left_out = rollout_targets.runnable(
        context, rollout_targets.resolve(context, target), work)
    if work.get('config_id'):
        db_api.software_config_get(context, work['config_id'])
    values = {
        'id': uuidutils.generate_uuid(), 'tenant': context.project_id,
        'status': PENDING, 'status_reason': None, 'target': target,
        'work': work,
        'max_concurrency': str(max_concurrency or DEFAULT_MAX_CONCURRENCY),
        'max_errors': str(max_errors or DEFAULT_MAX_ERRORS),
        'created_at': timeutils.utcnow(), 'started_at': None,
        'finished_at': None, 'version': 1}
    with db_api.writer.using(context):
        made = idempotency.made_before(context, key, request_digest)
        if made is not None:
            return False, made
        db_api.rollout_create(context, values, servers)
        db_api.rollout_event_add(
            context, values['id'], 'created',
            f'{len(servers)} targets; at most {values["max_concurrency"]} '
            f'at once, at most {values["max_errors"]} failures')
        if left_out:
            db_api.rollout_event_add(
                context, values['id'], 'skipped',
                rollout_targets.named(left_out, 'has', 'have')
                + f' no deployment named '
                f'{work["deployment_name"]}: left out (skip_missing)')
        idempotency.remember(context, key, request_digest, values['id'],
                             values['id'])
    LOG.info('Rollout %s of project %s created over %d servers',
             values['id'], context.project_id, len(servers))
    return True, values['id']


def _project_context(rollout: dict) -> RequestContext:
    """The rollout's project, as the one who created it acts."""
    return RequestContext(project_id=rollout['tenant'], is_admin=False,
                          overwrite=False)


def _refresh(admin: RequestContext, rollout: dict) -> None:
    """Note the targets whose deployments finished."""
    running = db_api.rollout_targets_get(admin, rollout['id'],
                                         state=rollout_db.IN_PROGRESS)
    reserved = [target for target in running
                if target['deployment_id'] is None]
    if reserved:
        # Action targets whose engine died between the reservation and
        # the trigger, or whose trigger is still on its way.
        _attach(_project_context(rollout), rollout, reserved)
        running = db_api.rollout_targets_get(admin, rollout['id'],
                                             state=rollout_db.IN_PROGRESS)
    running = [target for target in running
               if target['deployment_id'] is not None]
    if not running:
        return
    found: dict[str, dict] = {}
    ids = [target['deployment_id'] for target in running]
    # A chunk per query: within every backend's bound parameters.
    for first in range(0, len(ids), deployment_batches.CHUNK_SIZE):
        found.update(db_api.software_deployments_get_many(
            admin, ids[first:first + deployment_batches.CHUNK_SIZE]))
    finished: dict[int, str] = {}
    failures = []
    for target in running:
        deployment = found.get(target['deployment_id'])
        if deployment is None:
            finished[target['position']] = rollout_db.FAILED
            failures.append((target, 'its deployment was deleted'))
        elif deployment['status'] == states.COMPLETE:
            finished[target['position']] = rollout_db.COMPLETE
        elif states.is_cancelled(deployment['status'],
                                 deployment['status_reason']):
            # Cancelled, by the rollout's cancel or by hand: not a
            # failure of the target, whichever of the round and the
            # cancel notes it first.
            finished[target['position']] = rollout_db.CANCELLED
        elif deployment['status'] == states.FAILED:
            finished[target['position']] = rollout_db.FAILED
            failures.append((target, deployment['status_reason']))
    if not finished:
        return
    with db_api.writer.using(admin):
        db_api.rollout_targets_set(admin, rollout['id'], finished)
        for target, reason in failures:
            db_api.rollout_event_add(
                admin, rollout['id'], 'target_failed',
                f'Server {target["server_id"]} (deployment '
                f'{target["deployment_id"]}): {reason}')


def _finish(admin: RequestContext, rollout: dict, status: str,
            reason: str, event: str) -> None:
    with db_api.writer.using(admin):
        db_api.rollout_update(admin, rollout['id'], {
            'status': status, 'status_reason': reason,
            'finished_at': timeutils.utcnow()})
        db_api.rollout_event_add(admin, rollout['id'], event, reason)
    LOG.info('Rollout %s %s: %s', rollout['id'], status, reason)


def advance(rollout_id: str) -> dict:
    """One step of the rollout (see the module's docstring); the
    rollout as it is after it."""
    admin = swconfig_context.get_admin_context()
    rollout = db_api.rollout_get(admin, rollout_id)
    if rollout['finished_at'] is not None:
        return rollout
    _refresh(admin, rollout)
    rollout = db_api.rollout_get(admin, rollout_id)
    counts = rollout['counts']
    total = sum(counts.values())
    running = counts[rollout_db.IN_PROGRESS]
    failed = counts[rollout_db.FAILED]
    not_started = counts[rollout_db.NOT_STARTED]
    if rollout['status'] in (FAILED, CANCELLED):
        # Stopped: finished once its last running targets are.
        if not running:
            with db_api.writer.using(admin):
                db_api.rollout_update(admin, rollout_id, {
                    'finished_at': timeutils.utcnow()})
        return db_api.rollout_get(admin, rollout_id)
    if rollout['started_at'] is None:
        with db_api.writer.using(admin):
            db_api.rollout_update(admin, rollout_id, {
                'started_at': timeutils.utcnow()})
            db_api.rollout_event_add(admin, rollout_id, 'started',
                                     f'{total} targets')
    max_errors = limit(rollout['max_errors'], total)
    if failed > max_errors:
        reason = (f'Stopped: {failed} targets failed, more than the '
                  f'{max_errors} allowed; {not_started} not started')
        with db_api.writer.using(admin):
            db_api.rollout_update(admin, rollout_id, {
                'status': FAILED, 'status_reason': reason,
                'finished_at': None if running else timeutils.utcnow()})
            db_api.rollout_event_add(admin, rollout_id, 'stopped', reason)
        LOG.warning('Rollout %s: %s', rollout_id, reason)
        return db_api.rollout_get(admin, rollout_id)
    if not running and not not_started:
        _finish(admin, rollout, COMPLETE,
                f'{counts[rollout_db.COMPLETE]} targets complete, '
                f'{failed} failed', 'finished')
        return db_api.rollout_get(admin, rollout_id)
    concurrency = max(1, limit(rollout['max_concurrency'], total))
    slots = min(concurrency - running, not_started)
    if slots > 0:
        _start_wave(rollout, concurrency, slots)
    if rollout['status'] == PENDING:
        # PENDING until its first wave is written: until then the owner
        # leaves it to the engine that creates it (periodics.Rollouts).
        db_api.rollout_update(admin, rollout_id, {'status': IN_PROGRESS},
                              expected_status=PENDING)
    return db_api.rollout_get(admin, rollout_id)


def _start_wave(rollout: dict, concurrency: int, slots: int) -> None:
    """Start the next ``slots`` targets."""
    admin = swconfig_context.get_admin_context()
    context = _project_context(rollout)
    targets = db_api.rollout_targets_get(
        admin, rollout['id'], state=rollout_db.NOT_STARTED, limit=slots)
    try:
        if rollout['work'].get('config_id'):
            started = _deploy(context, rollout, targets, concurrency)
        else:
            started = _trigger(context, rollout, targets, concurrency)
    except _Raced:
        LOG.info('Rollout %s changed while a wave started; the next round '
                 'starts it again', rollout['id'])
        return
    except exception.SwconfigException as exc:
        if exc.code >= 500:
            raise  # an outage: the next round tries again
        # The project's quota, say: no later wave would do better. Over
        # once its running targets are (``advance``).
        reason = f'Stopped: {exc.message}'
        with db_api.writer.using(admin):
            db_api.rollout_update(admin, rollout['id'], {
                'status': FAILED, 'status_reason': reason})
            db_api.rollout_event_add(admin, rollout['id'], 'stopped',
                                     reason)
        LOG.warning('Rollout %s: %s', rollout['id'], reason)
        return
    if started:
        LOG.info('Rollout %s: started %d targets from position %d',
                 rollout['id'], started, targets[0]['position'])


def _wave_event(context: RequestContext, rollout: dict, started: int,
                first: int) -> None:
    db_api.rollout_event_add(
        context, rollout['id'], 'wave_started',
        f'Started {started} targets (from position {first})')


def _fail_targets(context: RequestContext, rollout: dict,
                  problems: list[tuple[dict, str]],
                  expected: str = rollout_db.NOT_STARTED) -> None:
    """Targets that could not start: FAILED, each with an event."""
    if not problems:
        return
    with db_api.writer.using(context):
        db_api.rollout_targets_set(
            context, rollout['id'],
            {target['position']: rollout_db.FAILED
             for target, _ in problems}, expected=expected)
        for target, reason in problems:
            db_api.rollout_event_add(
                context, rollout['id'], 'target_failed',
                f'Server {target["server_id"]}: {reason}')


def _check_wave(context: RequestContext, rollout_id: str, concurrency: int,
                started: dict[int, str]) -> None:
    """In a wave's transaction: the rollout still runs, the wave keeps
    within its concurrency, and its targets were not started meanwhile;
    else _Raced (the transaction rolls back)."""
    current = db_api.rollout_get_for_update(context, rollout_id)
    if current['status'] not in (PENDING, IN_PROGRESS):
        raise _Raced()
    if current['counts'][rollout_db.IN_PROGRESS] + len(started) > (
            concurrency):
        raise _Raced()
    if not db_api.rollout_targets_start(context, rollout_id, started):
        raise _Raced()


def _deploy(context: RequestContext, rollout: dict, targets: list[dict],
            concurrency: int) -> int:
    """Create the targets' deployments of the rollout's config, a chunk
    per transaction, each chunk derived just before it is written (the
    first servers have their deployments while the rest of a large wave
    is still derived); how many started."""
    started = first = 0
    # A small first chunk: its servers have their deployments a few
    # milliseconds after the wave starts, whatever its size.
    size = FIRST_CHUNK
    while first < len(targets):
        started += _deploy_chunk(context, rollout,
                                 targets[first:first + size], concurrency)
        first += size
        size = deployment_batches.CHUNK_SIZE
    return started


def _deploy_chunk(context: RequestContext, rollout: dict,
                  targets: list[dict], concurrency: int) -> int:
    """One chunk of a wave: its targets started, their deployments and a
    wave event in one transaction; how many started."""
    work = rollout['work']
    requests = [DeploymentRequest(
        server_id=target['server_id'], config_id=work['config_id'],
        input_values=work.get('input_values') or {},
        action=work.get('deploy_action') or states.CREATE,
        signal_transport=work.get('signal_transport'),
        name=work.get('name'), timeout=work.get('timeout'))
        for target in targets]
    found = deployment_batches.plan(context, requests)
    _fail_targets(context, rollout, [
        (targets[index], problem)
        for index, problem in sorted(found.problems.items())])
    if not found.items:
        return 0
    try:
        deployments.check_quota(context, adding=len(found.items))
    except exception.SwconfigException:
        deployment_batches.forget_transports(found.items)
        raise

    positions = {item.values['id']: targets[item.index]['position']
                 for item in found.items}

    def hook(chunk_context: RequestContext, rows: list[dict],
             last: bool) -> None:
        _check_wave(chunk_context, rollout['id'], concurrency,
                    {positions[row['id']]: row['id'] for row in rows})
        # With the targets, so an engine killed now leaves both or none.
        _wave_event(chunk_context, rollout, len(rows),
                    positions[rows[0]['id']])

    written = deployment_batches.write(
        context, found.items, in_chunk=hook,
        event_reason=f'Deploy data available (rollout {rollout["id"]})')
    return len(written)


def _named_deployment(context: RequestContext, server_id: str,
                      name: str) -> dict | None:
    """The server's deployment (not a trigger) of a config named
    ``name``, the newest if several."""
    rows = [row for row in db_api.software_deployment_get_all(
        context, server_id=server_id) if row['triggered_from'] is None]
    configs = db_api.software_configs_get_many(
        context, [row['config_id'] for row in rows])
    named = [row for row in rows
             if (configs.get(row['config_id']) or {}).get('name') == name]
    return named[-1] if named else None


def _trigger(context: RequestContext, rollout: dict, targets: list[dict],
             concurrency: int) -> int:
    """Reserve the targets, then trigger the action on each one's
    deployment of the named component; how many started.

    The reservation is a wave's transaction (the rollout locked, the
    concurrency checked again, the targets IN_PROGRESS with no
    deployment yet), so racing engines never run more than
    ``max_concurrency`` actions; each trigger is then its own
    transaction, as a single trigger is.
    """
    with db_api.writer.using(context):
        _check_wave(context, rollout['id'], concurrency,
                    dict.fromkeys(target['position'] for target in targets))
        _wave_event(context, rollout, len(targets), targets[0]['position'])
    return _attach(context, rollout, targets)


def _attach(context: RequestContext, rollout: dict,
            targets: list[dict]) -> int:
    """Trigger the action for reserved targets and record each one's
    deployment; those that cannot run are FAILED. Run again for targets
    left reserved by an engine that died, the Idempotency-Key
    (``rollout:<id>:<position>``) returns the deployment its trigger
    made, if it made one; how many have a deployment."""
    work = rollout['work']
    problems = []
    attached = 0
    for target in targets:
        deployment = _named_deployment(context, target['server_id'],
                                       work['deployment_name'])
        if deployment is None:
            problems.append((target, f'no deployment named '
                                     f'{work["deployment_name"]}'))
            continue
        try:
            made = actions.trigger(
                context, deployment['id'], {'action': work['action']},
                idempotency_key=f'rollout:{rollout["id"]}:'
                                f'{target["position"]}')
        except exception.SwconfigException as exc:
            if exc.code >= 500:
                raise
            problems.append((target, exc.message))
            continue
        with db_api.writer.using(context):
            db_api.rollout_target_attach(
                context, rollout['id'], target['position'],
                made['software_deployment']['id'])
        attached += 1
    _fail_targets(context, rollout, problems, expected=rollout_db.IN_PROGRESS)
    return attached


def cancel(context: RequestContext, rollout_id: str) -> dict:
    """CANCELLED: no new target starts, those not started are
    CANCELLED, and the running ones' deployments are cancelled as a
    single cancel does; the rollout."""
    with db_api.writer.using(context):
        rollout = db_api.rollout_get_for_update(context, rollout_id)
        if rollout['status'] not in (PENDING, IN_PROGRESS):
            raise exception.RolloutFinished(rollout_id=rollout_id,
                                            status=rollout['status'])
        skipped = db_api.rollout_targets_cancel(context, rollout_id)
        db_api.rollout_update(context, rollout_id, {
            'status': CANCELLED,
            'status_reason': f'Cancelled; {skipped} targets not started'})
        db_api.rollout_event_add(context, rollout_id, 'cancelled',
                                 f'{skipped} targets not started')
    running = db_api.rollout_targets_get(context, rollout_id,
                                         state=rollout_db.IN_PROGRESS)
    stopped = {}
    for target in running:
        try:
            actions.cancel(context, target['deployment_id'])
        except (exception.DeploymentFinished,
                exception.DeploymentNotFound):
            continue  # finished meanwhile: the next round notes how
        stopped[target['position']] = rollout_db.CANCELLED
    with db_api.writer.using(context):
        db_api.rollout_targets_set(context, rollout_id, stopped)
    LOG.info('Rollout %s cancelled: %d targets not started, %d running '
             'cancelled', rollout_id, skipped, len(stopped))
    advance(rollout_id)
    return db_api.rollout_get(context, rollout_id)
