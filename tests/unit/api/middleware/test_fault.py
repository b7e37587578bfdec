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

"""Heat's error body, produced by the FaultWrapper
(doc/source/reference/rest-rules.rst)."""

import json
import sqlite3
import sys

from oslo_db import exception as db_exc
import oslo_messaging as messaging
from oslo_messaging._drivers import common as messaging_common
import psycopg2
import pymysql
import pytest
import webob
import webob.dec
import webob.exc

from swconfig.api.middleware import fault
from swconfig.common import exception
from swconfig.common import rpc

ERROR_KEYS = {'code', 'title', 'explanation', 'error'}


def _raising(exc):
    @webob.dec.wsgify
    def app(request):
        raise exc
    return app


def _returning(response):
    @webob.dec.wsgify
    def app(request):
        return response
    return app


def _call(app, method='GET', debug=False):
    request = webob.Request.blank('/v1/p/software_configs', method=method)
    return request.get_response(fault.FaultWrapper(app, debug=debug))


def _error_body(response):
    assert response.content_type == 'application/json'
    document = json.loads(response.body)
    assert set(document) == ERROR_KEYS
    assert document['code'] == response.status_int
    return document


def _remote(exc):
    """``exc`` as the API receives it from an engine: re-raised by
    oslo.messaging as a ``<Class>_Remote`` subclass."""
    try:
        raise exc
    except Exception:
        data = messaging_common.serialize_remote_exception(sys.exc_info())
    return messaging_common.deserialize_remote_exception(
        data, rpc.ALLOWED_EXMODS)


@pytest.mark.parametrize('exc, code, title, error_type, message', [
    (exception.ConfigNotFound(config_id='c1'), 404, 'Not Found', 'NotFound',
     'Software config with id c1 not found'),
    (exception.DeploymentNotFound(deployment_id='metadata'), 404,
     'Not Found', 'NotFound', 'Deployment with id metadata not found'),
    (exception.PolicyNotAuthorized(action='software_configs:global_index'),
     403, 'Forbidden', 'Forbidden',
     'You are not authorized to use software_configs:global_index.'),
    (exception.TenantMismatch(), 403, 'Forbidden', 'HTTPForbidden',
     'Access was denied to this resource.'),
    (exception.MalformedRequestBody(), 400, 'Bad Request', 'HTTPBadRequest',
     'The server could not comply with the request since it is either '
     'malformed or otherwise incorrect.'),
    (exception.InvalidParameterValue(reason='Bad limit.'), 400,
     'Bad Request', 'InvalidParameterValue', 'Bad limit.'),
    (exception.ConfigInUse(config_id='c1'), 409, 'Conflict', 'ConfigInUse',
     'Software config with id c1 can not be deleted as it is referenced.'),
    (exception.ServiceUnavailable(reason='down'), 503,
     'Service Unavailable', 'ServiceUnavailable',
     'The engine is unavailable: down'),
    (exception.SwconfigException(), 500, 'Internal Server Error',
     'SwconfigException', 'An unknown error occurred.'),
])
def test_swconfig_exception_body(exc, code, title, error_type, message):
    response = _call(_raising(exc))
    assert response.status_int == code
    document = _error_body(response)
    assert document['title'] == title
    assert document['explanation'] == webob.exc.status_map[code].explanation
    assert document['error'] == {'type': error_type, 'message': message,
                                 'traceback': None}


@pytest.mark.parametrize('exc, code, error_type', [
    (exception.ConfigNotFound(config_id='c1'), 404, 'NotFound'),
    (exception.ConfigInUse(config_id='c1'), 409, 'ConfigInUse'),
    (exception.ConcurrentUpdate(deployment_id='d1'), 409,
     'ConcurrentUpdate'),
    (exception.RequestLimitExceeded(message='x'), 400,
     'RequestLimitExceeded'),
])
def test_exception_from_the_engine_keeps_its_type_and_message(
        exc, code, error_type):
    remote = _remote(exc)
    assert type(remote).__name__.endswith('_Remote')
    response = _call(_raising(remote))
    assert response.status_int == code
    error = _error_body(response)['error']
    assert error['type'] == error_type
    # The engine's traceback, which oslo.messaging appends to str(), stays
    # out of the message.
    assert error['message'] == exc.message
    assert error['traceback'] is None


@pytest.mark.parametrize('exc', [ValueError('secret detail'),
                                 KeyError('k'), RuntimeError()])
def test_unexpected_exception_is_500_without_a_message(exc):
    response = _call(_raising(exc))
    assert response.status_int == 500
    document = _error_body(response)
    assert document['title'] == 'Internal Server Error'
    assert document['error'] == {'type': type(exc).__name__,
                                 'traceback': None}
    assert b'secret detail' not in response.body


