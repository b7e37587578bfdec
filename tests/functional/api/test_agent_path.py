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

"""The agent path end to end, on every backend: server-side derivation
(doc/source/reference/derivation.rst), the signed per-server metadata document
(doc/source/reference/metadata.rst), signals through the signed URL and the
authenticated route (doc/source/reference/signals.rst), and server ownership.

Signals are applied asynchronously (the API stores, an engine applies), so
the scenarios poll for the outcome instead of sleeping blindly.
"""

from email import utils as email_utils
import json
import re
import time
from typing import Any
import urllib.parse

from tests.functional.api import helpers
from tests.functional.api.helpers import assert_error
from tests.functional.api.helpers import create_config
from tests.functional.api.helpers import create_deployment

POLL_SECONDS = 10
MAX_BODY = 1048576  # [api] max_json_body_size's default
RFC1123 = re.compile(r'^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d '
                     r'(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) '
                     r'\d{4} \d\d:\d\d:\d\d GMT$')
DEPLOY_INPUTS = ['deploy_server_id', 'deploy_action',
                 'deploy_signal_transport', 'deploy_signal_id',
                 'deploy_signal_verb']
OUTPUTS = [{'name': 'result'}, {'name': 'err', 'error_output': True}]


# -- helpers ------------------------------------------------------------------

def _deployments(project: str, suffix: str = '') -> str:
    return helpers.url(project, 'software_deployments', suffix)


def _base_url(api: Any) -> str:
    # webtest's application URL, or the real server's.
    return getattr(api, 'base_url', 'http://localhost')


def _local(url: str) -> str:
    """The path and query of an absolute URL, for the test client."""
    parts = urllib.parse.urlsplit(url)
    return f'{parts.path}?{parts.query}'


def _poll(fetch: Any, done: Any, what: str) -> Any:
    deadline = time.monotonic() + POLL_SECONDS
    while True:
        value = fetch()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out waiting for {what}: {value!r}')
        time.sleep(0.05)


def _show(api: Any, project: str, deployment_id: str) -> dict:
    reply = api.get(_deployments(project, '/' + deployment_id))
    assert reply.status == 200, reply.text
    return reply.json['software_deployment']


def _wait_finished(api: Any, project: str, deployment_id: str) -> dict:
    return _poll(lambda: _show(api, project, deployment_id),
                 lambda d: d['status'] != 'IN_PROGRESS',
                 f'deployment {deployment_id} to finish')


def _events(api: Any, project: str, deployment_id: str) -> list[dict]:
    reply = api.get(_deployments(project, f'/{deployment_id}/events'))
    assert reply.status == 200, reply.text
    return reply.json['events']


def _wait_event(api: Any, project: str, deployment_id: str,
                reason_start: str) -> dict:
    events = _poll(lambda: _events(api, project, deployment_id),
                   lambda evs: any((e['reason'] or '').startswith(
                       reason_start) for e in evs),
                   f'an event "{reason_start}..."')
    return [e for e in events if e['reason'].startswith(reason_start)][-1]


def _config(api: Any, project: str, **body: Any) -> dict:
    body.setdefault('outputs', OUTPUTS)
    body.setdefault('config', '#!/bin/sh\necho hi\n')
    return create_config(api, project, **body)


def _derived(api: Any, project: str, server: str, config_id: str,
             **body: Any) -> dict:
    body.setdefault('signal_transport', 'HEAT_SIGNAL')
    return create_deployment(api, project, server_id=server,
                             config_id=config_id, **body)


def _get_config(api: Any, project: str, config_id: str) -> dict:
    reply = api.get(helpers.url(project, 'software_configs', '/' + config_id))
    assert reply.status == 200, reply.text
    return reply.json['software_config']


def _inputs(config: dict) -> dict:
    return {item['name']: item for item in config['inputs']}


