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

"""How a fetched signal arrives: parsed, stored once per source key,
replaced by a stand-in when too large, refused when unusable, and
applied once stored."""

import json
import logging

import pytest

from swconfig.common import context as swconfig_context
from swconfig.common import states
from swconfig.db import api as db_api
from swconfig.engine import signals
from swconfig.transports import base

LOGGER = base.__name__
DEPLOYMENT = 'a1b2c3d4-0000-4000-8000-000000000001'
KEY = 'swift:3:0123456789abcdef0123456789abcdef'


class Sink(base.SignalSink):
    def __init__(self):
        super().__init__(swconfig_context.get_admin_context())
        self.applied = []

    def apply(self, inbox_id):
        self.applied.append(inbox_id)


class Inbox:
    """``signal_inbox_add_once``: each source key stored once, the ids
    counting from 41."""

    def __init__(self):
        self.calls = []
        self.keys = {}

    def add_once(self, context, deployment_id, action_revision, payload,
                 source_key):
        self.calls.append({'context': context, 'deployment': deployment_id,
                           'revision': action_revision, 'payload': payload,
                           'key': source_key})
        if source_key in self.keys:
            return None
        self.keys[source_key] = 41 + len(self.keys)
        return self.keys[source_key]


@pytest.fixture
def inbox(monkeypatch):
    stored = Inbox()
    monkeypatch.setattr(db_api, 'signal_inbox_add_once', stored.add_once)
    return stored


@pytest.fixture
def sink():
    return Sink()


def test_a_json_signal_is_stored_under_its_key_and_applied(inbox, sink,
                                                           caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    body = json.dumps({'deploy_status_code': 0,
                       'deploy_stdout': 'done'}).encode()
    assert sink.receive(DEPLOYMENT, 3, KEY, body=body, size=len(body),
                        where='object c/o') is True
    assert inbox.calls == [{
        'context': sink.context, 'deployment': DEPLOYMENT, 'revision': 3,
        'payload': {'deploy_status_code': 0, 'deploy_stdout': 'done'},
        'key': KEY}]
    assert sink.applied == [41]
    assert (f'Stored signal 41 of deployment {DEPLOYMENT} (action '
            'revision 3) from object c/o') in caplog.text


def test_the_same_key_again_is_not_stored_or_applied(inbox, sink, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    body = b'{"deploy_status_code": 0}'
    assert sink.receive(DEPLOYMENT, 3, KEY, body=body) is True
    assert sink.receive(DEPLOYMENT, 3, KEY, body=body) is False
    assert len(inbox.calls) == 2
    assert sink.applied == [41]
    assert (f'Signal {KEY} of deployment {DEPLOYMENT} was stored before; '
            'not stored again') in caplog.text


def test_a_body_over_the_limit_is_stored_as_the_stand_in(inbox, sink,
                                                         set_conf):
    set_conf('max_signal_size', 1024, group='agent')
    body = json.dumps({'deploy_stdout': 'x' * 2000}).encode()
    assert sink.receive(DEPLOYMENT, 3, KEY, body=body) is True
    payload = inbox.calls[0]['payload']
    reason = states.oversized_reason(payload)
    assert reason is not None
    assert f'{len(body)} bytes' in reason and '1024 bytes' in reason
    assert payload == states.oversized_signal(len(body), True, 1024)
    assert sink.applied == [41]


def test_a_body_at_the_limit_is_kept(inbox, sink, set_conf):
    set_conf('max_signal_size', 1024, group='agent')
    body = json.dumps({'deploy_stdout': 'x' * 1003}).encode()
    assert len(body) == 1024
    assert sink.receive(DEPLOYMENT, 3, KEY, body=body) is True
    assert inbox.calls[0]['payload'] == {'deploy_stdout': 'x' * 1003}


def test_content_not_fetched_is_stored_as_the_stand_in(inbox, sink,
                                                       set_conf):
    """The transport saw the size only (over the limit, not fetched)."""
    set_conf('max_signal_size', 1024, group='agent')
    assert sink.receive(DEPLOYMENT, 3, KEY, body=None, size=5000) is True
    payload = inbox.calls[0]['payload']
    assert states.oversized_reason(payload) is not None
    assert payload == states.oversized_signal(5000, True, 1024)
    assert sink.applied == [41]


def test_a_body_that_is_not_json_is_refused(inbox, sink, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    assert sink.receive(DEPLOYMENT, 3, KEY, body=b'deploy_status_code=0',
                        where='object c/o') is False
    assert inbox.calls == []
    assert sink.applied == []
    warnings = [r.getMessage() for r in caplog.records
                if r.name == LOGGER and r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].startswith(
        f'Signal object c/o of deployment {DEPLOYMENT} cannot be used: ')
    assert 'not valid JSON' in warnings[0]


def test_what_was_changed_to_store_a_signal_is_logged(inbox, sink, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    assert sink.receive(DEPLOYMENT, 3, KEY,
                        body=b'{"deploy_status_code": NaN}') is True
    assert inbox.calls[0]['payload'] == {'deploy_status_code': None}
    assert (f'Signal {KEY} of deployment {DEPLOYMENT}: 1 NaN or infinite '
            'number(s) replaced by null') in caplog.text


def test_the_engines_sink_applies_what_it_stored(inbox, monkeypatch,
                                                 caplog):
    """In an engine, stored means applied now; a signal that cannot be
    applied now stays stored (for the sweep), with a warning."""
    caplog.set_level(logging.INFO, logger=signals.__name__)
    processed = []

    def process(inbox_id):
        processed.append(inbox_id)
        return RuntimeError('deployment locked') if inbox_id == 42 else \
            'COMPLETE'

    monkeypatch.setattr(signals, 'process', process)
    engine_sink = signals.EngineSink(swconfig_context.get_admin_context())
    assert engine_sink.receive(DEPLOYMENT, 3, KEY, body=b'{}') is True
    assert engine_sink.receive(DEPLOYMENT, 3, KEY + 'x', body=b'{}') is True
    assert processed == [41, 42]
    warnings = [r.getMessage() for r in caplog.records
                if r.name == signals.__name__
                and r.levelno == logging.WARNING]
    assert warnings == ['Signal 42 stored, not applied yet: deployment '
                        'locked']
