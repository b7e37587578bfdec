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
from tests.functional.api.agent_helpers import config_ids_in
from tests.functional.api.agent_helpers import fetch_document
from tests.functional.api.agent_helpers import local_path
from tests.functional.api.agent_helpers import metadata_url_of
from tests.functional.api.agent_helpers import signal_url_of
from tests.functional.api.deployment_helpers import deploy_to
from tests.functional.api.deployment_helpers import deployments_url
from tests.functional.api.deployment_helpers import events_of
from tests.functional.api.deployment_helpers import get_config
from tests.functional.api.deployment_helpers import inputs_by_name
from tests.functional.api.deployment_helpers import poll_until
from tests.functional.api.deployment_helpers import script_config
from tests.functional.api.deployment_helpers import show_deployment
from tests.functional.api.deployment_helpers import wait_event
from tests.functional.api.deployment_helpers import wait_finished
from tests.functional.api.helpers import assert_error
from tests.functional.api.helpers import create_deployment

MAX_BODY = 1048576  # [api] max_json_body_size's default
RFC1123 = re.compile(r'^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d '
                     r'(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) '
                     r'\d{4} \d\d:\d\d:\d\d GMT$')
DEPLOY_INPUTS = ['deploy_server_id', 'deploy_action',
                 'deploy_signal_transport', 'deploy_signal_id',
                 'deploy_signal_verb']


# -- helpers ------------------------------------------------------------------

def _base_url(api: Any) -> str:
    # webtest's application URL, or the real server's.
    return getattr(api, 'base_url', 'http://localhost')


# -- server-side derivation ---------------------------------------------------

def test_heat_signal_derives_a_new_config(api, project):
    server = f'{project}-srv'
    source = script_config(api, project, name='src', inputs=[
        {'name': 'foo', 'default': 'dflt'},
        {'name': 'bar', 'type': 'Number'},
        {'name': 'baz', 'default': 'b'}])
    deployment = deploy_to(api, project, server, source['id'],
                           input_values={'bar': 7, 'extra': 'x', 'baz': 'B'},
                           action='CREATE', name='named')
    assert deployment['status'] == 'IN_PROGRESS'
    assert deployment['status_reason'] == 'Deploy data available'
    assert deployment['action'] == 'CREATE'
    assert deployment['input_values'] == {'bar': 7, 'extra': 'x', 'baz': 'B'}
    assert deployment['config_id'] != source['id']

    derived = get_config(api, project, deployment['config_id'])
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
    deploy = inputs_by_name(derived)
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
    assert get_config(api, project, source['id']) == source
    again = deploy_to(api, project, server, source['id'])
    assert again['config_id'] not in (source['id'], deployment['config_id'])
    assert again['action'] == 'CREATE'  # the default action


def test_no_signal_default_and_unknown_transports(api, project):
    server = f'{project}-srv'
    source = script_config(api, project)
    quiet = deploy_to(api, project, server, source['id'],
                      signal_transport='NO_SIGNAL', action='UPDATE')
    assert quiet['status'] == 'COMPLETE'
    assert quiet['status_reason'] == 'Not waiting for outputs signal'
    inputs = get_config(api, project, quiet['config_id'])['inputs']
    assert [item['name'] for item in inputs] == DEPLOY_INPUTS[:3]
    assert inputs[2]['value'] == 'NO_SIGNAL'
    assert inputs[1]['value'] == 'UPDATE'

    default = deploy_to(api, project, server, source['id'],
                        signal_transport='default')
    assert default['status'] == 'IN_PROGRESS'
    inputs = inputs_by_name(get_config(api, project, default['config_id']))
    assert inputs['deploy_signal_transport']['value'] == 'HEAT_SIGNAL'
    assert inputs['deploy_signal_verb']['value'] == 'PUT'

    configs_before = api.get(helpers.url(project, 'software_configs')).json
    other = f'{project}-other-srv'
    error = assert_error(api.post(deployments_url(project), json={
        'config_id': source['id'], 'server_id': other,
        'signal_transport': 'CFN_SIGNAL'}), 400, 'UnknownSignalTransport')
    assert 'CFN_SIGNAL' in error['message']
    assert 'HEAT_SIGNAL' in error['message']
    # Nothing written: no deployment, no derived config, no server claim.
    listed = api.get(deployments_url(project)).json['software_deployments']
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

    empty, empty_etag = fetch_document(api, url)
    assert empty['deployments'] == []
    assert empty['os-collect-config']['request']['metadata_url'] == url

    first = api.get(local_path(url))
    assert first.headers['Content-Type'].startswith('application/json')
    etag = first.headers['ETag']
    assert re.fullmatch(r'"[^"]+"', etag)
    last_modified = first.headers['Last-Modified']
    assert RFC1123.match(last_modified), last_modified
    assert email_utils.parsedate_to_datetime(last_modified).tzinfo
    assert api.get(local_path(url), headers={
        'If-None-Match': etag}).status == 304
    head = api.request('HEAD', local_path(url))
    assert head.status == 200 and head.text == ''
    assert head.headers['ETag'] == etag
    assert head.headers['Last-Modified'] == last_modified
    # Nothing changed: the same bytes, the same validators (agent-config
    # re-renders, but an unchanged document is not rewritten, so even a
    # second later Last-Modified has not moved).
    time.sleep(1.05)
    assert metadata_url_of(api, project, server) == url
    again = api.get(local_path(url))
    assert (again.text, again.headers['ETag'],
            again.headers['Last-Modified']) == (first.text, etag,
                                                last_modified)

    source = script_config(api, project, name='web')
    deployment = deploy_to(api, project, server, source['id'],
                           input_values={'x': 1})
    document, added_etag = fetch_document(api, url)
    assert added_etag != etag
    assert api.get(local_path(url), headers={
        'If-None-Match': etag}).status == 200
    assert api.get(local_path(url), headers={
        'If-None-Match': added_etag}).status == 304
    assert config_ids_in(document) == [deployment['config_id']]
    entry = document['deployments'][0]
    assert entry == get_config(api, project, deployment['config_id'])
    assert inputs_by_name(entry)['x']['value'] == 1
    assert document['os-collect-config']['request']['metadata_url'] == url

    assert api.delete(deployments_url(project, '/' + deployment['id'])
                      ).status == 204
    document, removed_etag = fetch_document(api, url)
    assert document['deployments'] == []
    assert removed_etag != added_etag


