"""The endpoints agents call, outside Keystone: signed URLs only.

``GET|HEAD /agent/servers/{server_id}/metadata?token=...`` serves the
server's pre-rendered document: one primary-key read, no RPC, ETag and an
RFC 1123 Last-Modified (os-collect-config crashes on other date formats),
304 for a matching If-None-Match.

``PUT|POST /agent/deployments/{id}/signal?revision=N&token=...`` stores the
signal durably, then hands it to an engine; a lost cast is picked up by the
engines' sweep. These paths bypass pecan: they are the hot paths.

``AgentFastPath`` (outermost in the WSGI chain) serves the successful
polls and signals, which are nearly all of the agents' requests, without
webob or middleware, reading through the DB layer's autocommit agent
engine. Whatever it does not fully handle (errors, unusual headers, other
methods) goes down the normal chain to ``AgentApp``, which decides it
exactly as before; the fast path answers only where both agree.
"""

import calendar
import collections
from email import utils as email_utils
from http import HTTPStatus
import io
import json
import os
import queue
import threading
import time
from typing import Any
import urllib.parse
import uuid

from oslo_log import log
import webob
from webob import etag as webob_etag

from swconfig.api import body
from swconfig.api.middleware import fault
from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common import signing
from swconfig.conf import CONF
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)

PREFIX = '/agent/'
METADATA_PREFIX = '/agent/servers/'
METADATA_SUFFIX = '/metadata'
SIGNAL_PREFIX = '/agent/deployments/'
SIGNAL_SUFFIX = '/signal'
EMPTY_DOCUMENT = b'{"deployments":[]}'


def http_date(value: Any) -> str:
    return email_utils.formatdate(calendar.timegm(value.timetuple()),
                                  usegmt=True)


def _decoded_id(raw: str) -> str | None:
    """An id from the WSGI path (bytes as latin-1), or None when no row
    can have it: not UTF-8, or holding a NUL (which PostgreSQL cannot
    even compare)."""
    try:
        value = raw.encode('latin-1').decode('utf-8')
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None
    return None if '\x00' in value else value


