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

"""Applying signals exactly once, and failing deployments that time out.

The API stored each signal in the inbox before answering the agent; here
an engine claims it (``processed_at``, conditionally) and applies it to the
deployment (conditionally on its ``version``) in one transaction. A signal
for an older action revision, or for an action that already finished, is
recorded as an event and not applied; so is a signal of a cancelled
action (result STALE). A DELETE action that finishes removes its
deployment (``actions.finish_deletes``).
"""

import datetime
import json
import threading
import time
from typing import Any

from oslo_db import api as oslo_db_api
from oslo_log import log
from oslo_utils import timeutils

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common import states
from swconfig.db import api as db_api
from swconfig.engine import actions
from swconfig.engine import deadlines
from swconfig.engine import metadata
from swconfig.engine import rollouts
from swconfig.transports import base as transports_base

LOG = log.getLogger(__name__)

DEPLOY_KEYS = ('deploy_stdout', 'deploy_stderr', 'deploy_status_code')
APPLY_ATTEMPTS = 5
SWEEP_BATCH = 500
BATCH_SIZE = 100
MAX_BACKLOG_PAGES = 50
SWEEP_GRACE_SECONDS = 2
DEFER_SECONDS = 0.05


def interpret(details: Any, outputs: list[dict],
              output_values: dict | None) -> tuple[dict, str]:
    """Heat's signal semantics (doc/source/reference/signals.rst), plus
    progress.

    Returns the deployment values to write and the event reason. The
    API's stand-in for a signal too large to keep fails the deployment;
    its outputs are left as they were.
    """
    oversized = states.oversized_reason(details)
    if oversized is not None:
        return ({'status': states.FAILED, 'status_reason': oversized},
                oversized)
    if not isinstance(details, dict):
        details = {}
    if details.get('deploy_status') == states.IN_PROGRESS:
        reason = details.get('deploy_status_reason') or (
            'Deployment in progress')
        if not isinstance(reason, str):
            # JSON text, as the agent sent it, not a Python repr
            # ({'step': 2} or True would read as Python to the user).
            reason = json.dumps(reason, ensure_ascii=False, sort_keys=True)
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
        return ({'output_values': values, 'status': states.FAILED,
                 'status_reason': reason}, reason)
    return ({'output_values': values, 'status': states.COMPLETE,
             'status_reason': 'Outputs received'}, 'Outputs received')


class _Batch:
    """What one transaction writes for a batch of claimed signals, and
    what became of each signal."""

    def __init__(self) -> None:
        self.finished: dict[int, str] = {}  # inbox id -> stored result
        self.results: dict[int, Any] = {}  # inbox id -> result or error
        self.updates: dict[str, dict] = {}  # deployment id -> its write
        self.before: dict[str, dict] = {}  # deployment id -> as read
        self.events: list[dict] = []
        self.deferred: list[int] = []
        # (verb, inbox id, request id that stored it, deployment, reason)
        self.log: list[tuple[str, int, str | None, str, str]] = []

    def refuse(self, signal: dict, deployment: dict | None, result: str,
               reason: str) -> None:
        self.finished[signal['id']] = self.results[signal['id']] = result
        if deployment is not None:
            self.events.append({
                'deployment_id': deployment['id'],
                'action': deployment['action'],
                'old_status': deployment['status'],
                'new_status': deployment['status'], 'reason': reason})
        self.log.append(('not applied', signal['id'],
                         signal.get('request_id'), signal['deployment_id'],
                         reason))

    def apply(self, signal: dict, deployment: dict) -> dict:
        """Apply ``signal`` to ``deployment``; returns the deployment as
        it is afterwards (the next signal of the batch sees that)."""
        values, reason = interpret(signal['payload'], deployment['outputs'],
                                   deployment['output_values'])
        after = dict(deployment, **values, version=deployment['version'] + 1)
        update = self.updates.setdefault(deployment['id'], {
            'id': deployment['id'], 'values': {},
            'expected_version': deployment['version']})
        update['values'].update(values)
        update['version'] = after['version']
        self.before.setdefault(deployment['id'], deployment)
        result = values.get('status', 'PROGRESS')
        self.finished[signal['id']] = self.results[signal['id']] = result
        self.events.append({
            'deployment_id': deployment['id'], 'action': deployment['action'],
            'old_status': deployment['status'], 'new_status': after['status'],
            'reason': reason})
        self.log.append(('applied to', signal['id'],
                         signal.get('request_id'), deployment['id'], reason))
        return after


