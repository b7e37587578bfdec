"""The endpoints agents call, outside Keystone: signed URLs only.

``GET|HEAD /agent/servers/{server_id}/metadata?token=...`` serves the
server's pre-rendered document: one primary-key read, no RPC, ETag and an
RFC 1123 Last-Modified (os-collect-config crashes on other date formats),
304 for a matching If-None-Match.

``PUT|POST /agent/deployments/{id}/signal?revision=N&token=...`` stores the
signal durably, then hands it to an engine; a lost cast is picked up by the
engines' sweep. These paths bypass pecan: they are the hot paths.
"""

import calendar
from email import utils as email_utils
from http import HTTPStatus
import json
from typing import Any

from oslo_log import log
import webob

from swconfig.api import body
from swconfig.api.middleware import fault
from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common import signing
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


class AgentApp:
    """A small WSGI app; errors propagate to the FaultWrapper around it."""

    def __init__(self, engine_api: Any) -> None:
        self.engine_api = engine_api
        # enginefacade keeps its transaction state per thread, so one
        # context can serve every request thread.
        self.context = swconfig_context.get_admin_context()

    def __call__(self, environ: dict, start_response: Any) -> Any:
        request = webob.Request(environ)
        path = request.path_info
        if path.startswith(METADATA_PREFIX) and path.endswith(
                METADATA_SUFFIX):
            server_id = path[len(METADATA_PREFIX):-len(METADATA_SUFFIX)]
            response = self.metadata(request, server_id)
        elif path.startswith(SIGNAL_PREFIX) and path.endswith(SIGNAL_SUFFIX):
            deployment_id = path[len(SIGNAL_PREFIX):-len(SIGNAL_SUFFIX)]
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
        self.engine_api.process_signal(self.context, inbox_id)
        if revision != target['action_revision']:
            raise exception.SignalRefused(
                reason='this URL belongs to an earlier action of the '
                       'deployment; the signal was recorded, not applied')
        if target['status'] != 'IN_PROGRESS':
            raise exception.SignalRefused(
                reason='the action already finished; the signal was '
                       'recorded, not applied')
        return webob.Response(status=HTTPStatus.OK,
                              content_type='application/json',
                              charset=None,
                              body=json.dumps({'signal': inbox_id}).encode())


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