def test_metadata_bad_tokens_and_unknown_server(api, project):
    server = f'{project}-srv'
    url = metadata_url_of(api, project, server)
    other_url = metadata_url_of(api, project, f'{project}-srv2')
    path, _, token = local_path(url).partition('?token=')
    key_id, _, mac = token.partition('.')
    forged = mac[:-2] + ('AA' if not mac.endswith('AA') else 'BB')
    other_token = local_path(other_url).partition('?token=')[2]
    for query in ('', '?token=', '?token=garbage', f'?token={key_id}.',
                  f'?token={key_id}.{forged}', f'?token=nokey.{mac}',
                  f'?token={token[:-1]}', f'?token={other_token}'):
        reply = api.get(path + query)
        assert_error(reply, 403)
        assert api.request('HEAD', path + query).status == 403
    assert api.get(local_path(url)).status == 200
    error = assert_error(api.get(
        f'/agent/servers/{project}-nosuch/metadata?token={token}'), 404)
    assert f'{project}-nosuch' in error['message']


def test_a_verified_token_is_not_trusted_in_another_query(api, project):
    """A poll's verified token is remembered with its query string: any
    other query string has its token checked again."""
    url = metadata_url_of(api, project, f'{project}-srv')
    path, _, token = local_path(url).partition('?token=')
    assert api.get(local_path(url)).status == 200
    assert_error(api.get(f'{path}?token={token[:-1]}'), 403)
    assert_error(api.get(f'{path}?token={token}&token=garbage'), 403)
    assert api.request('HEAD', f'{path}?token={token}&x=1').status == 200
    assert api.get(f'{path}?x=1&token={token}').status == 200
    assert_error(api.get(f'{path}?token=garbage&x=1'), 403)
    assert api.get(local_path(url)).status == 200