class AgentApp:
    """A small WSGI app; errors propagate to the FaultWrapper around it."""

    def __init__(self, engine_api: Any) -> None:
        self.engine_api = engine_api
        # enginefacade keeps its transaction state per thread, so one
        # context can serve every request thread.
        self.context = swconfig_context.get_admin_context()
        self.notifier = SignalNotifier(engine_api, self.context)

    def __call__(self, environ: dict, start_response: Any) -> Any:
        request = webob.Request(environ)
        path = environ.get('PATH_INFO', '')
        if path.startswith(METADATA_PREFIX) and path.endswith(
                METADATA_SUFFIX):
            raw_id = path[len(METADATA_PREFIX):-len(METADATA_SUFFIX)]
            server_id = _decoded_id(raw_id)
            if server_id is None:
                raise exception.ServerNotFound(
                    server_id=raw_id.replace('\x00', ''))
            response = self.metadata(request, server_id)
        elif path.startswith(SIGNAL_PREFIX) and path.endswith(SIGNAL_SUFFIX):
            raw_id = path[len(SIGNAL_PREFIX):-len(SIGNAL_SUFFIX)]
            deployment_id = _decoded_id(raw_id)
            if deployment_id is None:
                raise exception.DeploymentNotFound(
                    deployment_id=raw_id.replace('\x00', ''))
            response = self.signal(request, deployment_id)
        else:
            raise exception.NotFound()
        return response(environ, start_response)

    def metadata(self, request: webob.Request,
                 server_id: str) -> webob.Response:
        if request.method not in ('GET', 'HEAD'):
            return _not_allowed('GET, HEAD')
        row = db_api.server_document_get(
            self.context, server_id, with_document=request.method == 'GET')
        if row is None:
            raise exception.ServerNotFound(server_id=server_id)
        if not signing.verify_metadata(request.GET.get('token'), server_id,
                                       row['token_revision']):
            raise exception.Forbidden('Invalid metadata token.')
        response = webob.Response(content_type='application/json',
                                  charset=None)
        response.headers['ETag'] = f'"{row["etag"]}"'
        response.headers['Last-Modified'] = http_date(row['updated_at'])
        response.headers['Cache-Control'] = 'no-cache'
        if row['etag'] and row['etag'] in request.if_none_match:
            response.status = HTTPStatus.NOT_MODIFIED
            response.content_type = None
            return response
        if request.method == 'GET':
            response.body = (row['document'] or '').encode() or EMPTY_DOCUMENT
        return response

    def signal(self, request: webob.Request,
               deployment_id: str) -> webob.Response:
        if request.method not in ('PUT', 'POST'):
            return _not_allowed('PUT, POST')
        target = db_api.software_deployment_signal_target(self.context,
                                                          deployment_id)
        if target is None:
            raise exception.DeploymentNotFound(deployment_id=deployment_id)
        try:
            revision = int(request.GET.get('revision', ''))
        except ValueError:
            raise exception.SignalRefused(reason='invalid signal token')
        if not signing.verify_signal(request.GET.get('token'), deployment_id,
                                     revision):
            raise exception.SignalRefused(reason='invalid signal token')
        payload = _signal_payload(request)
        inbox_id = db_api.signal_inbox_add(self.context, deployment_id,
                                           revision, payload)
        self.notifier.notify(inbox_id)
        refusal = _refusal(target, revision)
        if refusal is not None:
            raise refusal
        return webob.Response(status=HTTPStatus.OK,
                              content_type='application/json',
                              charset=None,
                              body=json.dumps({'signal': inbox_id}).encode())

    # -- the fast path ---------------------------------------------------

    def fast(self, environ: dict) -> tuple | None:
        """Serve a poll or signal that will succeed, as (status, headers,
        body); None, having changed nothing, for anything else."""
        path = environ.get('PATH_INFO', '')
        method = environ.get('REQUEST_METHOD')
        if path.endswith(METADATA_SUFFIX) and path.startswith(
                METADATA_PREFIX) and method in ('GET', 'HEAD'):
            server_id = _decoded_id(
                path[len(METADATA_PREFIX):-len(METADATA_SUFFIX)])
            if server_id:
                return self._fast_metadata(environ, method, server_id)
        elif path.endswith(SIGNAL_SUFFIX) and path.startswith(
                SIGNAL_PREFIX) and method in ('PUT', 'POST'):
            deployment_id = _decoded_id(
                path[len(SIGNAL_PREFIX):-len(SIGNAL_SUFFIX)])
            if deployment_id:
                return self._fast_signal(environ, deployment_id)
        return None

    def _fast_metadata(self, environ: dict, method: str,
                       server_id: str) -> tuple | None:
        header = environ.get('HTTP_IF_NONE_MATCH')
        matcher = (webob_etag.ETagMatcher.parse(header, strong=False)
                   if header else webob_etag.NoETag)
        with_document = method == 'GET'
        single = (matcher.etags[0] if with_document and header and
                  isinstance(matcher, webob_etag.ETagMatcher) and
                  len(matcher.etags) == 1 else None)
        row = db_api.agent_server_document(server_id, with_document, single)
        if row is None or not signing.verify_metadata(
                _query_value(environ, 'token'), server_id,
                row['token_revision']):
            return None  # 404 or 403: AgentApp answers
        etag = row['etag']
        validators = [('ETag', f'"{etag}"'),
                      ('Last-Modified', _last_modified(row['updated_at'])),
                      ('Cache-Control', 'no-cache')]
        if etag and etag in matcher:
            return ('304 Not Modified',
                    [('Content-Length', '0'), *validators], b'')
        if not with_document:
            return ('200 OK', [('Content-Type', 'application/json'),
                               ('Content-Length', '0'), *validators], b'')
        if single is not None and row['document'] is None:
            # NULL: no document, or the database's collation matched the
            # ETag where Python does not: AgentApp decides.
            return None
        document = (row['document'] or '').encode() or EMPTY_DOCUMENT
        return ('200 OK', [('Content-Type', 'application/json'),
                           *validators,
                           ('Content-Length', str(len(document)))],
                document)

    def _fast_signal(self, environ: dict,
                     deployment_id: str) -> tuple | None:
        try:
            revision = int(_query_value(environ, 'revision') or '')
        except ValueError:
            return None
        if not signing.verify_signal(_query_value(environ, 'token'),
                                     deployment_id, revision):
            return None
        raw = _read_body(environ)
        if raw is None:
            return None
        try:
            payload = json.loads(raw) if raw.strip() else None
            body.check_depth(payload)
        except (ValueError, UnicodeDecodeError, RecursionError,
                exception.SwconfigException):
            return None
        target, inbox_id = db_api.agent_signal_store(deployment_id,
                                                     revision, payload)
        if target is None:
            return None  # no such deployment: 404, nothing stored
        self.notifier.notify(inbox_id)
        refusal = _refusal(target, revision)
        if refusal is not None:
            error = fault.error_response(refusal.code, refusal.type_name,
                                         refusal.message)
            return error.status, error.headerlist, error.body
        reply = json.dumps({'signal': inbox_id}).encode()
        return ('200 OK', [('Content-Type', 'application/json'),
                           ('Content-Length', str(len(reply)))], reply)


