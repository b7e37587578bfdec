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

"""A wait's calls while the service is away (``waiting.Reconnecting``),
and the exit status table (``exit_codes``)."""

import http.client

import pytest

from swconfig.cli import exit_codes
from swconfig.cli import waiting
from swconfig.client import rest as api_client

AWAY = api_client.Unreachable('http://127.0.0.1:1/v1/p', 'connection refused')


class Flaky:
    """Fails with each of ``errors`` in turn, then answers."""

    def __init__(self, *errors):
        self.errors = list(errors)
        self.calls = 0

    def __call__(self, deployment_id, wait=None):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return {'id': deployment_id, 'wait': wait}


def _calls(said, retry_for=30):
    return waiting.Reconnecting(said.append, retry_for,
                                'swconfig deployment wait d-1')


def test_an_outage_is_said_once_and_the_call_goes_on(monkeypatch):
    pauses = []
    monkeypatch.setattr(waiting.time, 'sleep', pauses.append)
    said = []
    restarting = api_client.SwconfigError('Service Unavailable (HTTP 503)',
                                          503)
    call = Flaky(AWAY, AWAY, restarting, AWAY)
    assert _calls(said).call(call, 'd-1', wait=30) == {'id': 'd-1',
                                                       'wait': 30}
    assert call.calls == 5
    assert said == [f'{AWAY} The action goes on; trying again for up to '
                    f'30 s.', 'swconfig answers again; still waiting.']
    assert pauses == [0.5, 1.0, 2.0, 4.0]


def test_past_retry_for_it_gives_up_naming_the_command(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(waiting.time, 'monotonic', lambda: clock[0])
    monkeypatch.setattr(waiting.time, 'sleep',
                        lambda seconds: clock.__setitem__(0, clock[0] +
                                                          seconds))
    said = []
    with pytest.raises(api_client.SwconfigError) as info:
        _calls(said, retry_for=7).call(Flaky(*[AWAY] * 10), 'd-1')
    assert str(info.value) == (
        f'Gave up waiting after 7 s without an answer: {AWAY} The action '
        f'goes on: "swconfig deployment wait d-1" follows it again.')
    assert len(said) == 1


@pytest.mark.parametrize('status', [400, 404, 409, 500])
def test_a_refusal_is_not_retried(status):
    said = []
    refused = api_client.SwconfigError('No', status)
    call = Flaky(refused)
    with pytest.raises(api_client.SwconfigError) as info:
        _calls(said).call(call, 'd-1')
    assert info.value is refused and call.calls == 1 and said == []


@pytest.mark.parametrize('deployment, code', [
    ({'status': 'COMPLETE'}, exit_codes.COMPLETE),
    ({'status': 'FAILED', 'status_reason': 'Deploy failed'},
     exit_codes.FAILED),
    ({'status': 'FAILED', 'status_reason': 'Deployment cancelled.'},
     exit_codes.CANCELLED),
])
def test_a_deployment_s_exit_status(deployment, code):
    assert exit_codes.of_deployment(deployment) == code


@pytest.mark.parametrize('status, code', [
    ('COMPLETE', 0), ('FAILED', 3), ('CANCELLED', 4)])
def test_a_rollout_s_exit_status(status, code):
    assert exit_codes.of_rollout({'status': status}) == code


def test_connection_problems_in_a_few_words():
    refused = ConnectionRefusedError(111, 'Connection refused')
    wrapped = RuntimeError('Max retries exceeded')
    wrapped.__context__ = refused
    assert api_client.connection_problem(wrapped) == 'connection refused'
    assert api_client.connection_problem(TimeoutError()) == 'timed out'
    assert api_client.connection_problem(RuntimeError('?')) == \
        'no connection'


def test_a_connection_closed_mid_request_is_said_so():
    closed = RuntimeError('Connection aborted')
    closed.__context__ = http.client.RemoteDisconnected(
        'Remote end closed connection without response')
    assert api_client.connection_problem(closed) == \
        'the connection was closed'
