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

"""The engine's background work: what counts as an outage, the engine's
own tasks, and the table of tasks each configuration runs (the runner:
``tests/unit/common/test_background.py``)."""

import logging

from oslo_db import exception as db_exc
import pytest

from swconfig import transports
from swconfig.common import exception
from swconfig.engine import deadlines
from swconfig.engine import periodics
from swconfig.engine import signals
from swconfig.transports.swift import client as swift
from swconfig.transports.swift import metadata as swift_metadata
from swconfig.transports.swift import poller
from tests.unit.outages import backend_down
from tests.unit.outages import database_down
from tests.unit.partitions import Everything
from tests.unit.partitions import Only


def test_the_database_outage_is_recognised_by_db_api():
    """What the runner backs off on is the database's own definition of
    an outage, not a list of its own."""
    assert periodics.is_outage(database_down())
    assert periodics.is_outage(backend_down())
    assert not periodics.is_outage(db_exc.DBDuplicateEntry())
    assert not periodics.is_outage(KeyError('id'))


def test_timeouts_fail_only_the_deployments_this_engine_owns(monkeypatch):
    late = [{'id': f'dep-{n}'} for n in range(4)]
    failed = []
    monkeypatch.setattr(signals, 'timed_out', lambda passed: late)
    monkeypatch.setattr(signals, 'time_out',
                        lambda row: failed.append(row['id']))
    monkeypatch.setattr(deadlines, 'next_wait', lambda passed, longest: 4.5)
    task = periodics.Timeouts()
    task.run(Only({'dep-1', 'dep-3'}))
    assert failed == ['dep-1', 'dep-3']
    assert task.wait_after_round() == 4.5


def test_timeouts_wait_for_the_next_deadline_or_a_backlog(monkeypatch,
                                                          set_conf):
    """Every round asks when the next deadline is due (at most the
    interval later); a full batch leaves more to fail at once."""
    set_conf('timeout_check_interval', 10, group='agent')
    asked = []
    batch = []
    monkeypatch.setattr(signals, 'timed_out', lambda passed: batch)
    monkeypatch.setattr(signals, 'time_out', lambda row: None)
    monkeypatch.setattr(deadlines, 'next_wait', lambda passed, longest: (
        asked.append((passed, longest)) or 2.5))
    task = periodics.Timeouts()
    assert task.wakeup is deadlines.WAKE
    assert task.wait_after_round() == 10
    task.run(Everything())
    assert task.wait_after_round() == 2.5
    assert len(asked) == 1 and asked[0][1] == 10
    batch.extend({'id': f'd{n}'} for n in range(signals.SWEEP_BATCH))
    task.run(Everything())
    assert task.wait_after_round() == deadlines.MIN_WAIT_SECONDS
    assert len(asked) == 1


@pytest.fixture
def swift_conf(set_conf):
    """A configured [swift] (as in test_transports), nothing contacted."""
    set_conf('auth_url', 'http://swift.test/auth/v1.0', group='swift')
    set_conf('user', 'svc:swconfig', group='swift')
    set_conf('key', 'secret', group='swift')
    set_conf('temp_url_key', 'tempurl-key', group='swift')
    swift.reset()
    yield
    swift.reset()


def names(tasks):
    return [task.name for task in tasks]


def test_the_table_holds_the_engines_own_tasks_always():
    """Document pushes included, with no pushing transport configured:
    servers cut over from Heat are pushed into Heat's channel."""
    tasks = periodics.table()
    assert names(tasks) == [
        'heartbeat', 'signal-sweep', 'deployment-timeouts', 'rollouts',
        'key-purge', 'document-push']
    assert isinstance(tasks[-1], periodics.DocumentPush)


def test_configured_swift_adds_its_poller_once(swift_conf):
    """Two Swift transports are installed (TEMP_URL_SIGNAL and
    POLL_TEMP_URL); the signal poller runs once, with the engine's
    sink, and POLL_TEMP_URL makes the engine push documents."""
    assert {'TEMP_URL_SIGNAL'} <= set(transports.available())
    tasks = periodics.table()
    assert sorted(names(tasks)) == sorted([
        'heartbeat', 'signal-sweep', 'deployment-timeouts', 'rollouts',
        'key-purge', 'document-push', 'swift-signals'])
    polling = [task for task in tasks if task.name == 'swift-signals']
    assert len(polling) == 1
    assert isinstance(polling[0], poller.SignalPoller)
    assert polling[0].sink is signals.SINK
    assert polling[0].transport == 'TEMP_URL_SIGNAL'


def test_a_task_two_transports_declare_runs_once(swift_conf, monkeypatch):
    """Transports sharing a service may declare the same task: the table
    holds it once, the first declared (signal transports come first)."""
    monkeypatch.setattr(
        swift_metadata.PollTempUrlTransport, 'periodic_tasks',
        lambda self, sink: [poller.SignalPoller(self.name, sink)],
        raising=False)
    polling = [task for task in periodics.table()
               if task.name == 'swift-signals']
    assert len(polling) == 1
    assert polling[0].transport == 'TEMP_URL_SIGNAL'


def test_the_tasks_take_their_intervals_from_the_options(set_conf,
                                                         swift_conf):
    set_conf('signal_sweep_interval', 7, group='agent')
    set_conf('timeout_check_interval', 11, group='agent')
    set_conf('document_push_interval', 0.5, group='agent')
    set_conf('signal_poll_interval', 1.5, group='swift')
    set_conf('max_retry_interval', 40.0, group='swift')
    set_conf('idempotency_key_purge_interval', 600, group='engine')
    tasks = {task.name: task for task in periodics.table()}
    assert tasks['signal-sweep'].interval() == 7
    assert tasks['deployment-timeouts'].interval() == 11
    assert tasks['document-push'].interval() == 0.5
    assert tasks['key-purge'].interval() == 600
    assert tasks['swift-signals'].interval() == 1.5
    assert tasks['swift-signals'].max_interval() == 40.0


def test_a_rollout_deleted_before_its_round_is_skipped_quietly(monkeypatch,
                                                                caplog):
    """Deleted between the listing and the advance: logged at INFO with
    no traceback, and the other rollouts are still advanced."""
    advanced = []

    def advance(rollout_id):
        if rollout_id == 'gone':
            raise exception.RolloutNotFound(rollout_id=rollout_id)
        advanced.append(rollout_id)

    monkeypatch.setattr(periodics.rollouts, 'advance', advance)
    with caplog.at_level(logging.INFO, logger=periodics.__name__):
        periodics.Rollouts().handle(iter(['gone', 'kept']))
    assert advanced == ['kept']
    record, = [r for r in caplog.records if 'gone' in r.getMessage()]
    assert record.levelno == logging.INFO and record.exc_info is None