def _signal_url(api: Any, project: str, deployment: dict) -> str:
    derived = _get_config(api, project, deployment['config_id'])
    return _inputs(derived)['deploy_signal_id']['value']


def _metadata_url(api: Any, project: str, server: str) -> str:
    reply = api.get(helpers.url(project, 'servers', f'/{server}/agent-config'))
    assert reply.status == 200, reply.text
    return reply.json['os-collect-config']['request']['metadata_url']


def _document(api: Any, metadata_url: str) -> tuple[dict, str]:
    reply = api.get(_local(metadata_url))
    assert reply.status == 200, reply.text
    return reply.json, reply.headers['ETag']


def _config_ids(document: dict) -> list[str]:
    return [entry['id'] for entry in document['deployments']]


# -- server-side derivation ---------------------------------------------------

def test_heat_signal_derives_a_new_config(api, project):
    server = f'{project}-srv'
    source = _config(api, project, name='src', inputs=[
        {'name': 'foo', 'default': 'dflt'},
        {'name': 'bar', 'type': 'Number'},
        {'name': 'baz', 'default': 'b'}])
    deployment = _derived(api, project, server, source['id'],
                          input_values={'bar': 7, 'extra': 'x', 'baz': 'B'},
                          action='CREATE', name='named')
    assert deployment['status'] == 'IN_PROGRESS'
    assert deployment['status_reason'] == 'Deploy data available'
    assert deployment['action'] == 'CREATE'
    assert deployment['input_values'] == {'bar': 7, 'extra': 'x', 'baz': 'B'}
    assert deployment['config_id'] != source['id']

    derived = _get_config(api, project, deployment['config_id'])
    assert (derived['name'], derived['group']) == ('named', 'script')
    assert derived['config'] == source['config']
    assert derived['outputs'] == source['outputs']
    names = [item['name'] for item in derived['inputs']]
    assert names == ['foo', 'bar', 'baz', 'extra'] + DEPLOY_INPUTS
    declared = source['inputs']
    assert derived['inputs'][:3] == [dict(declared[0], value='dflt'),
                                     dict(declared[1], value=7),
                                     dict(declared[2], value='B')]
    assert derived['inputs'][3] == {'name': 'extra', 'type': 'String',
                                    'value': 'x'}
    deploy = _inputs(derived)
    assert all(deploy[name]['type'] == 'String' for name in DEPLOY_INPUTS)
    assert deploy['deploy_server_id']['value'] == server
    assert deploy['deploy_action']['value'] == 'CREATE'
    assert deploy['deploy_signal_transport']['value'] == 'HEAT_SIGNAL'
    assert deploy['deploy_signal_verb']['value'] == 'PUT'
    signal_url = deploy['deploy_signal_id']['value']
    parts = urllib.parse.urlsplit(signal_url)
    assert signal_url.startswith(_base_url(api) + '/')
    assert parts.path == f'/agent/deployments/{deployment["id"]}/signal'
    query = urllib.parse.parse_qs(parts.query)
    assert query['revision'] == ['1'] and query['token'][0]

    # The source config itself is untouched; a second deployment of it
    # gets a config of its own.
    assert _get_config(api, project, source['id']) == source
    again = _derived(api, project, server, source['id'])
    assert again['config_id'] not in (source['id'], deployment['config_id'])
    assert again['action'] == 'CREATE'  # the default action


