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

"""The request id middleware: oslo.middleware's behaviour, in plain WSGI,
and the cheap ids it makes."""

import itertools
import uuid

from oslo_middleware import request_id as oslo_request_id
import pytest
import webob

from swconfig.api.agent import request_ids as request_id
from swconfig.api.middleware import bypass
from tests.fixtures import forking


def test_request_ids_are_oslo_shaped_and_unique():
    ids = [request_id.new_request_id() for _ in range(1000)]
    assert len(set(ids)) == len(ids)
    for value in ids[:3] + ids[-3:]:
        assert value.startswith('req-')
        assert str(uuid.UUID(value[4:])) == value[4:]


def test_request_ids_count_in_their_last_twelve_digits(monkeypatch):
    """Ids end with the count in 12 hex digits, which starts again at 0
    after the last 12-digit number; the header pairs share the count."""
    monkeypatch.setattr(request_id, '_IDS', None)
    monkeypatch.setattr(request_id, 'ID_HEADERS', None)
    request_id._start(0x1ffe)
    ids = [request_id.new_request_id() for _ in range(2)]
    ids += [value for _name, value in itertools.islice(
        request_id.ID_HEADERS, 2)]
    assert [value[-12:] for value in ids] == [
        '000000001ffe', '000000001fff', '000000002000', '000000002001']
    assert len({value[:-12] for value in ids}) == 1
    assert next(request_id.ID_HEADERS)[0] == request_id.HEADER
    request_id._start(request_id.ID_COUNT - 1)
    assert request_id.new_request_id()[-12:] == 'ffffffffffff'
    assert request_id.new_request_id()[-12:] == '000000000000'
    assert request_id.new_request_id()[-12:] == '000000000001'


def test_a_forked_process_makes_ids_of_its_own():
    child = forking.in_forked_child(
        lambda: request_id.new_request_id().encode()).decode()
    mine = request_id.new_request_id()
    assert len(child) == len(mine)
    assert child[:28] != mine[:28]


def _app(headers):
    seen = {}

    def app(environ, start_response):
        seen.update(environ)
        start_response('201 Created', list(headers))
        return [b'body']
    return app, seen


def _answer(middleware, **environ_headers):
    request = webob.Request.blank('/v1/p/x', headers=environ_headers)
    response = request.get_response(middleware)
    return response, request.environ


GLOBAL = 'req-12345678-1234-1234-1234-123456789abc'


@pytest.mark.parametrize('middleware_class', [
    request_id.RequestId, oslo_request_id.RequestId])
@pytest.mark.parametrize('inbound, kept', [
    (GLOBAL, True), ('req-not-an-id', False), (None, False)])
def test_the_same_as_oslo(middleware_class, inbound, kept):
    """Both middleware, side by side: the same environ keys and headers."""
    app, seen = _app([('Content-Type', 'text/plain')])
    headers = {} if inbound is None else {
        'X-Openstack-Request-Id': inbound}
    response, _ = _answer(middleware_class(app), **headers)
    assert response.status_int == 201 and response.body == b'body'
    made = seen[oslo_request_id.ENV_REQUEST_ID]
    assert response.headers.getall('x-openstack-request-id') == [made]
    assert made.startswith('req-') and made != inbound
    assert seen.get(oslo_request_id.GLOBAL_REQ_ID) == (
        inbound if kept else None)


def test_an_answer_with_an_id_keeps_it():
    app, _ = _app([('X-OpenStack-Request-Id', 'req-inner')])
    response, _ = _answer(request_id.RequestId(app))
    assert response.headers.getall('x-openstack-request-id') == [
        'req-inner']


@pytest.mark.parametrize('method, headers, acts', [
    ('GET', {}, False), ('POST', {}, False), ('OPTIONS', {}, True),
    ('GET', {'Origin': 'http://a.example'}, True)])
def test_cors_runs_for_what_it_acts_on(method, headers, acts):
    request = webob.Request.blank('/', method=method, headers=headers)
    assert bypass.cors_acts_on(request.environ) is acts


def test_bypass_hands_on_by_the_predicate():
    calls = []

    def named(name):
        def app(environ, start_response):
            calls.append(name)
            start_response('200 OK', [])
            return []
        return app

    wrapped = bypass.Bypass(named('middleware'), named('app'),
                            lambda environ: 'HTTP_X_ON' in environ)
    webob.Request.blank('/').get_response(wrapped)
    webob.Request.blank('/', headers={'X-On': '1'}).get_response(wrapped)
    assert calls == ['app', 'middleware']
