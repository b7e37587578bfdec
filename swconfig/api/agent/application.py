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

"""The agent app: the URLs agents call, outside Keystone: signed URLs only.

``GET|HEAD /agent/servers/{server_id}/metadata?token=...`` serves the
server's pre-rendered document from the worker's memory
(``swconfig.api.agent.metadata_cache``: at most ``[api]
metadata_cache_freshness`` stale, read from the database on a miss), no
RPC, an ETag and an RFC 1123 Last-Modified (os-collect-config crashes on
other date formats), 304 for a matching If-None-Match.

``PUT|POST /agent/deployments/{id}/signal?revision=N&token=...`` stores
the signal durably, answers, and hands it to an engine in the background;
a lost hand-over is picked up by the engines' sweep. Signals have limits
of their own (``swconfig.common.signal_body``); one over ``[agent]
max_signal_size`` is answered 413 and stored as a stand-in that fails the
deployment, through the same inbox, so it is ordered and applied exactly
once like any other signal.

These are the hottest paths of the service, so the dispatcher hands them
straight to ``AgentApp`` (no webob, no middleware) and the database is
read through the DB layer's autocommit agent engine; an agent's poll of
the URL it polled before is answered in front of ``AgentApp``
(``swconfig.api.agent.repeat_polls``). The signed token is checked on
every poll (its HMAC once per server and token; a repeat poll compares
the query string whose token was verified). Every
error is answered with the API's standard error body.
"""

from collections.abc import Sequence
import json
from typing import Any
import urllib.parse

from oslo_log import log
from webob import etag as webob_etag

from swconfig.api import dispatch
from swconfig.api import response_body
from swconfig.api.agent import metadata_cache
from swconfig.api.agent import poll_times
from swconfig.api.agent import repeat_polls
from swconfig.api.agent import request_ids
from swconfig.api.agent import signal_notifier
from swconfig.api.middleware import fault
from swconfig.api.openapi import spec
from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common import signal_body
from swconfig.common import signing
from swconfig.common import states
from swconfig.common import urls
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import rpcapi

LOG = log.getLogger(__name__)

REQUEST_ID_HEADER = request_ids.HEADER
ENV_REQUEST_ID = request_ids.ENV_REQUEST_ID
#: An agent's answer: status line, headers (extended, never changed: a
#: cached entry's), body.
Answer = tuple[str, Sequence[tuple[str, str]], response_body.Body]

TAG = 'agent'
_TOKEN = spec.query('token', {'type': 'string'},
                    'The signature of the signed URL.', required=True)
_REVISION = spec.query('revision', {'type': 'integer'},
                       'The deployment action the URL belongs to.',
                       required=True)
_DOCUMENT = {'description': 'The server\'s document.',
             'headers': {'ETag': {'schema': {'type': 'string'}},
                         'Last-Modified': {'schema': {'type': 'string'}}},
             'content': {spec.JSON: {'schema': {
                 '$ref': '#/components/schemas/AgentDocument'}}}}
_NOT_MODIFIED = {'description': 'Unchanged (If-None-Match).'}
_SIGNAL_ANSWERS = {**spec.ok('SignalAccepted',
                             'Stored; applied asynchronously.'),
                   **spec.errors(400, 403, 404, 413, 503)}
_ANY_JSON = {'required': False, 'content': {spec.JSON: {'schema': {
    'description': 'Any JSON, or no body at all.'}}}}


