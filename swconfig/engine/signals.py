"""Applying signals exactly once, and failing deployments that time out.

The API stored each signal in the inbox before answering the agent; here
an engine claims it (``processed_at``, conditionally) and applies it to the
deployment (conditionally on its ``version``) in one transaction. A signal
for an older action revision, or for an action that already finished, is
recorded as an event and not applied.
"""

import threading
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
BATCH_SIZE = 100
MAX_BACKLOG_PAGES = 50
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


def _change(signal: dict, deployment: dict,
            outputs: list[dict] | None) -> dict:
    """What applying ``signal`` writes (see ``db_api.signal_inbox_apply``)."""
    if outputs is None:
        raise exception.ConfigNotFound(config_id=deployment['config_id'])
    values, reason = interpret(signal['payload'], outputs,
                               deployment['output_values'])
    return {'inbox_id': signal['id'],
            'result': values.get('status', 'PROGRESS'),
            'deployment_id': deployment['id'],
            'expected_version': deployment['version'], 'values': values,
            'action': deployment['action'],
            'old_status': deployment['status'], 'reason': reason,
            'deployment': deployment}


def _refused(admin: Any, signal: dict, deployment: dict | None) -> str | None:
    """Discard a signal that cannot be applied; its result, or None."""
    if deployment is None:
        _discard(admin, signal, None, 'GONE', 'deployment deleted')
        return 'GONE'
    if deployment['action_revision'] != signal['action_revision']:
        _discard(admin, signal, deployment, 'STALE',
                 f'Stale signal for action revision '
                 f'{signal["action_revision"]} ignored (current revision '
                 f'{deployment["action_revision"]})')
        return 'STALE'
    if deployment['status'] != IN_PROGRESS:
        _discard(admin, signal, deployment, 'DUPLICATE',
                 f'Duplicate signal ignored: the action already finished '
                 f'({deployment["status"]})')
        return 'DUPLICATE'
    return None


def apply_batch(inbox_ids: list[int]) -> dict[int, Any]:
    """Apply stored signals, many per transaction; returns for each id
    what became of it (``COMPLETE``, ``FAILED``, ``PROGRESS``, ``GONE``,
    ``STALE``, ``DUPLICATE``; None if another engine handled it), or the
    exception that stopped it.

    Per round: one read of every pending signal with its deployment, one
    write transaction, and a render only for servers whose document the
    signals change. Signals for the same deployment are applied one per
    round, in the order they arrived; a deployment changed under us is
    read again, up to APPLY_ATTEMPTS times.
    """
    admin = swconfig_context.get_admin_context()
    results: dict[int, Any] = {}
    conflicts: dict[int, int] = {}
    todo = sorted(set(inbox_ids))
    while todo:
        found = db_api.signal_inbox_contexts(admin, todo)
        changes, later, servers = [], [], set()
        for inbox_id in todo:
            item = found.get(inbox_id)
            if item is None or item['signal']['processed_at'] is not None:
                results[inbox_id] = None
                continue
            signal, deployment = item['signal'], item['deployment']
            try:
                refused = _refused(admin, signal, deployment)
                if refused is not None:
                    results[inbox_id] = refused
                elif any(change['deployment_id'] == deployment['id']
                         for change in changes):
                    later.append(inbox_id)  # after the earlier signal
                else:
                    changes.append(_change(signal, deployment,
                                           item['outputs']))
            except Exception as exc:
                results[inbox_id] = exc
        outcome = db_api.signal_inbox_apply(admin, changes) if changes else {}
        for change in changes:
            inbox_id = change['inbox_id']
            state = outcome[inbox_id]
            if state == 'applied':
                results[inbox_id] = change['result']
                LOG.info('Signal %s applied to deployment %s: %s', inbox_id,
                         change['deployment_id'], change['reason'])
                deployment = change['deployment']
                if metadata.document_changes(
                        deployment, dict(deployment, **change['values'])):
                    servers.add(deployment['server_id'])
            elif state == 'taken':
                results[inbox_id] = None  # another engine handled it
            else:
                conflicts[inbox_id] = conflicts.get(inbox_id, 0) + 1
                if conflicts[inbox_id] < APPLY_ATTEMPTS:
                    later.append(inbox_id)
                else:
                    results[inbox_id] = exception.ConcurrentUpdate(
                        deployment_id=change['deployment_id'])
        for server_id in sorted(servers):
            metadata.render(server_id)
        todo = sorted(later)
    return results


class _GroupCommit:
    """Concurrent ``process`` calls (one per RPC cast, on the RPC
    server's threads) share one batch: the first caller applies what has
    queued up while the others wait for their result. Under a burst a
    transaction carries many signals; alone, a signal is applied at once.

    A cast also covers every signal stored before it that is still
    pending (the API sends one cast for the signals that arrive together),
    so each batch takes those too, page by page.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._pending: list[tuple[int, dict]] = []
        self._busy = False

    def submit(self, inbox_id: int) -> Any:
        waiter = {'done': threading.Event()}
        with self._lock:
            self._pending.append((inbox_id, waiter))
            lead = not self._busy
            self._busy = True
        if lead:
            self._drain()
        waiter['done'].wait()
        if isinstance(waiter.get('result'), Exception):
            raise waiter['result']
        return waiter.get('result')

    def _drain(self) -> None:
        while True:
            with self._lock:
                batch = self._pending[:self.limit]
                del self._pending[:self.limit]
                if not batch:
                    self._busy = False
                    return
            ids = [inbox_id for inbox_id, _ in batch]
            try:
                results = apply_batch(ids + self._covered(max(ids)))
            except Exception as exc:
                results = {inbox_id: exc for inbox_id, _ in batch}
            for inbox_id, waiter in batch:
                waiter['result'] = results.get(inbox_id)
                waiter['done'].set()
            try:
                previous: list[int] = []
                for _page in range(MAX_BACKLOG_PAGES):
                    # a backlog the cast covers, page by page; a page that
                    # makes no progress (failing signals) is the sweep's
                    covered = self._covered(max(ids))
                    if len(covered) < self.limit or covered == previous:
                        break
                    apply_batch(covered)
                    previous = covered
            except Exception:
                LOG.exception('Could not apply pending signals up to %s; '
                              'the signal sweep will retry', max(ids))

    def _covered(self, last_id: int) -> list[int]:
        admin = swconfig_context.get_admin_context()
        return db_api.signal_inbox_pending_upto(admin, last_id, self.limit)


_BATCHES = _GroupCommit(BATCH_SIZE)


def process(inbox_id: int) -> str | None:
    """Apply stored signal ``inbox_id``; returns what became of it."""
    return _BATCHES.submit(inbox_id)


def sweep() -> int:
    """Apply signals no engine picked up (crash, messaging outage)."""
    admin = swconfig_context.get_admin_context()
    before = timeutils.utcnow() - timeutils.datetime.timedelta(
        seconds=SWEEP_GRACE_SECONDS)
    pending = db_api.signal_inbox_pending(admin, before, SWEEP_BATCH)
    for start in range(0, len(pending), BATCH_SIZE):
        chunk = pending[start:start + BATCH_SIZE]
        try:
            results = apply_batch(chunk)
        except Exception:
            LOG.exception('Could not apply stored signals %s..%s; will '
                          'retry', chunk[0], chunk[-1])
            continue
        for inbox_id, result in results.items():
            if isinstance(result, Exception):
                LOG.error('Could not apply stored signal %s (%s); will '
                          'retry', inbox_id, result)
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
