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

"""Engine heartbeats on every real backend: the rows each engine keeps
(``swconfig.db.engine_services``), the engine's heartbeat that writes
them (``swconfig.engine.heartbeat``) and the API's count that reads them
(``swconfig.engine.availability``)."""

import datetime
import logging
import os
import uuid

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import pytest

from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import availability
from swconfig.engine import heartbeat
from tests.unit.db import backends

TOPIC = 'swconfig-engine'
NOW = datetime.datetime(2030, 6, 1, 12, 0, 0)


@pytest.fixture
def clock(monkeypatch):
    """``clock(seconds)``: utcnow is NOW + seconds from then on."""
    now = [NOW]
    monkeypatch.setattr(timeutils, 'utcnow', lambda: now[0])

    def _at(seconds: float) -> None:
        now[0] = NOW + datetime.timedelta(seconds=seconds)
    return _at


@pytest.fixture
def fresh_reads(monkeypatch):
    """Every check reads the database (no per-second cache)."""
    monkeypatch.setattr(availability, 'CACHE', 0)


def window() -> float:
    return db_api.heartbeat_window()


def test_the_window_is_three_intervals(set_conf):
    set_conf('database_heartbeat_interval', 7, group='engine')
    assert window() == 21


@backends.on_every_backend
def test_an_engine_counts_while_its_heartbeat_is_recent(facade, admin,
                                                        clock):
    assert db_api.engine_services_live(admin, TOPIC) == 0
    assert db_api.engine_service_beat(admin, 'e-1', 'host-1', TOPIC, 11)
    assert db_api.engine_services_live(admin, TOPIC) == 1
    assert db_api.engine_services_live(admin, 'another-topic') == 0
    clock(window() - 1)
    assert not db_api.engine_service_beat(admin, 'e-1', 'host-1', TOPIC,
                                          11)
    clock(2 * window() - 2)
    assert db_api.engine_services_live(admin, TOPIC) == 1
    clock(2 * window())  # no beat for a whole window: not running
    assert db_api.engine_services_live(admin, TOPIC) == 0


@backends.on_every_backend
def test_a_removed_engine_stops_counting_at_once(facade, admin, clock):
    db_api.engine_service_beat(admin, 'e-1', 'host-1', TOPIC, 11)
    db_api.engine_service_beat(admin, 'e-2', 'host-1', TOPIC, 12)
    assert db_api.engine_services_live(admin, TOPIC) == 2
    db_api.engine_service_remove(admin, 'e-1')
    assert db_api.engine_services_live(admin, TOPIC) == 1
    # A beat after removal (the runner's last round) makes it again.
    assert db_api.engine_service_beat(admin, 'e-1', 'host-1', TOPIC, 11)


@backends.on_every_backend
def test_prune_removes_stopped_engines_of_the_host_and_topic_only(
        facade, admin, clock):
    db_api.engine_service_beat(admin, 'dead', 'host-1', TOPIC, 1)
    db_api.engine_service_beat(admin, 'dead-elsewhere', 'host-2', TOPIC, 2)
    db_api.engine_service_beat(admin, 'dead-other-topic', 'host-1', 'x', 3)
    clock(window() + 1)
    db_api.engine_service_beat(admin, 'alive', 'host-1', TOPIC, 4)
    assert db_api.engine_service_prune(admin, 'host-1', TOPIC) == 1
    assert db_api.engine_service_prune(admin, 'host-1', TOPIC) == 0
    # The live engine of the host is kept; the others were not asked.
    assert db_api.engine_services_live(admin, TOPIC) == 1
    clock(0)
    assert db_api.engine_services_live(admin, TOPIC) == 2
    assert db_api.engine_services_live(admin, 'x') == 1


# -- the engine's heartbeat -------------------------------------------------

@pytest.fixture
def beat(db):
    """A Heartbeat of this test's own (not the process's BEAT), on a topic
    of its own: an in-process engine that an earlier test of this worker
    started keeps beating on the session's topic, into whichever database
    is current."""
    session_topic = CONF.engine.topic
    CONF.set_override('topic', f'heartbeat-test-{uuid.uuid4().hex[:8]}',
                      group='engine')
    made = heartbeat.Heartbeat()
    yield made
    made.stop()
    CONF.set_override('topic', session_topic, group='engine')


