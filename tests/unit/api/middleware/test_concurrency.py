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

"""The bound on project requests in progress per API worker."""

import json
import logging
import threading

import pytest
import webob
import webob.dec

from swconfig.api.middleware import concurrency


class BlockingApp:
    """Answers 200 once ``release`` is set; counts requests inside."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.inside = threading.Semaphore(0)

    @webob.dec.wsgify
    def __call__(self, request):
        self.inside.release()
        if not self.release.wait(30):
            raise AssertionError('the test never released the request')
        return webob.Response(json_body={'ok': True})


def _get(app, path='/v1/p1/software_configs'):
    return webob.Request.blank(path).get_response(app)


@pytest.fixture
def blocking():
    app = BlockingApp()
    yield app
    app.release.set()


def _fill(limiter, app, count):
    """``count`` requests in progress inside ``app``; their threads and
    responses."""
    responses = []
    threads = [threading.Thread(target=lambda: responses.append(
        _get(limiter))) for _ in range(count)]
    for thread in threads:
        thread.start()
    for _ in range(count):
        assert app.inside.acquire(timeout=10), 'request did not start'
    return threads, responses


def test_over_the_limit_is_refused_at_once_with_503(blocking):
    limiter = concurrency.ConcurrencyLimiter(blocking, limit=3)
    threads, responses = _fill(limiter, blocking, 3)

    refused = _get(limiter)
    assert refused.status_int == 503
    assert refused.headers['Retry-After'] == '2'
    body = json.loads(refused.body)
    assert set(body) == {'code', 'title', 'explanation', 'error'}
    assert body['code'] == 503
    assert body['error']['type'] == 'ServiceUnavailable'
    assert '3 project requests' in body['error']['message']

    blocking.release.set()
    for thread in threads:
        thread.join(10)
    # The requests in progress were not disturbed ...
    assert [r.status_int for r in responses] == [200, 200, 200]
    # ... and their slots are free again.
    assert [_get(limiter).status_int for _ in range(5)] == [200] * 5


def test_a_failing_request_frees_its_slot():
    @webob.dec.wsgify
    def crash(request):
        raise RuntimeError('boom')

    limiter = concurrency.ConcurrencyLimiter(crash, limit=1)
    for _ in range(3):
        with pytest.raises(RuntimeError):
            _get(limiter)
    assert limiter.in_progress == 0


def test_busy_spell_is_logged_once(blocking, caplog):
    limiter = concurrency.ConcurrencyLimiter(blocking, limit=1)
    threads, _ = _fill(limiter, blocking, 1)
    with caplog.at_level(logging.INFO, logger=concurrency.__name__):
        assert [_get(limiter).status_int for _ in range(4)] == [503] * 4
        blocking.release.set()
        threads[0].join(10)
        assert _get(limiter).status_int == 200
    messages = [record.getMessage() for record in caplog.records]
    assert sum('refusing more with 503' in m for m in messages) == 1
    assert sum('4 were refused' in m for m in messages) == 1


def test_default_limit_leaves_threads_for_agents(set_conf):
    set_conf('threads', 64, group='api')
    set_conf('max_concurrent_project_requests', 0, group='api')
    assert concurrency.project_request_limit() == 48
    set_conf('threads', 1, group='api')
    assert concurrency.project_request_limit() == 1
    set_conf('threads', 16, group='api')
    set_conf('max_concurrent_project_requests', 10, group='api')
    assert concurrency.project_request_limit() == 10
    assert concurrency.ConcurrencyLimiter(lambda e, s: []).limit == 10


def test_a_limit_not_below_threads_is_warned_about(set_conf, caplog):
    set_conf('threads', 16, group='api')
    set_conf('max_concurrent_project_requests', 16, group='api')
    with caplog.at_level(logging.WARNING, logger=concurrency.__name__):
        assert concurrency.project_request_limit() == 16
    assert any('is not below [api] threads' in record.getMessage()
               for record in caplog.records)
