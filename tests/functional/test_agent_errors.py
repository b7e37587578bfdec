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

"""An error inside the agent path is answered by that path, with the API's
standard error body and the right status: there is no second
implementation to fall back to. In-process (the failures are injected into
the DB layer the agent path reads through)."""

import json
import urllib.parse

import pytest
from sqlalchemy import exc as sa_exc

from swconfig.api.agent import metadata_cache
from swconfig.api.agent import repeat_polls
from swconfig.common import exception
from swconfig.db import api as db_api
from tests.functional.api import helpers
from tests.functional.api.helpers import assert_error


def _local(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f'{parts.path}?{parts.query}'


@pytest.fixture
def agent_urls(inprocess_stack, project):
    """The metadata URL of a new server and the signal URL of a deployment
    on it, both valid."""
    api = inprocess_stack
    server = f'{project}-srv'
    config = helpers.create_config(api, project, outputs=[{'name': 'r'}])
    deployment = helpers.create_deployment(
        api, project, server_id=server, config_id=config['id'],
        signal_transport='HEAT_SIGNAL')
    reply = api.get(helpers.url(project, 'servers',
                                f'/{server}/agent-config'))
    metadata_url = reply.json['os-collect-config']['request']['metadata_url']
    derived = api.get(helpers.url(project, 'software_configs',
                                  '/' + deployment['config_id'])).json
    signal_url = {item['name']: item['value'] for item in
                  derived['software_config']['inputs']}['deploy_signal_id']
    return _local(metadata_url), _local(signal_url), deployment


def _bug(*_args, **_kwargs):
    raise KeyError('a bug')


def _database_down(*_args, **_kwargs):
    raise sa_exc.OperationalError('SELECT 1', {}, Exception('gone away'))


class _CrashingNotes(dict):
    def __setitem__(self, key, value):
        _bug()


@pytest.mark.parametrize('method', ['GET', 'HEAD'])
def test_a_crash_while_polling_is_a_500_error_body(
        inprocess_stack, agent_urls, monkeypatch, method):
    metadata_url, _, _ = agent_urls
    front = inprocess_stack.app.app
    assert isinstance(front, repeat_polls.RepeatPolls)
    assert inprocess_stack.request(method, metadata_url).status == 200
    monkeypatch.setattr(db_api, 'agent_server_document', _bug)
    # The document is held in memory now: crash there too, and where a
    # repeat poll is answered (repeat_polls).
    monkeypatch.setattr(metadata_cache.MetadataCache, 'get', _bug)
    monkeypatch.setattr(front, 'noted', _CrashingNotes())
    # The whole path (a read of the change log due), then the repeat
    # poll's.
    for read_due_at in (float('-inf'), float('inf')):
        monkeypatch.setattr(front.cache, 'read_due_at', read_due_at)
        reply = inprocess_stack.request(method, metadata_url)
        assert reply.status == 500
        assert reply.headers['x-openstack-request-id'].startswith('req-')
        if method == 'GET':
            error = assert_error(reply, 500, 'KeyError')
            assert 'message' not in error  # no internals without debug


@pytest.mark.parametrize('method', ['GET', 'HEAD'])
def test_a_lost_database_while_polling_is_a_503_to_retry(
        inprocess_stack, agent_urls, monkeypatch, method):
    metadata_url, _, _ = agent_urls
    monkeypatch.setattr(db_api, 'agent_server_document', _database_down)
    reply = inprocess_stack.request(method, metadata_url)
    assert reply.status == 503
    assert reply.headers['Retry-After'] == '5'
    if method == 'GET':
        error = assert_error(reply, 503, 'ServiceUnavailable')
        assert error['message'].startswith('The database is unavailable')


def test_a_domain_error_while_polling_keeps_its_status(
        inprocess_stack, agent_urls, monkeypatch):
    metadata_url, _, _ = agent_urls

    def unavailable(*_args, **_kwargs):
        raise exception.ServiceUnavailable(reason='database restarting')

    monkeypatch.setattr(db_api, 'agent_server_document', unavailable)
    error = assert_error(inprocess_stack.get(metadata_url), 503,
                         'ServiceUnavailable')
    assert 'database restarting' in error['message']


@pytest.mark.parametrize('failure, status', [(_bug, 500),
                                             (_database_down, 503)])
def test_a_failure_while_storing_a_signal_stores_nothing(
        inprocess_stack, agent_urls, monkeypatch, project, failure, status):
    _, signal_url, deployment = agent_urls
    monkeypatch.setattr(db_api, 'agent_signal_insert', failure)
    reply = inprocess_stack.put(signal_url, data=json.dumps({'r': 'x'}))
    assert_error(reply, status)
    monkeypatch.undo()
    shown = inprocess_stack.get(helpers.url(
        project, 'software_deployments', '/' + deployment['id'])).json
    assert shown['software_deployment']['status'] == 'IN_PROGRESS'
    # The same signal once the database is back: stored and answered.
    reply = inprocess_stack.put(signal_url, data=json.dumps({'r': 'x'}))
    assert reply.status == 200, reply.text
    assert isinstance(reply.json['signal'], int)


def test_refusals_answer_from_the_one_path(inprocess_stack, agent_urls):
    metadata_url, signal_url, _ = agent_urls
    for reply, status, error_type in (
            (inprocess_stack.get(metadata_url + 'x'), 403, 'Forbidden'),
            (inprocess_stack.put(signal_url + 'x', data='{}'), 403,
             'SignalRefused'),
            (inprocess_stack.put(signal_url, data='{no'), 400,
             'InvalidParameterValue'),
            (inprocess_stack.request('DELETE', signal_url), 405,
             'HTTPMethodNotAllowed')):
        assert_error(reply, status, error_type)
        assert reply.headers['x-openstack-request-id'].startswith('req-')