def test_no_signal_default_and_unknown_transports(api, project):
    server = f'{project}-srv'
    source = _config(api, project)
    quiet = _derived(api, project, server, source['id'],
                     signal_transport='NO_SIGNAL', action='UPDATE')
    assert quiet['status'] == 'COMPLETE'
    assert quiet['status_reason'] == 'Not waiting for outputs signal'
    inputs = _get_config(api, project, quiet['config_id'])['inputs']
    assert [item['name'] for item in inputs] == DEPLOY_INPUTS[:3]
    assert inputs[2]['value'] == 'NO_SIGNAL'
    assert inputs[1]['value'] == 'UPDATE'

    default = _derived(api, project, server, source['id'],
                       signal_transport='default')
    assert default['status'] == 'IN_PROGRESS'
    inputs = _inputs(_get_config(api, project, default['config_id']))
    assert inputs['deploy_signal_transport']['value'] == 'HEAT_SIGNAL'
    assert inputs['deploy_signal_verb']['value'] == 'PUT'

    configs_before = api.get(helpers.url(project, 'software_configs')).json
    other = f'{project}-other-srv'
    error = assert_error(api.post(_deployments(project), json={
        'config_id': source['id'], 'server_id': other,
        'signal_transport': 'CFN_SIGNAL'}), 400, 'UnknownSignalTransport')
    assert 'CFN_SIGNAL' in error['message']
    assert 'HEAT_SIGNAL' in error['message']
    # Nothing written: no deployment, no derived config, no server claim.
    listed = api.get(_deployments(project)).json['software_deployments']
    assert [d['id'] for d in listed] == [quiet['id'], default['id']]
    assert api.get(helpers.url(project, 'software_configs')).json == (
        configs_before)
    stranger = project + '-b'
    assert api.get(helpers.url(stranger, 'servers',
                               f'/{other}/agent-config')).status == 200


# -- the agent's metadata document --------------------------------------------

def test_metadata_document_validators_and_changes(api, project):
    server = f'{project}-srv'
    reply = api.get(helpers.url(project, 'servers', f'/{server}/agent-config'))
    assert reply.status == 200, reply.text
    agent_config = reply.json
    url = agent_config['os-collect-config']['request']['metadata_url']
    assert agent_config['server_id'] == server
    assert agent_config['os-collect-config']['collectors'] == ['request']
    assert url.startswith(
        f'{_base_url(api)}/agent/servers/{server}/metadata?token=')
    assert f'metadata_url = {url}\n' in agent_config['os_collect_config_conf']

    empty, empty_etag = _document(api, url)
    assert empty['deployments'] == []
    assert empty['os-collect-config']['request']['metadata_url'] == url

    first = api.get(_local(url))
    assert first.headers['Content-Type'].startswith('application/json')
    etag = first.headers['ETag']
    assert re.fullmatch(r'"[^"]+"', etag)
    last_modified = first.headers['Last-Modified']
    assert RFC1123.match(last_modified), last_modified
    assert email_utils.parsedate_to_datetime(last_modified).tzinfo
    assert api.get(_local(url), headers={
        'If-None-Match': etag}).status == 304
    head = api.request('HEAD', _local(url))
    assert head.status == 200 and head.text == ''
    assert head.headers['ETag'] == etag
    assert head.headers['Last-Modified'] == last_modified
    # Nothing changed: the same bytes, the same validators (agent-config
    # re-renders, but an unchanged document is not rewritten, so even a
    # second later Last-Modified has not moved).
    time.sleep(1.05)
    assert _metadata_url(api, project, server) == url
    again = api.get(_local(url))
    assert (again.text, again.headers['ETag'],
            again.headers['Last-Modified']) == (first.text, etag,
                                                last_modified)

    source = _config(api, project, name='web')
    deployment = _derived(api, project, server, source['id'],
                          input_values={'x': 1})
    document, added_etag = _document(api, url)
    assert added_etag != etag
    assert api.get(_local(url), headers={
        'If-None-Match': etag}).status == 200
    assert api.get(_local(url), headers={
        'If-None-Match': added_etag}).status == 304
    assert _config_ids(document) == [deployment['config_id']]
    entry = document['deployments'][0]
    assert entry == _get_config(api, project, deployment['config_id'])
    assert _inputs(entry)['x']['value'] == 1
    assert document['os-collect-config']['request']['metadata_url'] == url

    assert api.delete(_deployments(project, '/' + deployment['id'])
                      ).status == 204
    document, removed_etag = _document(api, url)
    assert document['deployments'] == []
    assert removed_etag != added_etag


