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

"""Agent signal bodies: read within ``[agent] max_signal_size`` and made
storable.

An agent cannot fix a signal the API refuses: heat-config-notify gives up
on a 4xx and retries a 5xx, and either way the deployment of a refused
signal waits for its timeout. So a signal is kept whenever it can be:

* ``deploy_stdout`` and ``deploy_stderr`` longer than ``[agent]
  max_signal_output_size`` keep their tail (where a failure shows) after
  a ``[... N bytes truncated ...]`` line;
* characters no database can store (lone UTF-16 surrogates, which
  ``json.loads`` accepts, and NUL, which PostgreSQL refuses in text)
  become U+FFFD;
* a body over the hard limit is never held in memory: the caller stores
  a stand-in (``states.oversized_signal``) so the deployment fails with
  a reason instead.

Small signals pay for none of this: each step starts with a check on the
raw body's length or bytes.
"""

import json
import math
import re
from typing import Any

from swconfig.common import exception
from swconfig.common import json_depth
from swconfig.common import json_errors
from swconfig.common import states
from swconfig.conf import CONF

#: The only values cut to size: the logs of the run.
OUTPUT_KEYS = ('deploy_stdout', 'deploy_stderr')
#: The first line of a truncated output; N is the number of bytes cut.
TRUNCATION_MARKER = '[... {} bytes truncated ...]\n'
#: How much of an oversized body is read and thrown away, so that the
#: client reads the 413 instead of a reset connection; a larger body is
#: cut off (the server closes the connection after a 413).
DRAIN_BYTES = 64 * 1024 * 1024
CHUNK_BYTES = 65536

_UNSTORABLE = re.compile('[\x00\ud800-\udfff]')
# Where an ASCII body can hide those characters: JSON escapes.
_ESCAPED_UNSTORABLE = re.compile(rb'\\u(?:[dD][89a-fA-F]|0000)')


class TooLarge(Exception):
    """The body is over the limit: ``received`` bytes were seen (all of
    them when ``complete``), none kept."""

    def __init__(self, received: int, complete: bool) -> None:
        super().__init__(received, complete)
        self.received = received
        self.complete = complete


def read(environ: dict, limit: int) -> bytes:
    """The request body, at most ``limit`` bytes of it in memory; raises
    ``TooLarge`` after reading past the limit only in small chunks."""
    stream = environ['wsgi.input']
    declared = environ.get('CONTENT_LENGTH')
    if declared:
        try:
            length = int(declared)
        except ValueError:
            raise exception.InvalidParameterValue(
                reason=f'Invalid Content-Length: {declared!r}.')
        if length > limit:
            _drain(stream, min(length, DRAIN_BYTES))
            raise TooLarge(length, True)
        return _read_upto(stream, length) if length > 0 else b''
    if 'chunked' not in environ.get('HTTP_TRANSFER_ENCODING', '').lower():
        return b''
    raw = _read_upto(stream, limit + 1)
    if len(raw) <= limit:
        return raw
    received = len(raw)
    del raw
    drained, complete = _drain(stream, DRAIN_BYTES)
    raise TooLarge(received + drained, complete)


def _read_upto(stream: Any, size: int) -> bytes:
    """``size`` bytes, fewer only at the end of the body (a WSGI server
    may return short reads)."""
    data = stream.read(size)
    if len(data) >= size or not data:
        return data
    parts = [data]
    missing = size - len(data)
    while missing > 0:
        more = stream.read(missing)
        if not more:
            break
        parts.append(more)
        missing -= len(more)
    return b''.join(parts)


def _drain(stream: Any, most: int) -> tuple[int, bool]:
    """Read and drop up to ``most`` bytes; how many, and whether the body
    ended (a client that hangs up ends it too)."""
    count = 0
    try:
        while count < most:
            chunk = stream.read(min(CHUNK_BYTES, most - count))
            if not chunk:
                return count, True
            count += len(chunk)
    except (OSError, ValueError):
        return count, False
    return count, False


def load(raw: bytes) -> tuple[Any, list[str]]:
    """The signal (any JSON, ``None`` for an empty body), storable and
    cut to size; and notes for the log on what was changed."""
    if not raw or raw.isspace():
        return None, []
    not_finite = [0]
    try:
        payload = json.loads(raw, parse_constant=_not_finite(not_finite),
                             parse_float=_finite_float(not_finite))
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise json_errors.unparsable(exc, 'The signal')
    json_depth.check_depth(payload)
    notes: list[str] = []
    if not_finite[0]:
        notes.append(f'{not_finite[0]} NaN or infinite number(s) replaced '
                     f'by null')
    if not raw.isascii() or _ESCAPED_UNSTORABLE.search(raw):
        replaced = [0]
        payload = _storable(payload, replaced)
        if replaced[0]:
            notes.append(f'{replaced[0]} lone surrogate or NUL '
                         f'character(s) replaced by U+FFFD')
    if type(payload) is not dict:
        return payload, notes
    if states.drop_forged_stand_in(payload):
        notes.append(f'key {states.OVERSIZED_SIGNAL!r} dropped')
    limit = CONF.agent.max_signal_output_size
    if len(raw) > limit:  # else no value can be longer (escapes only grow)
        for key in OUTPUT_KEYS:
            value = payload.get(key)
            if isinstance(value, str):
                payload[key], cut = truncate_tail(value, limit)
                if cut:
                    notes.append(f'{cut} bytes cut from the start of '
                                 f'{key}')
    return payload, notes


def _not_finite(count: list[int]) -> Any:
    """``NaN`` and ``Infinity`` (which ``json.loads`` accepts) become
    null: stored as they are, they would be served back as invalid JSON,
    and refusing them would leave the deployment waiting for its
    timeout."""
    def parse(_constant: str) -> None:
        count[0] += 1
    return parse


def _finite_float(count: list[int]) -> Any:
    """A float literal, or null when it overflows to infinity (1e400)."""
    def parse(text: str) -> float | None:
        value = float(text)
        if math.isinf(value):
            count[0] += 1
            return None
        return value
    return parse


def _storable(value: Any, replaced: list[int]) -> Any:
    if isinstance(value, str):
        text, count = _UNSTORABLE.subn('\ufffd', value)
        replaced[0] += count
        return text
    if isinstance(value, dict):
        return {_storable(key, replaced): _storable(item, replaced)
                for key, item in value.items()}
    if isinstance(value, list):
        return [_storable(item, replaced) for item in value]
    return value


def truncate_tail(text: str, limit: int) -> tuple[str, int]:
    """``text`` if its UTF-8 form fits in ``limit`` bytes, else its tail
    after ``TRUNCATION_MARKER``, the whole within ``limit`` bytes and cut
    at a character boundary; and the number of bytes cut."""
    if len(text) <= limit // 4:  # no character takes more than 4 bytes
        return text, 0
    data = text.encode('utf-8', 'replace')
    if len(data) <= limit:
        return text, 0
    start = len(data) - limit
    while True:
        marker = TRUNCATION_MARKER.format(start)
        start = max(start, len(data) - (limit - len(marker)))
        while start < len(data) and data[start] & 0xC0 == 0x80:
            start += 1  # a UTF-8 continuation byte: not a character start
        marker = TRUNCATION_MARKER.format(start)
        if len(marker) + len(data) - start <= limit:
            return marker + data[start:].decode('utf-8'), start
