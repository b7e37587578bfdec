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

"""The Swift signal poller against an in-memory Swift: what it hands to
the sink, what it fetches once, what it removes, and which containers it
lists."""

import hashlib
import json
import logging

import pytest

from swconfig.common import exception
from swconfig.db import api as db_api
from swconfig.transports import base
from swconfig.transports.swift import client
from swconfig.transports.swift import poller

TRANSPORT = 'TEMP_URL_SIGNAL'
LOGGER = poller.__name__


def etag(body):
    return hashlib.md5(body).hexdigest()  # noqa: S324 (Swift's ETag)


class FakeSwift:
    """Containers of objects, answering ``client.call`` as Swift does
    (through swconfig's exceptions)."""

    def __init__(self):
        self.containers = {}
        self.calls = []

    def put(self, container, name, body):
        self.containers.setdefault(container, {})[name] = body

    def call(self, method, *args, **kwargs):
        self.calls.append((method, *args))
        return getattr(self, method)(*args, **kwargs)

    def methods(self, method):
        return [args for name, *args in self.calls if name == method]

    def _container(self, container):
        if container not in self.containers:
            raise exception.NotFound(f'Swift: /{container} not found')
        return self.containers[container]

    def get_container(self, container, full_listing=False):
        assert full_listing
        return {}, [{'name': name, 'hash': etag(body), 'bytes': len(body)}
                    for name, body in sorted(
                        self._container(container).items())]

    def get_object(self, container, name):
        objects = self._container(container)
        if name not in objects:
            raise exception.NotFound(f'Swift: /{container}/{name} not found')
        body = objects[name]
        return {'etag': f'"{etag(body)}"',
                'content-length': str(len(body))}, body

    def delete_object(self, container, name):
        del self._container(container)[name]

    def put_container(self, container):
        self.containers.setdefault(container, {})


class Sink(base.SignalSink):
    """Records what the poller hands over; stores everything."""

    def __init__(self):
        super().__init__(None)
        self.received = []

    def receive(self, deployment_id, action_revision, source_key,
                body=None, size=None, where=''):
        self.received.append({
            'deployment_id': deployment_id, 'revision': action_revision,
            'key': source_key, 'body': body, 'size': size, 'where': where})
        return True

    def apply(self, inbox_id):
        raise AssertionError('receive is recorded, never applied here')


class Partition:
    def __init__(self, containers):
        self.containers = set(containers)

    def owns(self, key):
        return key in self.containers


@pytest.fixture
def swift(monkeypatch):
    fake = FakeSwift()
    client.reset()
    monkeypatch.setattr(client, 'call', fake.call)
    monkeypatch.setattr(client, 'ensure_signal_containers',
                        lambda: fake.calls.append(('ensure_all',)))
    yield fake
    client.reset()


class Waiting(dict):
    """deployment id -> the action revision it waits for; the poller's
    queries are recorded in ``queries``."""

    def __init__(self):
        super().__init__()
        self.queries = []

    def software_deployments_waiting(self, context, transport,
                                     deployment_ids=None):
        self.queries.append((transport, deployment_ids))
        assert context.is_admin
        return [{'id': deployment_id, 'server_id': 'server-1',
                 'action_revision': revision}
                for deployment_id, revision in self.items()
                if deployment_ids is None or deployment_id in deployment_ids]


@pytest.fixture
def waiting(monkeypatch):
    rows = Waiting()
    monkeypatch.setattr(db_api, 'software_deployments_waiting',
                        rows.software_deployments_waiting)
    return rows


@pytest.fixture
def sink():
    return Sink()


@pytest.fixture
def signal_poller(sink):
    return poller.SignalPoller(TRANSPORT, sink)


DEPLOYMENT = 'a1b2c3d4-0000-4000-8000-000000000001'
CONTAINER = client.signal_container(DEPLOYMENT)
NAME = f'{DEPLOYMENT}/3'
SIGNAL = json.dumps({'deploy_status_code': 0}).encode()