def test_metadata_bad_tokens_and_unknown_server(api, project):
    server = f'{project}-srv'
    url = _metadata_url(api, project, server)
    other_url = _metadata_url(api, project, f'{project}-srv2')
    path, _, token = _local(url).partition('?token=')
    key_id, _, mac = token.partition('.')
    forged = mac[:-2] + ('AA' if not mac.endswith('AA') else 'BB')
    other_token = _local(other_url).partition('?token=')[2]
    for query in ('', '?token=', '?token=garbage', f'?token={key_id}.',
                  f'?token={key_id}.{forged}', f'?token=nokey.{mac}',
                  f'?token={token[:-1]}', f'?token={other_token}'):
        reply = api.get(path + query)
        assert_error(reply, 403)
        assert api.request('HEAD', path + query).status == 403
    assert api.get(_local(url)).status == 200
    error = assert_error(api.get(
        f'/agent/servers/{project}-nosuch/metadata?token={token}'), 404)
    assert f'{project}-nosuch' in error['message']


def test_a_verified_token_is_not_trusted_in_another_query(api, project):
    """A poll's verified token is remembered with its query string: any
    other query string has its token checked again."""
    url = _metadata_url(api, project, f'{project}-srv')
    path, _, token = _local(url).partition('?token=')
    assert api.get(_local(url)).status == 200
    assert_error(api.get(f'{path}?token={token[:-1]}'), 403)
    assert_error(api.get(f'{path}?token={token}&token=garbage'), 403)
    assert api.request('HEAD', f'{path}?token={token}&x=1').status == 200
    assert api.get(f'{path}?x=1&token={token}').status == 200
    assert_error(api.get(f'{path}?token=garbage&x=1'), 403)
    assert api.get(_local(url)).status == 200


def test_finished_one_off_action_leaves_the_document(api, project):
    server = f'{project}-srv'
    url = _metadata_url(api, project, server)
    source = _config(api, project, name=None)
    create = _derived(api, project, server, source['id'], name='b-create',
                      action='CREATE')
    backup = _derived(api, project, server, source['id'], name='a-backup',
                      action='BACKUP')
    unnamed = create_deployment(api, project, server_id=server,
                                config_id=source['id'], action='CREATE')
    document, _ = _document(api, url)
    # Ordered by config name, the unnamed (raw) one first.
    assert _config_ids(document) == [source['id'], backup['config_id'],
                                     create['config_id']]

    reply = api.put(_local(_signal_url(api, project, backup)),
                    data=json.dumps({'deploy_status_code': 0}))
    assert reply.status == 200, reply.text
    assert _wait_finished(api, project, backup['id'])['status'] == 'COMPLETE'
    document = _poll(lambda: _document(api, url)[0],
                     lambda doc: backup['config_id'] not in _config_ids(doc),
                     'the finished BACKUP to leave the document')
    assert _config_ids(document) == [source['id'], create['config_id']]

    reply = api.put(_local(_signal_url(api, project, create)),
                    data=json.dumps({'deploy_status_code': 0}))
    assert reply.status == 200, reply.text
    assert _wait_finished(api, project, create['id'])['status'] == 'COMPLETE'
    assert _config_ids(_document(api, url)[0]) == [source['id'],
                                                   create['config_id']]
    assert unnamed['status'] is None


# -- signals ------------------------------------------------------------------

