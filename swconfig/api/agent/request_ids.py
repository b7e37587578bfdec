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

"""The request id of the agent app's answers, as oslo.middleware's
``RequestId`` sets it, in plain WSGI: a speed trick of the agent path
(``benchmarks.hot_paths``, kinds ``poll_*`` and ``tenant``).

Same behaviour as oslo's: a valid ``X-Openstack-Request-Id`` from the
caller becomes the global request id (``openstack.global_request_id``), a
new id goes into ``openstack.request_id`` and, unless the answer has one
already, into its ``x-openstack-request-id`` header. Without webob and
with ids from ``new_request_id`` (no system call), it costs a tenth of
oslo's middleware, which would be a third of a tenant metadata poll. The
tenant API uses oslo's.
"""

from collections.abc import Iterator
import itertools
import operator
import os
import re
from typing import Any
import uuid

from oslo_middleware import request_id as oslo_request_id

ENV_REQUEST_ID = oslo_request_id.ENV_REQUEST_ID
GLOBAL_REQ_ID = oslo_request_id.GLOBAL_REQ_ID
HEADER = oslo_request_id.HTTP_RESP_HEADER_REQUEST_ID
_INBOUND = 'HTTP_' + oslo_request_id.INBOUND_HEADER.upper().replace('-', '_')
_ID_FORMAT = re.compile(oslo_request_id.ID_FORMAT)
_HEADER_LOWER = HEADER.lower()


def _prefix() -> str:
    """``req-`` and the first 24 characters of a random UUID: a new one
    in each process and each worker forked by ``os.fork``. uWSGI forks
    without Python's fork hooks: its workers get their own prefix because
    they load the application after the fork (``lazy-apps``, as the
    production recipe runs it)."""
    return f'req-{str(uuid.uuid4())[:24]}'


#: How many ids a process makes before its count starts again at 0: the
#: last 12 hex digits of a UUID, the first 9 of them the block's.
ID_COUNT = 1 << 48
_LOW_BITS = 12
_LOW = tuple(f'{low:03x}' for low in range(1 << _LOW_BITS))


def _ids(prefix: str, start: int = 0) -> Iterator[str]:
    """Ids ``prefix`` + the count in 12 hex digits, from ``start`` (a
    multiple of 4096 or not). Made by C iterators only, a block of 4096
    at a time (the block's 9 digits once, each id one concatenation), so
    ``next`` runs no Python code of its own: a thread switch cannot split
    it."""
    first, skip = divmod(start, 1 << _LOW_BITS)
    blocks = itertools.chain(
        range(first, ID_COUNT >> _LOW_BITS),
        itertools.chain.from_iterable(itertools.repeat(
            range(ID_COUNT >> _LOW_BITS))))
    heads = map(operator.attrgetter('__add__'),
                map(f'{prefix}{{:09x}}'.format, blocks))
    ids = itertools.chain.from_iterable(
        map(map, heads, itertools.repeat(_LOW)))
    for _ in range(skip):
        next(ids)
    return ids


def _start(start: int = 0) -> None:
    global _IDS, ID_HEADERS
    _IDS = _ids(_prefix(), start)
    ID_HEADERS = zip(itertools.repeat(HEADER), _IDS)


_IDS: Iterator[str]
#: ``(HEADER, new id)`` pairs, ready to append to an answer's headers,
#: drawn from the same ids as ``new_request_id``. Replaced in a forked
#: child: read it from this module each time.
ID_HEADERS: Iterator[tuple[str, str]]
_start()
os.register_at_fork(after_in_child=_start)


def new_request_id() -> str:
    """A new request id in oslo's form (``req-`` + a UUID)."""
    return next(_IDS)


class RequestId:
    """oslo.middleware's ``RequestId``, without webob."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Any) -> Any:
        inbound = environ.get(_INBOUND)
        if inbound and _ID_FORMAT.match(inbound):
            environ[GLOBAL_REQ_ID] = inbound
        # new_request_id(), without its call
        value = environ[ENV_REQUEST_ID] = next(_IDS)

        def with_id(status: str, headers: list, exc_info: Any = None
                    ) -> Any:
            for name, _ in headers:  # a loop: a generator costs more
                if name.lower() == _HEADER_LOWER:
                    break
            else:
                headers = [*headers, (HEADER, value)]
            return start_response(status, headers, exc_info)

        return self.app(environ, with_id)
