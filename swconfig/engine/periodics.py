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

"""Everything an engine does in the background, in one table.

``table()`` lists the engine's own tasks (the signal sweep, deployment
timeouts, the Idempotency-Key purge, document pushes while a pushing
metadata transport is configured) and every configured transport's
tasks (``SignalTransport.periodic_tasks``); each has its interval from
the options. The engine's service runs them with the runner every
process uses (``swconfig.common.background``), backing off while a
service is unreachable (``is_outage``: ``BackendUnavailable``, or a
database outage); which items a shared task handles is decided by the
coordinator (``coordination``), never by the task.
"""

from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Iterator
import datetime

from oslo_log import log
from oslo_utils import timeutils

from swconfig import transports
from swconfig.common import background
from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import deadlines
from swconfig.engine import document_push
from swconfig.engine import heartbeat
from swconfig.engine import idempotency
from swconfig.engine import rollouts
from swconfig.engine import signals

LOG = log.getLogger(__name__)


class Every(background.PeriodicTask):
    """A task every engine runs whole: its work is safe to race (claims
    and conditional writes decide)."""

    def __init__(self, name: str, interval: Callable[[], float],
                 work: Callable[[], object]) -> None:
        self.name = name
        self._interval = interval
        self._work = work

    def interval(self) -> float:
        return self._interval()

    def run(self, partition: background.Partition) -> None:
        self._work()


class Timeouts(background.SharedTask):
    """Fail the deployments past their deadline, each by its owner, in a
    round when the next deadline is due (``deadlines``), at least every
    ``[agent] timeout_check_interval``."""

    name = 'deployment-timeouts'
    wakeup = deadlines.WAKE

    def __init__(self) -> None:
        self._passed = None
        self._backlog = False
        self._wait: float | None = None

    def interval(self) -> float:
        return CONF.agent.timeout_check_interval

    def items(self) -> Iterable[tuple[str, dict]]:
        late = signals.timed_out(self._passed)
        self._backlog = len(late) >= signals.SWEEP_BATCH
        return ((row['id'], row) for row in late)

    def handle(self, owned: Iterator[dict]) -> None:
        for deployment in owned:
            signals.time_out(deployment)

    def run(self, partition: background.Partition) -> None:
        self._wait = None
        deadlines.round_started()
        self._passed = deadlines.cutoff()
        super().run(partition)
        # A full batch leaves more to fail now; else the next deadline.
        self._wait = (deadlines.MIN_WAIT_SECONDS if self._backlog else
                      deadlines.next_wait(self._passed, self.interval()))

    def wait_after_round(self) -> float:
        return self.interval() if self._wait is None else self._wait


class DocumentPush(background.SharedTask):
    """Push new documents of servers that poll Swift or Zaqar, each by
    the owner of its server."""

    name = 'document-push'

    def interval(self) -> float:
        return CONF.agent.document_push_interval

    def items(self) -> Iterable[tuple[str, dict]]:
        return ((server['id'], server)
                for server in document_push.pending_servers())

    def handle(self, owned: Iterator[dict]) -> None:
        """Push every owned server's document; one server's failure does
        not hold up the others (a Swift outage must not stop the pushes to
        Zaqar). An outage is raised at the end of the round, so the runner
        backs off and logs it once."""
        outage: Exception | None = None
        for server in owned:
            try:
                document_push.push(server)
            except Exception as exc:
                if not is_outage(exc):
                    LOG.exception('Could not push the document of server '
                                  '%s; retried next round', server['id'])
                elif outage is None:
                    outage = exc
        if outage is not None:
            raise outage


class Rollouts(background.SharedTask):
    """Advance the running rollouts, each by its owner (partitioned by
    rollout id, so another engine carries a rollout on if its owner
    dies), every ``[engine] rollout_interval`` or as soon as this engine
    applied a signal (``rollouts.WAKE``)."""

    name = 'rollouts'
    wakeup = rollouts.WAKE

    def interval(self) -> float:
        return CONF.engine.rollout_interval

    def items(self) -> Iterable[tuple[str, str]]:
        # A PENDING rollout is its creator's for a while (its first wave).
        fresh = timeutils.utcnow() - datetime.timedelta(
            seconds=rollouts.CREATION_GRACE_SECONDS)
        return ((row['id'], row['id']) for row in db_api.rollouts_running(
            swconfig_context.get_admin_context())
            if row['status'] != rollouts.PENDING
            or row['created_at'] < fresh)

    def handle(self, owned: Iterator[str]) -> None:
        """Advance each owned rollout; one's failure does not hold up the
        others (an outage is raised at the end, so the runner backs off)."""
        outage: Exception | None = None
        for rollout_id in owned:
            try:
                rollouts.advance(rollout_id)
            except exception.RolloutNotFound:
                # Deleted since it was listed: nothing left to advance.
                LOG.info('Rollout %s was deleted before this round '
                         'advanced it', rollout_id)
            except Exception as exc:
                if not is_outage(exc):
                    LOG.exception('Could not advance rollout %s; retried '
                                  'next round', rollout_id)
                elif outage is None:
                    outage = exc
        if outage is not None:
            raise outage


def table() -> list[background.PeriodicTask]:
    """The background work of this configuration."""
    tasks: list[background.PeriodicTask] = [
        heartbeat.BEAT,
        Every('signal-sweep', lambda: CONF.agent.signal_sweep_interval,
              signals.sweep),
        Timeouts(),
        Rollouts(),
        Every('key-purge',
              lambda: CONF.engine.idempotency_key_purge_interval,
              idempotency.purge_expired_keys),
    ]
    # Always: servers cut over from Heat are pushed to the channel Heat
    # set up, whatever swconfig's own transports are.
    tasks.append(DocumentPush())
    tasks.extend(transports.periodic_tasks(signals.SINK))
    return tasks


def is_outage(exc: Exception) -> bool:
    """Whether ``exc`` means a service is down, not a bug."""
    return (isinstance(exc, exception.BackendUnavailable)
            or db_api.is_outage(exc))