def test_a_new_signal_is_handed_to_the_sink_by_its_etag(
        swift, waiting, sink, signal_poller):
    waiting[DEPLOYMENT] = 3
    swift.put(CONTAINER, NAME, SIGNAL)
    assert signal_poller.poll(CONTAINER) == 1
    assert sink.received == [{
        'deployment_id': DEPLOYMENT, 'revision': 3,
        'key': f'swift:3:{etag(SIGNAL)}', 'body': SIGNAL,
        'size': len(SIGNAL), 'where': f'object {CONTAINER}/{NAME}'}]
    assert waiting.queries == [(TRANSPORT, [DEPLOYMENT])]
    # Waiting for a signal, it stays where the agent put it.
    assert swift.methods('delete_object') == []


def test_the_same_etag_is_not_fetched_again_new_content_is(
        swift, waiting, sink, signal_poller):
    waiting[DEPLOYMENT] = 3
    swift.put(CONTAINER, NAME, SIGNAL)
    signal_poller.poll(CONTAINER)
    assert signal_poller.poll(CONTAINER) == 0
    assert swift.methods('get_object') == [[CONTAINER, NAME]]
    assert len(sink.received) == 1

    again = json.dumps({'deploy_status_code': 1}).encode()
    swift.put(CONTAINER, NAME, again)
    assert signal_poller.poll(CONTAINER) == 1
    assert swift.methods('get_object') == [[CONTAINER, NAME]] * 2
    assert [r['key'] for r in sink.received] == [
        f'swift:3:{etag(SIGNAL)}', f'swift:3:{etag(again)}']
    assert sink.received[-1]['body'] == again


def test_an_object_no_deployment_waits_for_is_removed(
        swift, waiting, sink, signal_poller):
    """A former action's object, and one of a deployment that waits for
    nothing (finished or deleted), are removed unread; an object whose
    name swconfig did not make is left alone."""
    other = 'a1b2c3d4-0000-4000-8000-00000000000f'
    waiting[DEPLOYMENT] = 4
    swift.put(CONTAINER, NAME, SIGNAL)
    swift.put(CONTAINER, f'{other}/1', SIGNAL)
    swift.put(CONTAINER, 'stray-object', SIGNAL)
    assert signal_poller.poll(CONTAINER) == 0
    assert sink.received == []
    assert swift.methods('get_object') == []
    assert sorted(swift.methods('delete_object')) == sorted(
        [[CONTAINER, NAME], [CONTAINER, f'{other}/1']])
    assert set(swift.containers[CONTAINER]) == {'stray-object'}
    assert waiting.queries == [(TRANSPORT, sorted([DEPLOYMENT, other]))]


def test_an_object_over_the_size_limit_is_handed_over_unread(
        swift, waiting, sink, signal_poller, set_conf):
    set_conf('max_signal_size', 1024, group='agent')
    waiting[DEPLOYMENT] = 3
    large = b'{"deploy_stdout": "' + b'x' * 2000 + b'"}'
    swift.put(CONTAINER, NAME, large)
    assert signal_poller.poll(CONTAINER) == 1
    assert swift.methods('get_object') == []
    assert sink.received == [{
        'deployment_id': DEPLOYMENT, 'revision': 3,
        'key': f'swift:3:{etag(large)}', 'body': None,
        'size': len(large), 'where': f'object {CONTAINER}/{NAME}'}]
    # Handed over once, not every round.
    signal_poller.poll(CONTAINER)
    assert len(sink.received) == 1


def test_an_object_at_the_size_limit_is_read(swift, waiting, sink,
                                             signal_poller, set_conf):
    set_conf('max_signal_size', 1024, group='agent')
    waiting[DEPLOYMENT] = 3
    body = b'{"deploy_stdout": "' + b'x' * (1024 - 21) + b'"}'
    assert len(body) == 1024
    swift.put(CONTAINER, NAME, body)
    signal_poller.poll(CONTAINER)
    assert sink.received[0]['body'] == body