def test_engine_crash_is_500_remote_error():
    # Exceptions outside swconfig.common.exception (here a DB error) cross
    # RPC as RemoteError.
    remote = _remote(db_exc.DBError('database is gone'))
    assert isinstance(remote, messaging.RemoteError)
    response = _call(_raising(remote))
    assert response.status_int == 500
    assert _error_body(response)['error'] == {'type': 'RemoteError',
                                              'traceback': None}


def test_traceback_only_with_debug():
    response = _call(_raising(ValueError('secret detail')), debug=True)
    assert response.status_int == 500
    error = _error_body(response)['error']
    assert error['type'] == 'ValueError'
    assert 'message' not in error
    assert error['traceback'].startswith('Traceback (most recent call last)')
    assert 'ValueError: secret detail' in error['traceback']


@pytest.mark.parametrize('error', [
    messaging.MessagingTimeout('no reply'),
    messaging.MessageUndeliverable(Exception('no queue'), 'swconfig',
                                   'route', 'message'),
])
def test_no_engine_is_503(error):
    response = _call(_raising(error))
    assert response.status_int == 503
    error = _error_body(response)['error']
    assert error['type'] == 'ServiceUnavailable'
    assert error['message'] == (
        'The engine is unavailable: no engine answered; retry later')


@pytest.mark.parametrize('webob_error', [
    webob.exc.HTTPNotFound, webob.exc.HTTPMethodNotAllowed,
    webob.exc.HTTPBadRequest, webob.exc.HTTPNotAcceptable,
    webob.exc.HTTPInternalServerError,
])
def test_html_errors_become_the_json_body(webob_error):
    response = _call(webob_error())
    assert response.status_int == webob_error.code
    document = _error_body(response)
    assert document['title'] == webob_error.title
    assert document['explanation'] == webob_error.explanation
    error = document['error']
    assert error['type'] == webob_error.__name__
    assert error['traceback'] is None
    assert isinstance(error['message'], str) and error['message']


def test_405_keeps_no_allow_header():
    response = _call(webob.exc.HTTPMethodNotAllowed(
        headers=[('Allow', 'GET, POST')]), method='PATCH')
    assert response.status_int == 405
    assert 'Allow' not in response.headers
    assert _error_body(response)['error']['type'] == 'HTTPMethodNotAllowed'


def test_401_keeps_www_authenticate():
    challenge = "Keystone uri='http://keystone:5000'"
    response = _call(webob.exc.HTTPUnauthorized(
        headers=[('WWW-Authenticate', challenge)]))
    assert response.status_int == 401
    assert response.headers['WWW-Authenticate'] == challenge
    assert _error_body(response)['error']['type'] == 'HTTPUnauthorized'


def test_json_4xx_without_an_error_key_is_rewritten():
    response = _call(_returning(webob.Response(
        status=400, json_body={'detail': 'pecan json'})))
    assert _error_body(response)['error']['type'] == 'HTTPBadRequest'


def test_body_already_in_shape_passes_unchanged():
    original = fault.error_response(404, 'NotFound', 'gone')
    response = _call(_returning(original))
    assert response.body == original.body
    assert response.status_int == 404


def test_head_errors_are_left_alone():
    response = _call(webob.exc.HTTPMethodNotAllowed(), method='HEAD')
    assert response.status_int == 405
    assert response.body == b''


@pytest.mark.parametrize('status', [200, 201, 302, 399])
def test_non_errors_pass_unchanged(status):
    original = webob.Response(status=status, body=b'plain',
                              content_type='text/plain')
    response = _call(_returning(original))
    assert response.status_int == status
    assert response.body == b'plain'
    assert response.content_type == 'text/plain'


@pytest.mark.parametrize('status,headers,method,passes', [
    ('200 OK', [('Content-Type', 'application/json')], 'GET', True),
    ('201 Created', [], 'POST', True),
    ('200 OK', [], 'HEAD', False),  # webob drops a HEAD's body
    ('201 Created', [('Location', '/v1/p/x')], 'POST', False),
    ('302 Found', [('location', '/v1/p/x')], 'GET', False),
    ('200', [], 'GET', False),  # no reason phrase
    ('404 Not Found', [], 'GET', False),
    ('2OO OK', [], 'GET', False),
])
def test_what_passes_as_is(status, headers, method, passes):
    environ = {'REQUEST_METHOD': method}
    for _ in range(2):  # judged, then looked up
        assert fault._passes_as_is(status, headers, environ) is passes


def test_status_judgements_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(fault, '_STATUS_PASSES', {})
    for code in range(200, 200 + fault._STATUSES_KEPT + 10):
        assert fault._passes_as_is(f'{code} Fine', [],
                                   {'REQUEST_METHOD': 'GET'})
    assert len(fault._STATUS_PASSES) == fault._STATUSES_KEPT


def test_no_content_passes_unchanged():
    response = _call(_returning(webob.Response(status=204)))
    assert response.status_int == 204
    assert response.body == b''


@pytest.mark.parametrize('code', [400, 401, 403, 404, 405, 409, 413, 500,
                                  503])