class AgentApp:
    """The agent app: the WSGI application mounted at ``/agent/``
    (``swconfig.api.dispatch``), serving the ``AGENT`` routes of
    ``table``."""

    def __init__(self, engine_api: rpcapi.EngineAPI,
                 table: dispatch.RouteTable) -> None:
        self.table = table
        # enginefacade keeps its transaction state per thread, so one
        # context can serve every request thread.
        self.context = swconfig_context.get_admin_context()
        self.notifier = signal_notifier.SignalNotifier(engine_api,
                                                       self.context)
        self.cache = metadata_cache.MetadataCache(
            CONF.api.metadata_cache_size, CONF.api.metadata_cache_freshness,
            clock=poll_times.CLOCK, warm=CONF.api.metadata_cache_warm)
        #: Polls answered here, for ``repeat_polls.RepeatPolls`` to answer
        #: again while nothing they relied on changed.
        self.polls = repeat_polls.Polls(CONF.api.metadata_cache_size)

    def project_request_done(self) -> None:
        """A project request of this worker ended: the engine committed
        what it changed before answering, so this worker's next poll
        reads the change log first (a client reads its own writes)."""
        self.cache.expire()

    def __call__(self, environ: dict, start_response: Any) -> Any:
        """A plain poll path is recognised with a few string tests
        (``poll_server_id``) before the table is asked; any error answers
        the standard error body at once (agents have no token)."""
        path = environ.get('PATH_INFO', '')
        method = environ['REQUEST_METHOD']
        server_id = poll_server_id(method, path)
        if server_id is not None:
            return self.poll(server_id, environ, start_response)
        try:
            match = self.table.match(method, path)
            if match.route.app != dispatch.AGENT:
                raise exception.RouteNotFound()
            answer = match.handler(self, environ, **match.args)
        except Exception as exc:
            return fault.render(exc, environ, start_response)
        return _respond(answer, environ, start_response)

    def poll(self, server_id: str, environ: dict,
             start_response: Any) -> Any:
        """``metadata`` for a plain poll path (``poll_server_id``),
        recording it for ``RepeatPolls``."""
        try:
            answer = self.metadata(environ, server_id)
        except Exception as exc:
            return fault.render(exc, environ, start_response)
        self.polls.record(environ['PATH_INFO'], server_id)
        return _respond(answer, environ, start_response)

    @spec.operation('getAgentMetadata', 'Poll a server\'s metadata.',
                    tag=TAG, method='GET', no_token=True,
                    parameters=(_TOKEN,),
                    responses={'200': _DOCUMENT, '304': _NOT_MODIFIED,
                               **spec.errors(403, 404)})
    @spec.operation('headAgentMetadata', 'Check for changes cheaply.',
                    tag=TAG, method='HEAD', no_token=True,
                    parameters=(_TOKEN,),
                    responses={'200': {'description': 'ETag and '
                                                      'Last-Modified only.'},
                               '304': _NOT_MODIFIED,
                               '403': {'description': 'Bad token.'},
                               '404': {'description': 'Unknown server.'}})
    def metadata(self, environ: dict, server_id: str) -> Answer:
        cache = self.cache
        entry = cache.get(server_id) or cache.load(server_id)
        if entry is None:
            raise exception.ServerNotFound(server_id=server_id)
        # The query string holds the token: one verified before is
        # recognised without parsing it.
        query = environ.get('QUERY_STRING', '')
        ring = signing.keyring()
        if (metadata_cache.verified_query(entry) != query
                or ring is not cache.ring):
            revision = metadata_cache.token_revision(entry)
            if not signing.verify_metadata(_query_value(environ, 'token'),
                                           server_id, revision):
                LOG.info('Metadata poll for server %s refused: invalid '
                         'token', server_id)
                raise exception.Forbidden('Invalid metadata token.')
            entry = cache.verified(server_id, entry, query, ring)
        poll_times.note(server_id)
        header = environ.get('HTTP_IF_NONE_MATCH')
        etag = metadata_cache.etag(entry)
        # os-collect-config sends back the ETag it got, as is.
        not_modified = bool(header and etag and (
            header == metadata_cache.etag_header(entry)
            or etag in webob_etag.ETagMatcher.parse(header, strong=False)))
        return metadata_cache.answer(entry, environ['REQUEST_METHOD'],
                                     not_modified)

    @spec.operation('putAgentSignal', 'Signal a deployment action '
                    '(heat-config-notify retries PUT on 5xx).', tag=TAG,
                    method='PUT', no_token=True,
                    parameters=(_REVISION, _TOKEN), body=_ANY_JSON,
                    responses=_SIGNAL_ANSWERS)
    @spec.operation('postAgentSignal', 'Signal a deployment action.',
                    tag=TAG, method='POST', no_token=True,
                    parameters=(_REVISION, _TOKEN), body=_ANY_JSON,
                    responses=_SIGNAL_ANSWERS)
    def signal(self, environ: dict, deployment_id: str) -> Answer:
        target = db_api.agent_signal_target(deployment_id)
        if target is None:
            raise exception.DeploymentNotFound(deployment_id=deployment_id)
        try:
            revision = int(_query_value(environ, 'revision') or '')
        except ValueError:
            revision = None
        if revision is None or not signing.verify_signal(
                _query_value(environ, 'token'), deployment_id, revision):
            LOG.info('Signal for deployment %s refused: invalid signal '
                     'token', deployment_id)
            raise exception.SignalRefused(reason='invalid signal token')
        limit = CONF.agent.max_signal_size
        try:
            payload, notes = signal_body.load(
                signal_body.read(environ, limit))
        except signal_body.TooLarge as exc:
            payload = states.oversized_signal(exc.received, exc.complete,
                                              limit)
            notes = []
        for note in notes:
            LOG.info('Signal for deployment %s: %s', deployment_id, note)
        inbox_id = db_api.agent_signal_insert(deployment_id, revision,
                                              payload,
                                              fault.request_id(environ))
        self.notifier.notify(inbox_id)
        refusal = states.signal_refusal(revision, target['action_revision'],
                                        target['status'],
                                        target['status_reason'])
        oversized = states.oversized_reason(payload)
        if oversized is not None:
            outcome = ('the deployment fails' if refusal is None else
                       f'{refusal.reason}; recorded, not applied')
            LOG.warning('Signal %s for deployment %s: %s; %s', inbox_id,
                        deployment_id, oversized, outcome)
            raise exception.SignalTooLarge(reason=f'{oversized}; {outcome}')
        if refusal is not None:
            LOG.info('Signal %s for deployment %s stored, not applied: %s',
                     inbox_id, deployment_id, refusal.reason)
            raise exception.SignalRefused(
                reason=f'{refusal.reason}; the signal was recorded, not '
                       f'applied')
        reply = json.dumps({'signal': inbox_id}).encode()
        return ('200 OK', [('Content-Type', 'application/json'),
                           ('Content-Length', str(len(reply)))],
                response_body.Body((reply,)))