def test_an_object_gone_before_it_is_read_is_not_handed_over(
        swift, waiting, sink, signal_poller, monkeypatch):
    waiting[DEPLOYMENT] = 3
    swift.put(CONTAINER, NAME, SIGNAL)
    listing = swift.get_container

    def list_then_lose(container, full_listing=False):
        answer = listing(container, full_listing)
        swift.containers[container].clear()
        return answer

    monkeypatch.setattr(swift, 'get_container', list_then_lose)
    assert signal_poller.poll(CONTAINER) == 0
    assert sink.received == []
    # Not remembered as seen: when it is written again, it is read.
    monkeypatch.setattr(swift, 'get_container', listing)
    swift.put(CONTAINER, NAME, SIGNAL)
    assert signal_poller.poll(CONTAINER) == 1


def test_a_missing_container_is_created_again(swift, waiting,
                                              signal_poller):
    """Even one this process created before: an agent's PUT into a
    missing container fails."""
    client._known_containers.add(CONTAINER)
    assert signal_poller.poll(CONTAINER) == 0
    assert swift.methods('put_container') == [[CONTAINER]]
    assert swift.containers == {CONTAINER: {}}
    assert CONTAINER in client._known_containers
    assert waiting.queries == []


def test_an_outage_of_swift_reaches_the_runner(swift, waiting,
                                               signal_poller, monkeypatch):
    def down(container, full_listing=False):
        raise exception.BackendUnavailable(service='Swift', reason='503')

    monkeypatch.setattr(swift, 'get_container', down)
    with pytest.raises(exception.BackendUnavailable):
        signal_poller.poll(CONTAINER)


def names(*shards):
    return [client.signal_container_name(shard) for shard in shards]


def test_only_the_owned_containers_are_listed(swift, waiting,
                                              signal_poller):
    for container in names(*range(client.SIGNAL_CONTAINERS)):
        swift.put_container(container)
    signal_poller.run(Partition(names(3, 17)))
    assert swift.methods('get_container') == [[c] for c in names(3, 17)]
    assert swift.calls[0] == ('ensure_all',)


def test_containers_no_longer_owned_are_forgotten(swift, waiting, sink,
                                                  signal_poller):
    """A container handed to another engine and back is read afresh: what
    it holds may have changed meanwhile."""
    other = client.signal_container_name(
        (int(CONTAINER.rpartition('-')[2]) + 1) % client.SIGNAL_CONTAINERS)
    swift.put_container(other)
    waiting[DEPLOYMENT] = 3
    swift.put(CONTAINER, NAME, SIGNAL)
    signal_poller.handle(iter([CONTAINER, other]))
    assert len(sink.received) == 1
    signal_poller.handle(iter([CONTAINER, other]))
    assert len(sink.received) == 1

    signal_poller.handle(iter([other]))
    assert CONTAINER not in signal_poller._seen
    assert swift.methods('get_container')[-1] == [other]
    signal_poller.handle(iter([CONTAINER, other]))
    assert len(sink.received) == 2
    assert sink.received[0] == sink.received[1]


def test_the_owned_containers_are_logged_when_they_change(
        swift, waiting, signal_poller, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER)
    for container in names(*range(client.SIGNAL_CONTAINERS)):
        swift.put_container(container)

    def lines():
        return [r.getMessage() for r in caplog.records
                if r.name == LOGGER and 'Signal containers' in
                r.getMessage()]

    signal_poller.handle(iter(names(0, 5)))
    assert lines() == [
        'Signal containers this engine lists: 2 of 32 (00,05)']
    signal_poller.handle(iter(names(0, 5)))
    assert len(lines()) == 1
    signal_poller.handle(iter(names(0, 5, 31)))
    signal_poller.handle(iter([]))
    assert lines()[1:] == [
        'Signal containers this engine lists: 3 of 32 (00,05,31)',
        'Signal containers this engine lists: 0 of 32 (none)']
    assert all(r.levelno == logging.INFO for r in caplog.records
               if r.name == LOGGER)