def _assert_nothing_stored(api: Any, project: str, deployments: Any,
                           events_before: dict[str, list]) -> None:
    """No signal was stored for ``deployments`` since ``events_before``
    was read: a progress signal sent now is applied after any signal
    stored before it (in order, per deployment), so once its event is
    there, an erroneously stored one would have left its own event (or
    finished the deployment) too."""
    for deployment in deployments:
        barrier = f'barrier {deployment["id"]}'
        reply = api.put(_local(_signal_url(api, project, deployment)),
                        data=json.dumps({'deploy_status': 'IN_PROGRESS',
                                         'deploy_status_reason': barrier}))
        assert reply.status == 200, reply.text
        _wait_event(api, project, deployment['id'], barrier)
        events = _events(api, project, deployment['id'])
        assert [e['reason'] for e in events] == [
            e['reason'] for e in events_before[deployment['id']]] + [
            barrier]
        shown = _show(api, project, deployment['id'])
        assert (shown['status'], shown['output_values']) == ('IN_PROGRESS',
                                                             None)


def test_signal_success_failure_and_error_output(api, project):
    server = f'{project}-srv'
    source = _config(api, project)
    ok, failed, errored, post_ok = (
        _derived(api, project, server, source['id']) for _ in range(4))

    reply = api.put(_local(_signal_url(api, project, ok)), data=json.dumps({
        'result': 'fine', 'deploy_stdout': 'out', 'deploy_stderr': '',
        'deploy_status_code': 0, 'undeclared': 'dropped'}))
    assert reply.status == 200, reply.text
    assert isinstance(reply.json['signal'], int)
    done = _wait_finished(api, project, ok['id'])
    assert (done['status'], done['status_reason']) == ('COMPLETE',
                                                       'Outputs received')
    assert done['output_values'] == {
        'result': 'fine', 'deploy_stdout': 'out', 'deploy_stderr': '',
        'deploy_status_code': 0}

    reply = api.post(_local(_signal_url(api, project, failed)),
                     data=json.dumps({'deploy_status_code': 3,
                                      'deploy_stderr': 'boom'}))
    assert reply.status == 200, reply.text
    done = _wait_finished(api, project, failed['id'])
    assert done['status'] == 'FAILED'
    assert done['status_reason'] == (
        'deploy_status_code : Deployment exited with non-zero status '
        'code: 3')
    assert done['output_values'] == {'deploy_stdout': None,
                                     'deploy_stderr': 'boom',
                                     'deploy_status_code': 3}

    reply = api.put(_local(_signal_url(api, project, errored)),
                    data=json.dumps({'err': 'disk full', 'result': 'half'}))
    assert reply.status == 200, reply.text
    done = _wait_finished(api, project, errored['id'])
    assert (done['status'], done['status_reason']) == ('FAILED',
                                                       'err : disk full')
    assert done['output_values']['err'] == 'disk full'
    assert done['output_values']['result'] == 'half'

    reply = api.post(_local(_signal_url(api, project, post_ok)),
                     data=json.dumps({'result': 1}))
    assert reply.status == 200, reply.text
    assert _wait_finished(api, project, post_ok['id'])['status'] == (
        'COMPLETE')


def test_signal_empty_bodies_and_heat_sized_bodies(api, project):
    """Signals up to Heat's body limit and a little past it are applied
    unchanged (agent signals have limits of their own: see
    test_signal_size.py)."""
    server = f'{project}-srv'
    source = _config(api, project)
    null_body, empty_body, big, past_heat = (
        _derived(api, project, server, source['id']) for _ in range(4))
    nothing = {'deploy_stdout': None, 'deploy_stderr': None,
               'deploy_status_code': None}
    for deployment, data in ((null_body, 'null'), (empty_body, '{}')):
        reply = api.put(_local(_signal_url(api, project, deployment)),
                        data=data)
        assert reply.status == 200, reply.text
        done = _wait_finished(api, project, deployment['id'])
        assert done['status'] == 'COMPLETE'
        assert done['output_values'] == nothing

    envelope = len(json.dumps({'deploy_stdout': ''}))
    stdout = 'x' * (MAX_BODY - 1 - envelope)
    data = json.dumps({'deploy_stdout': stdout})
    assert len(data) == MAX_BODY - 1
    reply = api.put(_local(_signal_url(api, project, big)), data=data)
    assert reply.status == 200, reply.text
    done = _wait_finished(api, project, big['id'])
    assert done['status'] == 'COMPLETE'
    assert done['output_values']['deploy_stdout'] == stdout

    # Heat refuses this one (400): an agent signal is not held to the
    # REST API's body limit.
    stdout = 'y' * (MAX_BODY + 1 - envelope)
    data = json.dumps({'deploy_stdout': stdout})
    assert len(data) == MAX_BODY + 1
    reply = api.put(_local(_signal_url(api, project, past_heat)), data=data)
    assert reply.status == 200, reply.text
    done = _wait_finished(api, project, past_heat['id'])
    assert done['status'] == 'COMPLETE'
    assert done['output_values']['deploy_stdout'] == stdout