def test_error_response_matches_webob_titles_and_explanations(code):
    document = json.loads(fault.error_response(code, 'T', 'm').body)
    webob_error = webob.exc.status_map[code]
    assert document['title'] == webob_error.title
    assert document['explanation'] == webob_error.explanation


def test_error_response_without_message_has_no_message_key():
    response = fault.error_response(500, 'ValueError', None)
    assert response.content_type == 'application/json'
    assert json.loads(response.body)['error'] == {'type': 'ValueError',
                                                  'traceback': None}


def test_error_response_is_utf8_json():
    response = fault.error_response(404, 'NotFound', 'pas trouvé ✓')
    assert json.loads(response.body.decode('utf-8'))['error'][
        'message'] == 'pas trouvé ✓'


@pytest.mark.parametrize('error, message', [
    (messaging.MessageDeliveryFailure('broker down'),
     'The message bus is unavailable: broker down'),
    (db_exc.DBConnectionError('refused'),
     'The database is unavailable: DBConnectionError'),
    (db_exc.DBDeadlock('deadlock'),
     'The database is unavailable: DBDeadlock'),
    (db_exc.DBNonExistentDatabase('swconfig'),
     'The database is unavailable: DBNonExistentDatabase'),
    # The agent path's statements run on driver connections: what the
    # drivers raise arrives unwrapped.
    (pymysql.err.OperationalError(2003, "Can't connect to MySQL server"),
     'The database is unavailable: OperationalError'),
    (pymysql.err.InterfaceError(0, ''),
     'The database is unavailable: InterfaceError'),
    (psycopg2.OperationalError('connection refused'),
     'The database is unavailable: OperationalError'),
    (sqlite3.OperationalError('disk I/O error'),
     'The database is unavailable: OperationalError'),
])
def test_backend_outages_are_503_with_retry_after(error, message):
    response = _call(_raising(error))
    assert response.status_int == 503
    assert response.headers['Retry-After'] == '5'
    error = _error_body(response)['error']
    assert error['type'] == 'ServiceUnavailable'
    assert error['message'] == message


def test_no_engine_answers_503_with_retry_after():
    response = _call(_raising(messaging.MessagingTimeout('no reply')))
    assert response.headers['Retry-After'] == '5'


@pytest.mark.parametrize('exc, logged_each', [
    (exception.MessagingUnavailable(reason='refused'), True),
    (exception.MessageBusDown(reason='refused'), False),
    (exception.NoEngineRunning(topic='t', window='15'), False),
])
def test_refusals_logged_once_per_outage_are_not_errors_each_time(
        exc, logged_each, caplog):
    """A storm of writes refused because no engine runs or the bus is
    down would write an error line per request; the outage itself is
    logged once, where it is found."""
    with caplog.at_level('DEBUG', logger=fault.__name__):
        response = _call(_raising(exc), method='POST')
    assert response.status_int == 503
    assert response.headers['Retry-After'] == '5'
    assert _error_body(response)['error']['type'] == 'ServiceUnavailable'
    errors = [r for r in caplog.records if r.levelname == 'ERROR']
    assert len(errors) == (1 if logged_each else 0), caplog.text


def _plain(status, headers, body=(b'plain',), write=None):
    """A plain WSGI app (no webob) answering as given."""
    def app(environ, start_response):
        writer = start_response(status, list(headers))
        if write is not None:
            writer(write)
        return list(body)
    return app


def _wsgi_call(app, method='GET'):
    """The status, headers and body the server sees."""
    seen = []
    environ = webob.Request.blank('/v1/p/x', method=method).environ
    body = b''.join(fault.FaultWrapper(app)(
        environ, lambda status, headers, exc_info=None: seen.extend(
            (status, headers))))
    return seen[0], seen[1], body


def test_plain_answers_pass_as_they_are():
    headers = [('Content-Type', 'application/json'), ('X-A', '1')]
    assert _wsgi_call(_plain('200 OK', headers)) == (
        '200 OK', headers, b'plain')


def test_plain_answers_get_what_webob_does_to_them():
    """A relative Location made absolute, a bare status given its
    reason, a HEAD's body dropped, what write() sent kept."""
    assert _wsgi_call(_plain('201 Created', [('Location', '/v1/p/x/1')])
                      )[1] == [('Location', 'http://localhost/v1/p/x/1')]
    assert _wsgi_call(_plain('200', []))[0] == '200 OK'
    assert _wsgi_call(_plain('200 OK', []), method='HEAD')[2] == b''
    assert _wsgi_call(_plain('200 OK', [], write=b'first '))[2] == (
        b'first plain')


def test_start_response_with_exc_info_is_the_error_body():
    def app(environ, start_response):
        try:
            raise ValueError('boom')
        except ValueError:
            start_response('500 Internal Server Error', [], sys.exc_info())
        return [b'']

    status, headers, body = _wsgi_call(app)
    assert status == '500 Internal Server Error'
    assert json.loads(body)['error']['type'] == 'ValueError'
