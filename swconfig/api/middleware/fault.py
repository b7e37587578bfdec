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

"""The one place where errors become Heat's JSON error body.

Every failure, whether a swconfig exception raised by a controller or the
engine, a routing error from pecan (404/405) or an unexpected crash, leaves
the API as ``{"code", "title", "explanation", "error": {"type", "message",
"traceback"}}``. Tracebacks are sent only with ``debug = True``.
"""

from http import HTTPStatus
import json
import traceback
from typing import Any

from oslo_context import context as oslo_context
from oslo_log import log
import oslo_messaging as messaging
from oslo_middleware import request_id as oslo_request_id
import webob
import webob.exc

from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)


def error_response(status: int, error_type: str, message: str | None,
                   tb: str | None = None, headers: Any = None
                   ) -> webob.Response:
    status = HTTPStatus(status)
    webob_error = webob.exc.status_map.get(status.value)
    explanation = (webob_error.explanation if webob_error
                   else status.description)
    error = {'type': error_type, 'traceback': tb}
    if message is not None:
        error['message'] = message
    title = webob_error.title if webob_error else status.phrase
    body = {'code': status.value, 'title': title,
            'explanation': explanation, 'error': error}
    response = webob.Response(status=status.value,
                              content_type='application/json',
                              charset='UTF-8')
    response.text = json.dumps(body)
    for name, value in headers or ():
        response.headers[name] = value
    return response


def _unavailable(exc: BaseException) -> exception.ServiceUnavailable | None:
    """The 503 for a backend outage, or None if ``exc`` is not one."""
    if isinstance(exc, (messaging.MessagingTimeout,
                        messaging.MessageUndeliverable)):
        return exception.ServiceUnavailable(
            reason='no engine answered; retry later')
    if isinstance(exc, messaging.MessageDeliveryFailure):
        return exception.MessagingUnavailable(reason=str(exc))
    if db_api.is_outage(exc):
        return exception.DatabaseUnavailable(reason=type(exc).__name__)
    return None


def exception_response(exc: BaseException,
                       debug: bool = False) -> webob.Response:
    """The error body for ``exc``: its own status for a swconfig
    exception, 503 with Retry-After when a backend (the database, the
    message bus, every engine) is down, else 500 (logged with its
    traceback, which is sent only with ``debug``)."""
    unavailable = _unavailable(exc)
    if unavailable is not None:
        LOG.error('%s (%s)', unavailable.message, exc)
        exc = unavailable
    if isinstance(exc, exception.SwconfigException):
        if exc.code >= 500 and unavailable is None:
            if getattr(exc, 'log_each', True):
                LOG.error('Request failed: %s', exc)
            else:  # its source logged the outage once
                LOG.debug('Request refused: %s', exc)
        return error_response(exc.code, exc.type_name, exc.message,
                              headers=exc.headers)
    LOG.error('Unexpected error while serving the request', exc_info=exc)
    return error_response(
        HTTPStatus.INTERNAL_SERVER_ERROR, type(exc).__name__, None,
        ''.join(traceback.format_exception(exc)) if debug else None)


def request_id(environ: dict) -> str:
    """The request's id (the request id middleware's, when it ran), made
    if none."""
    value = environ.get(oslo_request_id.ENV_REQUEST_ID)
    if value is None:
        value = environ[oslo_request_id.ENV_REQUEST_ID] = (
            oslo_context.generate_request_id())
    return value


def render(exc: BaseException, environ: dict, start_response: Any) -> Any:
    """Answer ``exc`` with the error body, outside the middleware chain
    (the agent app's answers)."""
    response = exception_response(exc, debug=CONF.debug)
    response.headers[oslo_request_id.HTTP_RESP_HEADER_REQUEST_ID] = (
        request_id(environ))
    return response(environ, start_response)


#: Status lines and whether each is a success with a reason phrase, the
#: statuses webob sends as they are: an API answers with a few dozen at
#: most, so each is judged once.
_STATUS_PASSES: dict[str, bool] = {}
_STATUSES_KEPT = 64


def _passes_as_is(status: str, headers: list, environ: dict) -> bool:
    """Whether webob's response would send ``status`` and ``headers`` as
    they are, and the error body leave them: a success (below 400) with
    a reason phrase, no Location (made absolute by webob), not a HEAD
    (whose body webob drops)."""
    passes = (_STATUS_PASSES.get(status) if status.__class__ is str
              else False)
    if passes is None:
        passes = (status[3:4] == ' ' and status[:3].isdigit()
                  and status[:3] < '400')
        if len(_STATUS_PASSES) < _STATUSES_KEPT:
            _STATUS_PASSES[status] = passes
    if not passes or environ['REQUEST_METHOD'] == 'HEAD':
        return False
    for name, _ in headers:  # a loop: a generator costs more
        if len(name) == 8 and name.lower() == 'location':
            return False
    return True


class FaultWrapper:
    def __init__(self, app: Any, debug: bool = False) -> None:
        self.app = app
        self.debug = debug

    @staticmethod
    def _is_json_error(response: webob.Response) -> bool:
        return (response.content_type == 'application/json'
                and b'"error"' in response.body)

    def __call__(self, environ: dict, start_response: Any) -> Any:
        # What webob's Request.get_response does, in plain WSGI: most
        # answers are passed on as they are, without webob's objects.
        captured: list = []
        written: list = []

        def capture(status: str, headers: list, exc_info: Any = None
                    ) -> Any:
            if exc_info is not None:
                raise exc_info[1].with_traceback(exc_info[2])
            captured[:] = (status, headers)
            return written.append

        request = None
        try:
            if environ.get('webob.is_body_seekable'):
                environ['wsgi.input'].seek(0)
            app_iter = self.app(environ, capture)
            if written or not captured:
                request = webob.Request(environ)  # webob's way from here
                try:
                    written.extend(app_iter)
                finally:
                    if hasattr(app_iter, 'close'):
                        app_iter.close()
                app_iter = written
            status, headers = captured[0], captured[1]
            if request is None and _passes_as_is(status, headers,
                                                 environ):
                start_response(status, headers)
                return app_iter
            response = webob.Response(status=status,
                                      headerlist=list(headers),
                                      app_iter=app_iter)
        except Exception as exc:
            response = exception_response(exc, self.debug)
        if request is None:
            request = webob.Request(environ)
        if (response.status_int >= 400 and request.method != 'HEAD'
                and not self._is_json_error(response)):
            # pecan's own errors (unknown route, wrong method) are HTML.
            status = HTTPStatus(response.status_int)
            webob_error = webob.exc.status_map.get(status.value)
            error_type = webob_error.__name__ if webob_error else 'HTTPError'
            message = status.description
            keep = [(k, v) for k, v in response.headerlist
                    if k.lower() in ('www-authenticate',)]
            response = error_response(status, error_type, message,
                                      headers=keep)
        return response(environ, start_response)