def test_progress_then_duplicate_signal(api, project):
    server = f'{project}-srv'
    source = _config(api, project)
    deployment = _derived(api, project, server, source['id'])
    url = _local(_signal_url(api, project, deployment))

    reply = api.put(url, data=json.dumps({
        'deploy_status': 'IN_PROGRESS', 'deploy_status_reason': 'step 2/5'}))
    assert reply.status == 200, reply.text
    event = _wait_event(api, project, deployment['id'], 'step 2/5')
    assert (event['old_status'], event['new_status']) == ('IN_PROGRESS',
                                                          'IN_PROGRESS')
    shown = _show(api, project, deployment['id'])
    assert shown['status'] == 'IN_PROGRESS'
    assert shown['output_values'] is None

    assert api.put(url, data=json.dumps({'result': 'first'})).status == 200
    done = _wait_finished(api, project, deployment['id'])
    assert done['output_values']['result'] == 'first'

    error = assert_error(api.put(url, data=json.dumps({
        'result': 'second', 'deploy_status_code': 1})), 403, 'SignalRefused')
    assert 'recorded, not applied' in error['message']
    event = _wait_event(api, project, deployment['id'],
                        'Duplicate signal ignored')
    assert event['new_status'] == 'COMPLETE'
    assert _show(api, project, deployment['id']) == done


def test_signal_url_must_match_deployment_and_revision(api, project):
    server = f'{project}-srv'
    source = _config(api, project)
    first = _derived(api, project, server, source['id'])
    second = _derived(api, project, server, source['id'])
    url = _local(_signal_url(api, project, first))
    events = {d['id']: _events(api, project, d['id'])
              for d in (first, second)}
    token = url.partition('&token=')[2]
    refused = (
        url.replace('revision=1', 'revision=2'),
        url.replace('revision=1', 'revision=x'),
        url.replace(first['id'], second['id']),
        url.replace(f'&token={token}', ''),
        url.replace(f'&token={token}', f'&token={token[:-3]}'),
    )
    for bad in refused:
        assert_error(api.put(bad, data='{}'), 403, 'SignalRefused')
    assert_error(api.put(url.replace(first['id'], project + '-nosuch'),
                         data='{}'), 404)
    assert_error(api.request('GET', url), 405)
    assert_error(api.put(url, data='{not json'), 400)
    _assert_nothing_stored(api, project, (first, second), events)


def test_authenticated_signal(api, project):
    server = f'{project}-srv'
    source = _config(api, project)
    deployment = _derived(api, project, server, source['id'])
    path = _deployments(project, f'/{deployment["id"]}/signal')

    assert_error(api.post(path, json={'result': 'reader'},
                          headers={'X-Roles': 'reader'}), 403)
    assert_error(api.post(
        _deployments(project + '-b', f'/{deployment["id"]}/signal'),
        json={'result': 'stranger'}), 404)

    # Signals of a deployment are applied in the order they were stored:
    # had a refused one been stored, it would have been applied first and
    # this one would be a recorded duplicate.
    reply = api.post(path, json={'result': 'r', 'deploy_status_code': 0})
    assert reply.status == 200, reply.text
    assert isinstance(reply.json['signal'], int)
    done = _wait_finished(api, project, deployment['id'])
    assert done['status'] == 'COMPLETE'
    assert done['output_values']['result'] == 'r'
    reasons = [e['reason'] for e in _events(api, project, deployment['id'])]
    assert reasons.count('Outputs received') == 1
    assert not [r for r in reasons if r.startswith(('Duplicate', 'Stale'))]