def _refusal(target: dict, revision: int) -> Exception | None:
    """Why a stored signal will not be applied, for the agent's answer."""
    if revision != target['action_revision']:
        return exception.SignalRefused(
            reason='this URL belongs to an earlier action of the '
                   'deployment; the signal was recorded, not applied')
    if target['status'] != 'IN_PROGRESS':
        return exception.SignalRefused(
            reason='the action already finished; the signal was '
                   'recorded, not applied')
    return None


def _query_value(environ: dict, name: str) -> str | None:
    """The last value of a query parameter, as webob's ``GET.get``."""
    value = None
    for key, item in urllib.parse.parse_qsl(
            environ.get('QUERY_STRING', ''), keep_blank_values=True):
        if key == name:
            value = item
    return value


def _read_body(environ: dict) -> bytes | None:
    """The request body if its length is declared and allowed; it stays
    readable for AgentApp in case the fast path hands the request on."""
    try:
        length = int(environ.get('CONTENT_LENGTH') or '')
    except ValueError:
        return None
    if length < 0 or length > CONF.api.max_json_body_size or environ.get(
            'HTTP_TRANSFER_ENCODING'):
        return None
    raw = environ['wsgi.input'].read(length) if length else b''
    environ['wsgi.input'] = io.BytesIO(raw)
    environ['CONTENT_LENGTH'] = str(len(raw))
    return raw


_DATES: collections.OrderedDict = collections.OrderedDict()
_DATES_LOCK = threading.Lock()


def _last_modified(value: Any) -> str:
    """``http_date``, remembered: the same few thousand timestamps are
    formatted over and over by the polls."""
    text = _DATES.get(value)
    if text is None:
        text = http_date(value)
        with _DATES_LOCK:
            _DATES[value] = text
            if len(_DATES) > 4096:
                _DATES.popitem(last=False)
    return text