def _respond(answer: Answer, environ: dict,
             start_response: Any) -> response_body.Body:
    """Send a handler's answer, with the request's id (the request id
    middleware's, when it ran: ``fault.request_id``)."""
    status, headers, content = answer
    request_id = environ.get(ENV_REQUEST_ID)
    if request_id is None:
        request_id = environ[ENV_REQUEST_ID] = (
            request_ids.new_request_id())
    # ``headers`` may be a cached entry's: extended, never changed.
    start_response(status, [*headers, (REQUEST_ID_HEADER, request_id)])
    return (response_body.EMPTY if environ['REQUEST_METHOD'] == 'HEAD'
            else content)


#: The agents' poll URL around its server id.
_POLL_PREFIX, _, _POLL_SUFFIX = urls.AGENT_METADATA.partition('{server_id}')
_POLL_METHODS = frozenset(('GET', 'HEAD'))
_POLL_START = len(_POLL_PREFIX)
_POLL_END = -len(_POLL_SUFFIX)


def poll_server_id(method: str, path: str) -> str | None:
    """The server id of an agent's poll (``GET|HEAD`` of
    ``urls.AGENT_METADATA`` in its plain form: ASCII, no trailing slash),
    or None to leave the request to the route table, which matches it the
    same way. A poll of a URL polled before does not get here
    (``swconfig.api.agent.repeat_polls``); the first one of each is
    recognised with a few string tests (``benchmarks.hot_paths``)."""
    if (method in _POLL_METHODS and path.startswith(_POLL_PREFIX)
            and path.endswith(_POLL_SUFFIX) and path.isascii()):
        server_id = path[_POLL_START:_POLL_END]
        if server_id and '/' not in server_id and '\x00' not in server_id:
            return server_id
    return None


def _query_value(environ: dict, name: str) -> str | None:
    """The last value of a query parameter, as ``parse_qsl`` with blank
    values kept would give it (and webob's ``GET.get``), without building
    the whole list: it runs for every poll (``benchmarks.hot_paths``,
    kinds ``poll_*``)."""
    query = environ.get('QUERY_STRING', '')
    start = len(name) + 1
    if (query[:start - 1] == name and query[start - 1:start] == '='
            and '&' not in query and '%' not in query and '+' not in query):
        return query[start:]  # an agent's URL: the parameter alone
    value = None
    for item in query.split('&'):
        key, _, found = item.partition('=')
        if key != name and ('%' in key or '+' in key):
            key = urllib.parse.unquote_plus(key)
        if key == name:
            value = found
    if value and ('%' in value or '+' in value):
        value = urllib.parse.unquote_plus(value)
    return value