def test_start_records_a_row_and_stop_removes_it(beat, admin, fresh_reads):
    engines = availability.Availability(CONF.engine.topic)
    with pytest.raises(exception.NoEngineRunning):
        engines.check()
    beat.start('host-1')
    assert db_api.engine_services_live(admin, CONF.engine.topic) == 1
    engines.check()
    beat.run(None)
    assert db_api.engine_services_live(admin, CONF.engine.topic) == 1
    beat.stop()
    assert db_api.engine_services_live(admin, CONF.engine.topic) == 0
    with pytest.raises(exception.NoEngineRunning):
        engines.check()
    beat.run(None)  # a last round after stop makes no row
    assert db_api.engine_services_live(admin, CONF.engine.topic) == 0


def test_a_restarted_engine_removes_its_killed_predecessor(beat, admin,
                                                           clock):
    db_api.engine_service_beat(admin, 'killed', 'host-1', CONF.engine.topic,
                               os.getpid())
    clock(window() + 1)
    beat.start('host-1')
    clock(0)  # the killed engine's row is gone, not only old
    assert db_api.engine_services_live(admin, CONF.engine.topic) == 1


def test_the_heartbeat_does_not_back_off(beat):
    assert beat.max_interval() == beat.interval() == (
        CONF.engine.database_heartbeat_interval)


def test_a_failed_first_beat_is_logged_not_raised(beat, monkeypatch,
                                                  caplog):
    def down(*args):
        raise db_exc.DBConnectionError('refused')

    monkeypatch.setattr(db_api, 'engine_service_prune', down)
    with caplog.at_level(logging.WARNING, logger=heartbeat.__name__):
        beat.start('host-1')
    assert 'could not record its first heartbeat' in caplog.text


# -- the API's count ----------------------------------------------------------

def test_no_engine_is_503_naming_it_and_logged_once(db, admin, fresh_reads,
                                                    caplog):
    engines = availability.Availability('t-none')
    with caplog.at_level(logging.INFO, logger=availability.__name__):
        for _ in range(3):
            with pytest.raises(exception.NoEngineRunning) as refused:
                engines.check()
    error = refused.value
    assert error.code == 503
    assert error.type_name == 'ServiceUnavailable'
    assert ('Retry-After', '5') in error.headers
    assert error.message.startswith(
        f'No engine is running: none has recorded a heartbeat on topic '
        f't-none in the last {window():g} seconds.')
    assert not error.log_each
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, caplog.text
    db_api.engine_service_beat(admin, 'e', 'h', 't-none', 1)
    with caplog.at_level(logging.INFO, logger=availability.__name__):
        engines.check()
    assert '1 engine(s) running on topic t-none again' in caplog.text


def test_the_count_is_read_once_a_second(db, monkeypatch):
    reads = []
    monkeypatch.setattr(db_api, 'engine_services_live',
                        lambda context, topic: reads.append(topic) or 1)
    engines = availability.Availability('t')
    for _ in range(50):
        engines.check()
    assert reads == ['t']


def test_a_pin_turns_the_count_off(db, fresh_reads):
    """Engines of an older release record no heartbeats."""
    availability.Availability('t-none', check_engines=False).check()


def test_a_database_outage_lets_the_call_go_ahead(db, monkeypatch,
                                                  fresh_reads):
    def down(context, topic):
        raise db_exc.DBConnectionError('refused')

    monkeypatch.setattr(db_api, 'engine_services_live', down)
    availability.Availability('t').check()


def test_other_errors_of_the_count_are_not_hidden(db, monkeypatch,
                                                  fresh_reads):
    monkeypatch.setattr(db_api, 'engine_services_live',
                        lambda context, topic: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        availability.Availability('t').check()


# -- /healthcheck's engines check ---------------------------------------------

def test_the_engines_health_check(db, admin):
    from swconfig.api import healthcheck

    check = healthcheck.EnginesCheck(oslo_conf=CONF, conf={})
    result = check.healthcheck(8004)
    assert (result.available, result.reason) == (False, 'no engine running')
    assert f'topic {CONF.engine.topic}' in result.details
    db_api.engine_service_beat(admin, 'e', 'h', CONF.engine.topic, 1)
    result = check.healthcheck(8004)
    assert (result.available, result.reason) == (True, 'engines OK')
    assert result.details.startswith('1 engine(s) running')
