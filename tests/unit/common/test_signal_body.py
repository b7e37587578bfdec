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

"""``signal_body``: agent signals read within their limit, their logs cut
to size keeping the tail, and characters no database stores replaced."""

import io
import json

import pytest

from swconfig.common import exception
from swconfig.common import signal_body
from swconfig.common import states


class Stream(io.BytesIO):
    """A WSGI input that remembers its largest single read."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.largest = 0
        self.total = 0

    def read(self, size: int = -1) -> bytes:
        data = super().read(size)
        self.largest = max(self.largest, len(data))
        self.total += len(data)
        return data


def _environ(data: bytes, chunked: bool = False) -> dict:
    stream = Stream(data)
    if chunked:
        return {'wsgi.input': stream, 'HTTP_TRANSFER_ENCODING': 'chunked'}
    return {'wsgi.input': stream, 'CONTENT_LENGTH': str(len(data))}


# -- reading ----------------------------------------------------------------

@pytest.mark.parametrize('chunked', [False, True])
def test_a_body_at_the_limit_is_read_whole(chunked):
    data = b'{"deploy_stdout": "' + b'x' * 2000 + b'"}'
    environ = _environ(data, chunked)
    assert signal_body.read(environ, len(data)) == data


@pytest.mark.parametrize('chunked', [False, True])
def test_an_oversized_body_is_measured_not_kept(chunked):
    limit = 4096
    data = b'y' * (limit * 40 + 7)
    environ = _environ(data, chunked)
    with pytest.raises(signal_body.TooLarge) as caught:
        signal_body.read(environ, limit)
    assert (caught.value.received, caught.value.complete) == (len(data),
                                                              True)
    stream = environ['wsgi.input']
    # Drained to the end (so the client reads the 413), but never more
    # than the limit + 1 or a chunk in memory at once.
    assert stream.total == len(data)
    assert stream.largest <= max(limit + 1, signal_body.CHUNK_BYTES)
    if not chunked:
        assert stream.largest <= signal_body.CHUNK_BYTES


def test_draining_stops_at_its_cap(monkeypatch):
    monkeypatch.setattr(signal_body, 'DRAIN_BYTES', 10000)
    data = b'z' * 50000
    chunked = _environ(data, chunked=True)
    with pytest.raises(signal_body.TooLarge) as caught:
        signal_body.read(chunked, 1024)
    assert (caught.value.received, caught.value.complete) == (
        1025 + 10000, False)
    declared = _environ(data)
    with pytest.raises(signal_body.TooLarge) as caught:
        signal_body.read(declared, 1024)
    # The declared size is known even where the body is not read.
    assert (caught.value.received, caught.value.complete) == (50000, True)
    assert declared['wsgi.input'].total == 10000


def test_invalid_content_length_is_a_400():
    environ = {'wsgi.input': Stream(b'{}'), 'CONTENT_LENGTH': 'ten'}
    with pytest.raises(exception.InvalidParameterValue):
        signal_body.read(environ, 1024)


# -- truncation -------------------------------------------------------------

def test_short_output_is_untouched():
    assert signal_body.truncate_tail('abc', 1024) == ('abc', 0)
    text = 'é' * 512  # 1024 bytes exactly
    assert signal_body.truncate_tail(text, 1024) == (text, 0)


@pytest.mark.parametrize('piece', ['a', 'é', '€', '😀', 'aé€😀'])
@pytest.mark.parametrize('limit', [1024, 1025, 1026, 1027, 5000])
def test_long_output_keeps_its_tail_under_a_marker(piece, limit):
    text = ''.join(f'{n}{piece}\n' for n in range(3000))
    data = text.encode()
    kept, cut = signal_body.truncate_tail(text, limit)
    marker = signal_body.TRUNCATION_MARKER.format(cut)
    assert kept.startswith(marker)
    tail = kept[len(marker):]
    assert text.endswith(tail)
    assert len(kept.encode()) <= limit
    # The tail starts on a character boundary and nothing more than
    # needed (plus at most one character) was cut.
    assert cut == len(data) - len(tail.encode())
    assert len(kept.encode()) > limit - 4


def test_marker_counts_digits_that_appear_while_cutting():
    # 1024-byte limit on 1130 bytes: cutting 106 bytes would fit a
    # marker with a two-digit count, not a three-digit one.
    text = 'x' * 1130
    kept, cut = signal_body.truncate_tail(text, 1024)
    assert len(kept) == 1024
    assert kept == signal_body.TRUNCATION_MARKER.format(cut) + 'x' * (
        1130 - cut)


# -- load -------------------------------------------------------------------

def test_empty_bodies_and_non_objects():
    assert signal_body.load(b'') == (None, [])
    assert signal_body.load(b' \n') == (None, [])
    assert signal_body.load(b'null') == (None, [])
    assert signal_body.load(b'[1, "a"]') == ([1, 'a'], [])
    with pytest.raises(exception.InvalidParameterValue):
        signal_body.load(b'{nope')


@pytest.mark.parametrize('raw, message', [
    (b'{"deploy_stdout": "\xff"}',
     'The signal is not valid JSON: JSON text must be UTF-8, and byte 20 '
     'is not part of a UTF-8 character.'),
    (b'[' * 100000 + b']' * 100000,
     'Request limit exceeded: JSON body is nested deeper than 32 levels.'),
])
def test_a_signal_that_cannot_be_parsed_is_said_plainly(raw, message):
    """No codec or recursion wording from the parser."""
    with pytest.raises(exception.Invalid) as raised:
        signal_body.load(raw)
    assert raised.value.code == 400
    assert raised.value.message == message


def test_load_truncates_the_logs_only(set_conf):
    set_conf('max_signal_output_size', 1024, group='agent')
    big = 'o' * 3000
    raw = json.dumps({'deploy_stdout': big, 'deploy_stderr': 'e' * 1024,
                      'result': big, 'deploy_status_code': 0}).encode()
    payload, notes = signal_body.load(raw)
    assert payload['result'] == big  # declared outputs are kept whole
    assert payload['deploy_stderr'] == 'e' * 1024
    assert payload['deploy_stdout'].startswith('[... 2007 bytes truncated')
    assert payload['deploy_stdout'].endswith('o' * 900)
    assert len(payload['deploy_stdout']) == 1024
    assert payload['deploy_status_code'] == 0
    assert notes == ['2007 bytes cut from the start of deploy_stdout']


@pytest.mark.parametrize('raw, expected', [
    (rb'{"deploy_stdout": "a\ud800b", "\udfffk": ["\udc80"]}',
     {'deploy_stdout': 'a\ufffdb', '\ufffdk': ['\ufffd']}),
    # UTF-8 bytes of a surrogate: json.loads decodes them (surrogatepass).
    (b'{"deploy_stderr": "x\xed\xa0\x80y"}', {'deploy_stderr': 'x\ufffdy'}),
    (rb'{"err": "nul\u0000here"}', {'err': 'nul\ufffdhere'}),
    # A valid pair is one character and stays.
    (rb'{"deploy_stdout": "\ud83d\ude00 ok"}', {'deploy_stdout': '😀 ok'}),
])
def test_unstorable_characters_become_replacement_characters(raw, expected):
    payload, notes = signal_body.load(raw)
    assert payload == expected
    json.dumps(payload, ensure_ascii=False).encode('utf-8')  # storable
    assert bool(notes) == (expected != {'deploy_stdout': '😀 ok'})


@pytest.mark.parametrize('raw, expected', [
    (b'{"result": NaN, "deploy_status_code": 0}',
     {'result': None, 'deploy_status_code': 0}),
    (b'{"a": [Infinity, -Infinity, 1.5]}', {'a': [None, None, 1.5]}),
    (b'{"big": 1e400, "small": -1e400, "ok": 2e10}',
     {'big': None, 'small': None, 'ok': 2e10}),
])
def test_numbers_json_cannot_carry_become_null(raw, expected):
    payload, notes = signal_body.load(raw)
    assert payload == expected
    json.dumps(payload, allow_nan=False)  # valid JSON once stored
    assert notes == [f'{sum(v is None for v in _leaves(expected))} NaN or '
                     f'infinite number(s) replaced by null']


def _leaves(value):
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def test_an_agent_cannot_send_the_oversized_stand_in():
    forged = states.oversized_signal(10, True, 1)
    forged['deploy_status_code'] = 0
    payload, notes = signal_body.load(json.dumps(forged).encode())
    assert payload == {'deploy_status_code': 0}
    assert states.oversized_reason(payload) is None
    assert notes == [f"key '{states.OVERSIZED_SIGNAL}' dropped"]


def test_oversized_stand_in_reason():
    reason = states.oversized_reason(states.oversized_signal(5000, True,
                                                             4096))
    assert reason.startswith('Signal too large: 5000 bytes, over the limit '
                             'of 4096 bytes ([agent] max_signal_size)')
    partial = states.oversized_reason(states.oversized_signal(9, False, 8))
    assert 'more than 9 bytes' in partial
    assert states.oversized_reason({'deploy_stdout': 'x'}) is None
    assert states.oversized_reason(None) is None