def _decide(signals: list[dict], deployments: dict[str, dict],
            first_pending: dict[str, int]) -> _Batch:
    """Decide every claimed signal, oldest first; signals of the same
    deployment see the effect of the earlier ones. A signal whose
    deployment has an older signal held by another engine waits."""
    batch = _Batch()
    claimed = {signal['id'] for signal in signals}
    current = dict(deployments)
    for signal in signals:
        deployment = current.get(signal['deployment_id'])
        if deployment is None:
            batch.refuse(signal, None, 'GONE', 'deployment deleted')
            continue
        first = first_pending.get(deployment['id'])
        if first is not None and first < signal['id'] and (
                first not in claimed):
            batch.deferred.append(signal['id'])
            continue
        refusal = states.signal_refusal(signal['action_revision'],
                                        deployment['action_revision'],
                                        deployment['status'],
                                        deployment.get('status_reason'))
        oversized = states.oversized_reason(signal['payload'])
        if refusal is not None:
            reason = refusal.reason
            if oversized is not None:
                reason = f'{reason}: {oversized}'
            batch.refuse(signal, deployment, refusal.result, reason)
        elif deployment['outputs'] is None and oversized is None:
            batch.results[signal['id']] = exception.ConfigNotFound(
                config_id=deployment['config_id'])
        else:
            current[deployment['id']] = batch.apply(signal, deployment)
    return batch


def _finished_deletes(batch: _Batch) -> list[str]:
    """The server-derived deployments whose DELETE action the batch
    finished: they go now."""
    return sorted(
        deployment_id for deployment_id, before in batch.before.items()
        if before['action'] == states.DELETE
        and before['source_config_id'] is not None
        and batch.updates[deployment_id]['values'].get('status')
        in states.FINAL_STATUSES)


@oslo_db_api.wrap_db_retry(max_retries=3, retry_on_deadlock=True)
def _apply_once(inbox_ids: list[int]) -> _Batch:
    """One transaction: claim, decide, write. Signals another engine holds
    are skipped (that engine applies them)."""
    admin = swconfig_context.get_admin_context()
    with db_api.writer.using(admin):
        signals = db_api.signal_inbox_claim(admin, inbox_ids)
        if not signals:
            return _Batch()
        deployment_ids = sorted({s['deployment_id'] for s in signals})
        deployments = db_api.signal_deployments_lock(admin, deployment_ids)
        first_pending = db_api.signal_inbox_first_pending(
            admin, deployment_ids)
        batch = _decide(signals, deployments, first_pending)
        db_api.signal_inbox_finish(admin, batch.finished)
        db_api.software_deployments_apply(admin,
                                          list(batch.updates.values()))
        db_api.deployment_events_add(admin, batch.events)
    return batch


def apply_batch(inbox_ids: list[int]) -> dict[int, Any]:
    """Apply stored signals, many per transaction; returns for each id
    it handled what became of it (``COMPLETE``, ``FAILED``, ``PROGRESS``,
    ``GONE``, ``STALE``, ``DUPLICATE``) or the exception that stopped it.
    Ids another engine handled, and those still waiting for an older
    signal after APPLY_ATTEMPTS, are absent.

    A few statements per batch whatever its size, and a render only for
    servers whose document the signals change. A signal that must wait
    for an older one of its deployment is tried again shortly, up to
    APPLY_ATTEMPTS times; after that it is the sweep's.
    """
    results: dict[int, Any] = {}
    todo = sorted(set(inbox_ids))
    for attempt in range(APPLY_ATTEMPTS):
        try:
            batch = _apply_once(todo)
        except exception.ConcurrentUpdate as exc:
            LOG.debug('Deployments changed under a signal batch: %s', exc)
            results.update((inbox_id, exc) for inbox_id in todo)
            time.sleep(DEFER_SECONDS)
            continue
        for inbox_id in todo:
            results.pop(inbox_id, None)
        results.update(batch.results)
        for verb, inbox_id, request_id, deployment_id, reason in batch.log:
            # The request id of the request that stored the signal: the
            # agent's or user's call is found in the API's log.
            LOG.info('Signal %s (stored by request %s) %s deployment %s: %s',
                     inbox_id, request_id or 'unknown', verb, deployment_id,
                     reason)
        for server_id in sorted({
                before['server_id']
                for deployment_id, before in batch.before.items()
                if metadata.document_changes(before, dict(
                    before, **batch.updates[deployment_id]['values']))}):
            metadata.render(server_id)
        actions.finish_deletes(_finished_deletes(batch))
        if batch.updates:
            # A deployment may have finished a rollout's target: the
            # owner's round need not wait for its interval.
            rollouts.WAKE.set()
        if not batch.deferred:
            break
        todo = batch.deferred
        time.sleep(DEFER_SECONDS * (attempt + 1))
    return results