# -- ownership ----------------------------------------------------------------

def test_server_belongs_to_the_first_project(api, project):
    server = f'{project}-srv'
    owner_config = _config(api, project)
    _derived(api, project, server, owner_config['id'])
    url = _metadata_url(api, project, server)
    owner_document = api.get(_local(url)).text

    intruder = project + '-b'
    config = _config(api, intruder)
    for body in ({'signal_transport': 'HEAT_SIGNAL'}, {'action': 'CREATE'}):
        error = assert_error(api.post(_deployments(intruder), json=dict(
            body, config_id=config['id'], server_id=server)), 403,
            'ServerOwnedByOtherProject')
        assert server in error['message']
    assert api.get(_deployments(intruder)).json == {
        'software_deployments': []}
    configs = api.get(helpers.url(intruder, 'software_configs')).json
    assert [c['id'] for c in configs['software_configs']] == [config['id']]
    assert_error(api.get(helpers.url(intruder, 'servers',
                                     f'/{server}/agent-config')),
                 403, 'ServerOwnedByOtherProject')
    assert api.get(_local(url)).text == owner_document


def test_back_to_back_signals_apply_exactly_once(api, project):
    server = f'{project}-srv'
    source = _config(api, project)
    deployment = _derived(api, project, server, source['id'])
    url = _local(_signal_url(api, project, deployment))
    replies = [api.put(url, data=json.dumps({'result': n})) for n in (1, 2)]
    assert replies[0].status == 200, replies[0].text
    assert replies[1].status in (200, 403), replies[1].text
    done = _wait_finished(api, project, deployment['id'])
    assert done['output_values']['result'] in (1, 2)
    _wait_event(api, project, deployment['id'], 'Duplicate signal ignored')
    reasons = [e['reason'] for e in _events(api, project, deployment['id'])]
    assert reasons.count('Outputs received') == 1
    assert len([r for r in reasons if r.startswith('Duplicate')]) == 1
    assert _show(api, project, deployment['id']) == done


def test_malformed_agent_urls_are_client_errors(api, project):
    """Never a 500 (doc/source/reference/rest-rules.rst): ids no server can
    have (NUL, which
    PostgreSQL cannot even compare, or bytes that are not UTF-8) are simply
    not found; an over-long server id cannot be claimed (400, as for a
    deployment's server_id). All cases are checked before failing."""
    long_id = 's' * 256
    cases = [
        ('GET', '/agent/servers/abc%00/metadata?token=x', (400, 404)),
        ('GET', '/agent/servers/%ff/metadata?token=x', (400, 404)),
        ('PUT', '/agent/deployments/abc%00/signal?revision=1&token=x',
         (400, 404)),
        ('PUT', '/agent/deployments/%ff/signal?revision=1&token=x',
         (400, 404)),
        ('GET', helpers.url(project, 'servers', f'/{long_id}/agent-config'),
         (400,)),
        ('GET', helpers.url(project, 'servers',
                            f'/{project}{"s" * (255 - len(project))}'
                            f'/agent-config'), (200,)),
    ]
    wrong = []
    for method, path, statuses in cases:
        reply = api.request(method, path, data='{}' if method == 'PUT'
                            else None)
        if reply.status not in statuses or (
                reply.status >= 400 and set(reply.json) != {
                    'code', 'title', 'explanation', 'error'}):
            error = (reply.json or {}).get('error') or {}
            wrong.append(f'{method} {path[:50]} -> {reply.status} '
                         f'{error.get("type")}')
    assert not wrong, '; '.join(wrong)