class SignalNotifier:
    """Casts ``process_signal`` from a background thread, so an agent's
    answer never waits for the message bus (the signal is already stored;
    a cast that is dropped, e.g. with a full queue or a dead broker, is
    applied by the engines' sweep).

    Signals that arrive within ``LINGER`` seconds of each other share one
    cast, naming the newest: an engine applies the signal it is cast and
    every pending one stored before it. Every signal is committed before
    it is queued, so the cast that covers it is always sent after it is
    visible.
    """

    LINGER = 0.02

    def __init__(self, engine_api: Any, context: Any,
                 max_pending: int = 10000) -> None:
        self.engine_api = engine_api
        self.context = context
        self.max_pending = max_pending
        self._queue: queue.Queue | None = None
        self._pid: int | None = None
        self._lock = threading.Lock()

    def _start(self) -> queue.Queue:
        # One thread per process, started after a WSGI server's fork.
        with self._lock:
            if self._pid != os.getpid() or self._queue is None:
                self._queue = queue.Queue(self.max_pending)
                self._pid = os.getpid()
                threading.Thread(target=self._run, args=(self._queue,),
                                 name='signal-notifier', daemon=True).start()
            return self._queue

    def notify(self, inbox_id: int) -> None:
        """Queue the cast; never raises (the signal is stored already)."""
        try:
            pending = self._queue
            if pending is None or self._pid != os.getpid():
                pending = self._start()
            pending.put_nowait(inbox_id)
        except queue.Full:
            LOG.warning('Stored signal %s not handed to an engine now '
                        '(%d casts pending); the signal sweep will apply '
                        'it', inbox_id, self.max_pending)
        except Exception:
            LOG.exception('Stored signal %s not handed to an engine; the '
                          'signal sweep will apply it', inbox_id)

    def _run(self, pending: queue.Queue) -> None:
        while True:
            newest = pending.get()
            deadline = time.monotonic() + self.LINGER
            while True:
                try:
                    newest = max(newest, pending.get(
                        timeout=max(0.0, deadline - time.monotonic())))
                except queue.Empty:
                    break
            try:
                self.engine_api.process_signal(self.context, newest)
            except Exception:  # process_signal logs; keep the thread
                LOG.exception('Could not hand signal %s to an engine',
                              newest)


def _signal_payload(request: webob.Request) -> Any:
    """The signal body: any JSON (``null`` and ``{}`` included), or
    nothing at all."""
    raw = body.read_raw(request)
    if not raw.strip():
        return None
    try:
        payload = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise exception.InvalidParameterValue(
            reason=f'The signal is not valid JSON: {exc}')
    body.check_depth(payload)
    return payload


def _not_allowed(allowed: str) -> webob.Response:
    return fault.error_response(HTTPStatus.METHOD_NOT_ALLOWED,
                                'HTTPMethodNotAllowed',
                                'Method is not allowed for this URL.',
                                headers=[('Allow', allowed)])


class AgentFastPath:
    """Outermost in the chain: agent requests the AgentApp can answer
    without the middleware are answered here; everything else, errors
    included, goes down the chain unchanged."""

    def __init__(self, app: Any, agent_app: AgentApp) -> None:
        self.app = app
        self.agent_app = agent_app

    def __call__(self, environ: dict, start_response: Any) -> Any:
        if environ.get('PATH_INFO', '').startswith(PREFIX):
            try:
                answer = self.agent_app.fast(environ)
            except Exception:
                LOG.debug('Agent fast path declined after an error',
                          exc_info=True)
                answer = None
            if answer is not None:
                status, headers, content = answer
                if status[0] == '2' or status[0] == '3':
                    # what oslo.middleware's RequestId adds
                    headers.append(('x-openstack-request-id',
                                    f'req-{uuid.uuid4()}'))
                start_response(status, headers)
                return [] if environ['REQUEST_METHOD'] == 'HEAD' else [
                    content]
        return self.app(environ, start_response)


class AgentRouter:
    """Sends /agent/ paths to the AgentApp, the rest to the authenticated
    API (Keystone or noauth)."""

    def __init__(self, api_app: Any, agent_app: Any) -> None:
        self.api_app = api_app
        self.agent_app = agent_app

    def __call__(self, environ: dict, start_response: Any) -> Any:
        if environ.get('PATH_INFO', '').startswith(PREFIX):
            return self.agent_app(environ, start_response)
        return self.api_app(environ, start_response)