class _GroupCommit:
    """Concurrent ``process`` calls (one per RPC cast, on the RPC
    server's threads) share one batch: the first caller applies what has
    queued up while the others wait for their result. Under a burst a
    transaction carries many signals; alone, a signal is applied at once.

    A cast also covers every signal stored before it that is still
    pending (the API sends one cast for the signals that arrive together),
    so each batch is followed by those, page by page.
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
                results = apply_batch(ids)
            except Exception as exc:
                results = {inbox_id: exc for inbox_id, _ in batch}
            for inbox_id, waiter in batch:
                waiter['result'] = results.get(inbox_id)
                waiter['done'].set()
            try:
                self._apply_covered(max(ids))
            except Exception:
                LOG.exception('Could not apply pending signals up to %s; '
                              'the signal sweep will retry', max(ids))

    def _apply_covered(self, last_id: int) -> None:
        """What the cast covers and is still pending, page by page in id
        order, each page once: rows another engine holds are that
        engine's (it applies them), failing ones the sweep's. Paging on
        from the last id read, not from the oldest pending, keeps rows
        held elsewhere from hiding the rest of the backlog (they left
        signals of a burst to the sweep)."""
        admin = swconfig_context.get_admin_context()
        after = 0
        for _page in range(MAX_BACKLOG_PAGES):
            page = db_api.signal_inbox_pending_upto(admin, last_id,
                                                    self.limit, after=after)
            if not page:
                return
            apply_batch(page)
            after = page[-1]


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


def timed_out(passed: datetime.datetime | None = None) -> list[dict]:
    """Deployments past their timeout (a bounded batch): deadlines
    before ``passed`` (by default ``deadlines.cutoff()``).

    A signal stored by the deadline wins, whatever happens after: such a
    deployment is left to the signal (applied by a cast or the sweep),
    and the deadline is only acted on
    ``deadlines.SIGNAL_STORE_GRACE_SECONDS`` after it passed, the time an
    API server may take between stamping a signal and committing it.
    """
    return db_api.software_deployment_timed_out(
        swconfig_context.get_admin_context(),
        passed or deadlines.cutoff(), SWEEP_BATCH)


def time_out(deployment: dict) -> bool:
    """FAILED, with a clear reason, for a deployment of ``timed_out``;
    False when a signal, or a user, got there first (the write is
    conditional, so engines racing for it are harmless)."""
    admin = swconfig_context.get_admin_context()
    seconds = round((deployment['timeout_at']
                     - deployment['created_at']).total_seconds())
    reason = f'Deployment timed out: no signal within {seconds} seconds'
    if not db_api.software_deployment_time_out(
            admin, deployment['id'], deployment['version'], reason):
        return False
    LOG.warning('Deployment %s on server %s: %s', deployment['id'],
                deployment['server_id'], reason)
    metadata.render(deployment['server_id'])
    if (deployment['action'] == states.DELETE
            and deployment['source_config_id'] is not None):
        actions.finish_deletes([deployment['id']])
    return True


class EngineSink(transports_base.SignalSink):
    """The sink transports hand fetched signals to in an engine: applied
    here and now; one that cannot be applied now stays stored for the
    sweep."""

    def apply(self, inbox_id: int) -> None:
        result = process(inbox_id)
        if isinstance(result, Exception):
            LOG.warning('Signal %s stored, not applied yet: %s', inbox_id,
                        result)


#: The engine's sink (its context is the admin's: a fetched signal has
#: no caller).
SINK = EngineSink(swconfig_context.get_admin_context())