def test_finished_one_off_action_leaves_the_document(api, project):
    server = f'{project}-srv'
    url = metadata_url_of(api, project, server)
    source = script_config(api, project, name=None)
    create = deploy_to(api, project, server, source['id'], name='b-create',
                       action='CREATE')
    backup = deploy_to(api, project, server, source['id'], name='a-backup',
                       action='BACKUP')
    unnamed = create_deployment(api, project, server_id=server,
                                config_id=source['id'], action='CREATE')
    document, _ = fetch_document(api, url)
    # Ordered by config name, the unnamed (raw) one first.
    assert config_ids_in(document) == [source['id'], backup['config_id'],
                                       create['config_id']]

    reply = api.put(local_path(signal_url_of(api, project, backup)),
                    data=json.dumps({'deploy_status_code': 0}))
    assert reply.status == 200, reply.text
    assert wait_finished(api, project, backup['id'])['status'] == 'COMPLETE'
    document = poll_until(
        lambda: fetch_document(api, url)[0],
        lambda doc: backup['config_id'] not in config_ids_in(doc),
        'the finished BACKUP to leave the document')
    assert config_ids_in(document) == [source['id'], create['config_id']]

    reply = api.put(local_path(signal_url_of(api, project, create)),
                    data=json.dumps({'deploy_status_code': 0}))
    assert reply.status == 200, reply.text
    assert wait_finished(api, project, create['id'])['status'] == 'COMPLETE'
    assert config_ids_in(fetch_document(api, url)[0]) == [source['id'],
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
        reply = api.put(local_path(signal_url_of(api, project, deployment)),
                        data=json.dumps({'deploy_status': 'IN_PROGRESS',
                                         'deploy_status_reason': barrier}))
        assert reply.status == 200, reply.text
        wait_event(api, project, deployment['id'], barrier)
        events = events_of(api, project, deployment['id'])
        assert [e['reason'] for e in events] == [
            e['reason'] for e in events_before[deployment['id']]] + [
            barrier]
        shown = show_deployment(api, project, deployment['id'])
        assert (shown['status'], shown['output_values']) == ('IN_PROGRESS',
                                                             None)


def test_signal_success_failure_and_error_output(api, project):
    server = f'{project}-srv'
    source = script_config(api, project)
    ok, failed, errored, post_ok = (
        deploy_to(api, project, server, source['id']) for _ in range(4))

    reply = api.put(local_path(signal_url_of(api, project, ok)),
                    data=json.dumps({
                        'result': 'fine', 'deploy_stdout': 'out',
                        'deploy_stderr': '', 'deploy_status_code': 0,
                        'undeclared': 'dropped'}))
    assert reply.status == 200, reply.text
    assert isinstance(reply.json['signal'], int)
    done = wait_finished(api, project, ok['id'])
    assert (done['status'], done['status_reason']) == ('COMPLETE',
                                                       'Outputs received')
    assert done['output_values'] == {
        'result': 'fine', 'deploy_stdout': 'out', 'deploy_stderr': '',
        'deploy_status_code': 0}

    reply = api.post(local_path(signal_url_of(api, project, failed)),
                     data=json.dumps({'deploy_status_code': 3,
                                      'deploy_stderr': 'boom'}))
    assert reply.status == 200, reply.text
    done = wait_finished(api, project, failed['id'])
    assert done['status'] == 'FAILED'
    assert done['status_reason'] == (
        'deploy_status_code : Deployment exited with non-zero status '
        'code: 3')
    assert done['output_values'] == {'deploy_stdout': None,
                                     'deploy_stderr': 'boom',
                                     'deploy_status_code': 3}

    reply = api.put(local_path(signal_url_of(api, project, errored)),
                    data=json.dumps({'err': 'disk full', 'result': 'half'}))
    assert reply.status == 200, reply.text
    done = wait_finished(api, project, errored['id'])
    assert (done['status'], done['status_reason']) == ('FAILED',
                                                       'err : disk full')
    assert done['output_values']['err'] == 'disk full'
    assert done['output_values']['result'] == 'half'

    reply = api.post(local_path(signal_url_of(api, project, post_ok)),
                     data=json.dumps({'result': 1}))
    assert reply.status == 200, reply.text
    assert wait_finished(api, project, post_ok['id'])['status'] == (
        'COMPLETE')


def test_signal_empty_bodies_and_heat_sized_bodies(api, project):
    """Signals up to Heat's body limit and a little past it are applied
    unchanged (agent signals have limits of their own: see
    test_signal_size.py)."""
    server = f'{project}-srv'
    source = script_config(api, project)
    null_body, empty_body, big, past_heat = (
        deploy_to(api, project, server, source['id']) for _ in range(4))
    nothing = {'deploy_stdout': None, 'deploy_stderr': None,
               'deploy_status_code': None}
    for deployment, data in ((null_body, 'null'), (empty_body, '{}')):
        reply = api.put(local_path(signal_url_of(api, project, deployment)),
                        data=data)
        assert reply.status == 200, reply.text
        done = wait_finished(api, project, deployment['id'])
        assert done['status'] == 'COMPLETE'
        assert done['output_values'] == nothing

    envelope = len(json.dumps({'deploy_stdout': ''}))
    stdout = 'x' * (MAX_BODY - 1 - envelope)
    data = json.dumps({'deploy_stdout': stdout})
    assert len(data) == MAX_BODY - 1
    reply = api.put(local_path(signal_url_of(api, project, big)), data=data)
    assert reply.status == 200, reply.text
    done = wait_finished(api, project, big['id'])
    assert done['status'] == 'COMPLETE'
    assert done['output_values']['deploy_stdout'] == stdout

    # Heat refuses this one (400): an agent signal is not held to the
    # REST API's body limit.
    stdout = 'y' * (MAX_BODY + 1 - envelope)
    data = json.dumps({'deploy_stdout': stdout})
    assert len(data) == MAX_BODY + 1
    reply = api.put(local_path(signal_url_of(api, project, past_heat)),
                    data=data)
    assert reply.status == 200, reply.text
    done = wait_finished(api, project, past_heat['id'])
    assert done['status'] == 'COMPLETE'
    assert done['output_values']['deploy_stdout'] == stdout


def test_progress_then_duplicate_signal(api, project):
    server = f'{project}-srv'
    source = script_config(api, project)
    deployment = deploy_to(api, project, server, source['id'])
    url = local_path(signal_url_of(api, project, deployment))

    reply = api.put(url, data=json.dumps({
        'deploy_status': 'IN_PROGRESS', 'deploy_status_reason': 'step 2/5'}))
    assert reply.status == 200, reply.text
    event = wait_event(api, project, deployment['id'], 'step 2/5')
    assert (event['old_status'], event['new_status']) == ('IN_PROGRESS',
                                                          'IN_PROGRESS')
    shown = show_deployment(api, project, deployment['id'])
    assert shown['status'] == 'IN_PROGRESS'
    assert shown['output_values'] is None

    assert api.put(url, data=json.dumps({'result': 'first'})).status == 200
    done = wait_finished(api, project, deployment['id'])
    assert done['output_values']['result'] == 'first'

    error = assert_error(api.put(url, data=json.dumps({
        'result': 'second', 'deploy_status_code': 1})), 403, 'SignalRefused')
    assert 'recorded, not applied' in error['message']
    event = wait_event(api, project, deployment['id'],
                       'Duplicate signal ignored')
    assert event['new_status'] == 'COMPLETE'
    assert show_deployment(api, project, deployment['id']) == done


def test_signal_url_must_match_deployment_and_revision(api, project):
    server = f'{project}-srv'
    source = script_config(api, project)
    first = deploy_to(api, project, server, source['id'])
    second = deploy_to(api, project, server, source['id'])
    url = local_path(signal_url_of(api, project, first))
    events = {d['id']: events_of(api, project, d['id'])
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
    source = script_config(api, project)
    deployment = deploy_to(api, project, server, source['id'])
    path = deployments_url(project, f'/{deployment["id"]}/signal')

    assert_error(api.post(path, json={'result': 'reader'},
                          headers={'X-Roles': 'reader'}), 403)
    assert_error(api.post(
        deployments_url(project + '-b', f'/{deployment["id"]}/signal'),
        json={'result': 'stranger'}), 404)

    # Signals of a deployment are applied in the order they were stored:
    # had a refused one been stored, it would have been applied first and
    # this one would be a recorded duplicate.
    reply = api.post(path, json={'result': 'r', 'deploy_status_code': 0})
    assert reply.status == 200, reply.text
    assert isinstance(reply.json['signal'], int)
    done = wait_finished(api, project, deployment['id'])
    assert done['status'] == 'COMPLETE'
    assert done['output_values']['result'] == 'r'
    reasons = [e['reason'] for e in events_of(api, project, deployment['id'])]
    assert reasons.count('Outputs received') == 1
    assert not [r for r in reasons if r.startswith(('Duplicate', 'Stale'))]


# -- ownership ----------------------------------------------------------------

def test_server_belongs_to_the_first_project(api, project):
    server = f'{project}-srv'
    owner_config = script_config(api, project)
    deploy_to(api, project, server, owner_config['id'])
    url = metadata_url_of(api, project, server)
    owner_document = api.get(local_path(url)).text

    intruder = project + '-b'
    config = script_config(api, intruder)
    for body in ({'signal_transport': 'HEAT_SIGNAL'}, {'action': 'CREATE'}):
        error = assert_error(api.post(deployments_url(intruder), json=dict(
            body, config_id=config['id'], server_id=server)), 403,
            'ServerOwnedByOtherProject')
        assert server in error['message']
    assert api.get(deployments_url(intruder)).json == {
        'software_deployments': []}
    configs = api.get(helpers.url(intruder, 'software_configs')).json
    assert [c['id'] for c in configs['software_configs']] == [config['id']]
    assert_error(api.get(helpers.url(intruder, 'servers',
                                     f'/{server}/agent-config')),
                 403, 'ServerOwnedByOtherProject')
    assert api.get(local_path(url)).text == owner_document


def test_back_to_back_signals_apply_exactly_once(api, project):
    server = f'{project}-srv'
    source = script_config(api, project)
    deployment = deploy_to(api, project, server, source['id'])
    url = local_path(signal_url_of(api, project, deployment))
    replies = [api.put(url, data=json.dumps({'result': n})) for n in (1, 2)]
    assert replies[0].status == 200, replies[0].text
    assert replies[1].status in (200, 403), replies[1].text
    done = wait_finished(api, project, deployment['id'])
    assert done['output_values']['result'] in (1, 2)
    wait_event(api, project, deployment['id'], 'Duplicate signal ignored')
    reasons = [e['reason'] for e in events_of(api, project, deployment['id'])]
    assert reasons.count('Outputs received') == 1
    assert len([r for r in reasons if r.startswith('Duplicate')]) == 1
    assert show_deployment(api, project, deployment['id']) == done


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
