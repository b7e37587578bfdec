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

from oslo_log import log
import oslo_messaging as messaging
import webob
import webob.exc

from swconfig.common import exception

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


class FaultWrapper:
    def __init__(self, app: Any, debug: bool = False) -> None:
        self.app = app
        self.debug = debug

    def _from_exception(self, exc: BaseException) -> webob.Response:
        if isinstance(exc, exception.SwconfigException):
            if exc.code >= 500:
                LOG.error('Request failed: %s', exc)
            return error_response(exc.code, exc.type_name, exc.message)
        if isinstance(exc, (messaging.MessagingTimeout,
                            messaging.MessageUndeliverable)):
            LOG.error('No engine took the request: %s', exc)
            unavailable = exception.ServiceUnavailable(
                reason='no engine answered; retry later')
            return error_response(unavailable.code, unavailable.type_name,
                                  unavailable.message)
        LOG.exception('Unexpected error while serving the request')
        return error_response(
            HTTPStatus.INTERNAL_SERVER_ERROR, type(exc).__name__, None,
            traceback.format_exc() if self.debug else None)

    @staticmethod
    def _is_json_error(response: webob.Response) -> bool:
        return (response.content_type == 'application/json'
                and b'"error"' in response.body)

    def __call__(self, environ: dict, start_response: Any) -> Any:
        request = webob.Request(environ)
        try:
            response = request.get_response(self.app)
        except Exception as exc:
            response = self._from_exception(exc)
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
