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

"""An agent's poll of the URL it polled before, answered in one frame.

Each agent polls its one signed URL every 30 seconds, so nearly every
request the service gets is a URL it has answered before. The first poll
of a URL goes the whole way (the dispatcher, ``AgentApp.poll``: the route, the
token's HMAC, the metadata cache, which keeps on the entry the query
string whose token it verified); once it is answered 200 or 304,
``AgentApp`` records the path with its server id (``Polls.record``).

``RepeatPolls``, the outermost WSGI app, answers a ``GET`` or ``HEAD`` of
a recorded path itself when nothing it relies on has changed:

* no read of the change log is due (``read_due_at``, a little before
  the freshness bound) and the metadata cache holds an entry for the
  server: a change of the server's document or token revision drops it,
  and its replacement is verified afresh;
* the query string is the one whose token was verified for that entry
  (the key ring is loaded once per process);
* an ``If-None-Match`` is absent or exactly the entry's ETag.

It then answers as ``AgentApp.poll`` would, with the same headers, the
poll time noted and a new request id. Anything else (a read of the
change log due, a dropped or unverified entry, another query string, a
weak or listed ETag, any other request) goes to the dispatcher unchanged.
The record holds no entry, so it keeps no document alive that the cache
let go. The one frame matters: a poll is a few thousand instructions of
Python, and under a threaded server every one of them is spent holding
the GIL that the server's other threads wait for (a speed trick of the
agent path: ``benchmarks.hot_paths``, kinds ``poll_*``).
"""

from typing import Any

from swconfig.api import response_body
from swconfig.api.agent import metadata_cache
from swconfig.api.agent import poll_times
from swconfig.api.agent import request_ids
from swconfig.api.middleware import fault
from swconfig.common import lookup_cache

repeat_answer = metadata_cache.repeat_answer


class Polls(lookup_cache.LookupCache):
    """Recorded poll paths and their server ids, at most ``limit`` (the
    metadata cache's size: one URL per server, none without a cache); all
    are forgotten when it is reached, and recorded again as polled."""

    def record(self, path: str, server_id: str) -> None:
        """A poll of ``path`` was answered after its token was verified."""
        self.keep(path, server_id)


class RepeatPolls:
    """The outermost WSGI app: repeat polls here, the rest to ``app``."""

    def __init__(self, app: Any, polls: Polls,
                 cache: metadata_cache.MetadataCache) -> None:
        self.app = app
        self.polls = polls
        self.cache = cache
        if cache.clock is not poll_times.CLOCK:
            # One clock read serves the freshness check and the note.
            raise ValueError('the metadata cache must keep time on '
                             'poll_times.CLOCK')
        self.noted = poll_times.noted()

    def __call__(self, environ: dict, start_response: Any) -> Any:
        server_id = self.polls.get(environ.get('PATH_INFO'))
        if server_id is not None:
            try:
                cache = self.cache
                now = cache.clock()
                entries = cache.entries
                entry = (entries.get(server_id) if now < cache.read_due_at
                         else None)
                # A listed or weak ETag goes to the dispatcher, which parses
                # it; so does an entry not verified (a request may lack
                # the query).
                answer = repeat_answer(
                    entry, environ.get('QUERY_STRING'),
                    environ['REQUEST_METHOD'],
                    environ.get('HTTP_IF_NONE_MATCH')
                ) if entry is not None else None
                if answer is not None:
                    status, headers, body = answer
                    try:
                        entries.move_to_end(server_id)
                    except KeyError:
                        pass  # dropped meanwhile: answered from entry
                    self.noted[server_id] = now  # poll_times.note's
                    # The headers are the entry's: extended, not changed.
                    start_response(status, [
                        *headers, next(request_ids.ID_HEADERS)])
                    return body
            except Exception as exc:
                return fault.render(exc, environ, start_response)
        return response_body.closable(self.app(environ, start_response))
