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

"""What the API knows before it calls an engine about the message bus
(``swconfig.engine.availability``), and how EngineAPI uses it: a bus
that failed is probed, and while it refuses connections calls are
refused at once and calls already waiting give up. The engines' count
is tested on the database, in tests/unit/engine/test_heartbeat.py."""

import logging
import threading
import time
from unittest import mock

import pytest

from swconfig.common import exception
from swconfig.common import rpc
from swconfig.engine import availability
from swconfig.engine import rpcapi


@pytest.fixture
def engines(monkeypatch):
    """Engines run (the count is the database's business); ``probes``
    records each bus probe and answers ``probes.answer``."""
    monkeypatch.setattr(availability.db_api, 'engine_services_live',
                        lambda context, topic: 1)


class Probes(list):
    answer: str | None = None


@pytest.fixture
def probes(monkeypatch):
    made = Probes()

    def probe(timeout):
        made.append(timeout)
        return made.answer

    monkeypatch.setattr(rpc, 'bus_problem', probe)
    return made


def test_a_healthy_bus_is_never_probed(engines, probes):
    bus = availability.Availability('t')
    for _ in range(100):
        bus.check()
    assert probes == []


def test_after_a_failure_the_bus_is_probed_and_refused_at_once(
        engines, probes, caplog):
    bus = availability.Availability('t')
    probes.answer = '127.0.0.1:5672: [Errno 111] Connection refused'
    bus.bus_failed()
    with caplog.at_level(logging.INFO, logger=availability.__name__):
        for _ in range(20):
            with pytest.raises(exception.MessageBusDown) as refused:
                bus.check()
    # One probe per second per worker, not one per request.
    assert probes == [availability.PROBE_TIMEOUT]
    error = refused.value
    assert error.code == 503 and ('Retry-After', '5') in error.headers
    assert error.type_name == 'ServiceUnavailable'
    assert error.message == (
        'The message bus is unavailable: 127.0.0.1:5672: [Errno 111] '
        'Connection refused. Retry in a few seconds.')
    assert not error.log_each
    assert caplog.text.count('does not accept connections') == 1


def test_calls_go_again_once_a_probe_finds_the_bus(engines, probes,
                                                   monkeypatch, caplog):
    monkeypatch.setattr(availability, 'CACHE', 0)
    bus = availability.Availability('t')
    probes.answer = 'refused'
    bus.bus_failed()
    with pytest.raises(exception.MessageBusDown):
        bus.check()
    probes.answer = None
    with caplog.at_level(logging.INFO, logger=availability.__name__):
        bus.check()
        bus.check()
    assert len(probes) == 2  # no probes once it is up again
    assert 'accepts connections again' in caplog.text


def test_interrupt_probes_and_reports_a_bus_that_went_down(engines,
                                                           probes):
    bus = availability.Availability('t')
    assert bus.interrupt() is None  # the call is slow, the bus is up
    probes.answer = 'refused'
    bus._bus.expire()
    stop = bus.interrupt()
    assert isinstance(stop, exception.MessageBusDown)
    # Found by a waiting call: the next calls are refused before sending.
    with pytest.raises(exception.MessageBusDown):
        bus.check()


def test_concurrent_checks_share_one_probe(engines, monkeypatch):
    """While one thread probes, the others use the last answer instead
    of probing too (or waiting for it)."""
    release = threading.Event()
    started = threading.Event()
    made = []

    def slow_probe(timeout):
        made.append(timeout)
        started.set()
        release.wait(5)
        return 'refused'

    monkeypatch.setattr(rpc, 'bus_problem', slow_probe)
    bus = availability.Availability('t')
    prober = threading.Thread(target=bus.interrupt)
    prober.start()
    assert started.wait(5)
    began = time.monotonic()
    assert bus.interrupt() is None  # the answer so far: none
    assert time.monotonic() - began < 0.5
    release.set()
    prober.join(5)
    assert made == [availability.PROBE_TIMEOUT]


# -- EngineAPI ----------------------------------------------------------------

@pytest.fixture
def client(monkeypatch):
    fake = mock.Mock(name='RPCClient')
    monkeypatch.setattr(rpc, 'get_client', lambda *args, **kwargs: fake)
    return fake


def test_no_engine_refuses_before_anything_is_sent(client, context,
                                                   monkeypatch):
    monkeypatch.setattr(availability.db_api, 'engine_services_live',
                        lambda context, topic: 0)
    api = rpcapi.EngineAPI()
    with pytest.raises(exception.NoEngineRunning):
        api.create_software_config(context, 'n', 'script', 'x', [], [], {})
    client.prepare.assert_not_called()


def test_a_pinned_api_does_not_count_engines(client, context, monkeypatch,
                                             set_conf):
    monkeypatch.setattr(availability.db_api, 'engine_services_live',
                        lambda context, topic: 0)
    set_conf('engine', '1.5', group='upgrade_levels')
    client.can_send_version.return_value = True
    client.prepare.return_value.call.return_value = {'id': 'c1'}
    api = rpcapi.EngineAPI()
    assert api.create_software_config(
        context, 'n', 'script', 'x', [], [], {}) == {'id': 'c1'}


def test_a_call_failing_on_the_bus_makes_the_next_ones_fail_fast(
        client, context, engines, probes):
    probes.answer = 'refused'
    client.prepare.return_value.call.side_effect = ConnectionRefusedError(
        111, 'Connection refused')
    api = rpcapi.EngineAPI()
    with pytest.raises(exception.MessagingUnavailable):
        api.delete_software_config(context, 'c1')
    assert client.prepare.return_value.call.call_count == 1
    with pytest.raises(exception.MessageBusDown):
        api.delete_software_config(context, 'c1')
    assert client.prepare.return_value.call.call_count == 1


def test_a_call_waiting_on_a_bus_that_went_down_gives_up(
        client, context, engines, probes, monkeypatch):
    monkeypatch.setattr(rpc.CallRunner, 'INTERRUPT_EVERY', 0.1)
    release = threading.Event()
    client.prepare.return_value.call.side_effect = (
        lambda *args, **kwargs: release.wait(30))
    api = rpcapi.EngineAPI()
    probes.answer = 'refused'
    started = time.monotonic()
    try:
        with pytest.raises(exception.MessageBusDown):
            api.delete_software_config(context, 'c1')
    finally:
        release.set()
    assert time.monotonic() - started < 2
