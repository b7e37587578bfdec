"""Applying signals exactly once, and failing deployments that time out.

The API stored each signal in the inbox before answering the agent; here
an engine claims it (``processed_at``, conditionally) and applies it to the
deployment (conditionally on its ``version``) in one transaction. A signal
for an older action revision, or for an action that already finished, is
recorded as an event and not applied.
"""

from typing import Any

from oslo_log import log
from oslo_utils import timeutils

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.db import api as db_api
from swconfig.engine import metadata

LOG = log.getLogger(__name__)

IN_PROGRESS = 'IN_PROGRESS'
COMPLETE = 'COMPLETE'
FAILED = 'FAILED'
DEPLOY_KEYS = ('deploy_stdout', 'deploy_stderr', 'deploy_status_code')
APPLY_ATTEMPTS = 5
SWEEP_BATCH = 500
SWEEP_GRACE_SECONDS = 2


def interpret(details: Any, outputs: list[dict],
              output_values: dict | None) -> tuple[dict, str]:
    """Heat's signal semantics (heat-compat.md §3.2), plus progress.

    Returns the deployment values to write and the event reason.
    """
    if not isinstance(details, dict):
        details = {}
    if details.get('deploy_status') == IN_PROGRESS:
        reason = str(details.get('deploy_status_reason')
                     or 'Deployment in progress')
        return {'status_reason': reason}, reason
    values = dict(output_values or {})
    failures = []
    status_code = details.get('deploy_status_code')
    if status_code and str(status_code) != '0':
        failures.append(('deploy_status_code',
                         'Deployment exited with non-zero status code: '
                         f'{status_code}'))
    for output in outputs:
        name = output['name']
        if name in details:
            values[name] = details[name]
            if output.get('error_output'):
                failures.append((name, details[name]))
    for key in DEPLOY_KEYS:
        values[key] = details.get(key)
    if failures:
        reason = ', '.join(f'{key} : {value}' for key, value in failures)
        return ({'output_values': values, 'status': FAILED,
                 'status_reason': reason}, reason)
    return ({'output_values': values, 'status': COMPLETE,
             'status_reason': 'Outputs received'}, 'Outputs received')


def _discard(admin: Any, signal: dict, deployment: dict | None,
             result: str, reason: str) -> None:
    with db_api.writer.using(admin):
        if not db_api.signal_inbox_finish(admin, signal['id'], result):
            return
        if deployment is not None:
            db_api.deployment_event_add(admin, deployment['id'],
                                        deployment['action'],
                                        deployment['status'], reason)
    LOG.info('Signal %s for deployment %s not applied: %s', signal['id'],
             signal['deployment_id'], reason)


def process(inbox_id: int) -> str | None:
    """Apply stored signal ``inbox_id``; returns what became of it.

    One read (signal, deployment and config outputs joined) and one write
    transaction; the document is re-rendered only when the signal changes
    which deployments it holds (``metadata.document_changes``).
    """
    admin = swconfig_context.get_admin_context()
    for _attempt in range(APPLY_ATTEMPTS):
        found = db_api.signal_inbox_context(admin, inbox_id)
        if found is None or found['signal']['processed_at'] is not None:
            return None
        signal, deployment = found['signal'], found['deployment']
        if deployment is None:
            _discard(admin, signal, None, 'GONE', 'deployment deleted')
            return 'GONE'
        if deployment['action_revision'] != signal['action_revision']:
            _discard(admin, signal, deployment, 'STALE',
                     f'Stale signal for action revision '
                     f'{signal["action_revision"]} ignored (current '
                     f'revision {deployment["action_revision"]})')
            return 'STALE'
        if deployment['status'] != IN_PROGRESS:
            _discard(admin, signal, deployment, 'DUPLICATE',
                     f'Duplicate signal ignored: the action already '
                     f'finished ({deployment["status"]})')
            return 'DUPLICATE'
        if found['outputs'] is None:
            raise exception.ConfigNotFound(config_id=deployment['config_id'])
        values, reason = interpret(signal['payload'], found['outputs'],
                                   deployment['output_values'])
        result = 'PROGRESS' if 'status' not in values else values['status']
        try:
            with db_api.writer.using(admin):
                if not db_api.signal_inbox_finish(admin, inbox_id, result):
                    return None  # another engine handled it
                db_api.software_deployment_update(
                    admin, deployment['id'], deployment['version'], values,
                    event_reason=reason)
        except exception.ConcurrentUpdate:
            continue
        LOG.info('Signal %s applied to deployment %s: %s', inbox_id,
                 deployment['id'], reason)
        if metadata.document_changes(deployment, dict(deployment, **values)):
            metadata.render(deployment['server_id'])
        return result
    raise exception.ConcurrentUpdate(deployment_id=signal['deployment_id'])


def sweep() -> int:
    """Apply signals no engine picked up (crash, messaging outage)."""
    admin = swconfig_context.get_admin_context()
    before = timeutils.utcnow() - timeutils.datetime.timedelta(
        seconds=SWEEP_GRACE_SECONDS)
    pending = db_api.signal_inbox_pending(admin, before, SWEEP_BATCH)
    for inbox_id in pending:
        try:
            process(inbox_id)
        except Exception:
            LOG.exception('Could not apply stored signal %s; will retry',
                          inbox_id)
    if pending:
        LOG.info('Signal sweep handled %d stored signal(s)', len(pending))
    return len(pending)


def fail_timed_out() -> int:
    """FAILED, with a clear reason, for deployments past their timeout."""
    admin = swconfig_context.get_admin_context()
    now = timeutils.utcnow()
    expired = db_api.software_deployment_timed_out(admin, now, SWEEP_BATCH)
    for deployment in expired:
        seconds = round((deployment['timeout_at']
                         - deployment['created_at']).total_seconds())
        reason = (f'Deployment timed out: no signal within {seconds} '
                  f'seconds')
        try:
            db_api.software_deployment_update(
                admin, deployment['id'], deployment['version'],
                {'status': FAILED, 'status_reason': reason})
        except (exception.ConcurrentUpdate, exception.DeploymentNotFound):
            continue  # a signal or a user got there first
        LOG.warning('Deployment %s on server %s: %s', deployment['id'],
                    deployment['server_id'], reason)
        metadata.render(deployment['server_id'])
    return len(expired)
