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

"""Components with full lifecycles, triggered actions, outputs, cancel
and long polls (``?wait=N``), on every backend."""

import json
import threading
import time
from typing import Any

from tests.fixtures import waiting
from tests.functional.api import helpers
from tests.functional.api.agent_helpers import config_ids_in
from tests.functional.api.agent_helpers import fetch_document
from tests.functional.api.agent_helpers import local_path
from tests.functional.api.agent_helpers import metadata_url_of
from tests.functional.api.agent_helpers import signal_url_of
from tests.functional.api.deployment_helpers import COMPONENT_ENTRIES
from tests.functional.api.deployment_helpers import complete
from tests.functional.api.deployment_helpers import create_component
from tests.functional.api.deployment_helpers import deploy_to
from tests.functional.api.deployment_helpers import deployments_url
from tests.functional.api.deployment_helpers import events_of
from tests.functional.api.deployment_helpers import get_config
from tests.functional.api.deployment_helpers import inputs_by_name
from tests.functional.api.deployment_helpers import own_client
from tests.functional.api.deployment_helpers import poll_until
from tests.functional.api.deployment_helpers import post_trigger
from tests.functional.api.deployment_helpers import show_deployment
from tests.functional.api.deployment_helpers import signal_deployment
from tests.functional.api.deployment_helpers import wait_event
from tests.functional.api.helpers import assert_error

WAITERS = 24


def _derived_of(api: Any, project: str, deployment: dict) -> dict:
    return get_config(api, project, deployment['config_id'])


# -- component configs -------------------------------------------------------

def test_component_configs_are_validated(api, project):
    configs = helpers.url(project, 'software_configs')
    bad = {
        'duplicate action': [{'actions': ['CREATE'], 'tool': 'script'},
                             {'actions': ['CREATE'], 'tool': 'puppet'}],
        'default actions twice': [{'tool': 'script'},
                                  {'actions': ['UPDATE'], 'tool': 'x'}],
        'no tool': [{'actions': ['CREATE'], 'config': 'x'}],
        'no entry': [],
    }
    for case, entries in bad.items():
        reply = api.post(configs, json={'name': 'c', 'group': 'component',
                                        'config': {'configs': entries}})
        error = assert_error(reply, 400)
        assert 'component' in error['message'].lower() or (
            'configuration' in error['message']), (case, error)
    error = assert_error(api.post(configs, json={
        'name': 'c', 'group': 'component', 'config': 'echo'}), 400)
    assert 'at least one entry' in error['message']
    duplicate = assert_error(api.post(configs, json={
        'name': 'dup', 'group': 'component',
        'config': {'configs': bad['duplicate action']}}), 400)
    assert duplicate['message'].endswith(
        'Defining more than one configuration for the same action in '
        'SoftwareComponent "dup" is not allowed.')
    assert create_component(api, project)['group'] == 'component'


def test_validate_checks_components_the_same_way(api, project):
    def template(entries):
        return {'template': {'heat_template_version': '2013-05-23',
                             'resources': {'comp': {
                                 'type': 'OS::Heat::SoftwareComponent',
                                 'properties': {'configs': entries}}}}}

    validate = helpers.url(project, 'validate')
    reply = api.post(validate, json=template(COMPONENT_ENTRIES))
    assert reply.status == 200, reply.text
    error = assert_error(api.post(validate, json=template(
        [{'tool': 'script'}, {'actions': ['CREATE'], 'tool': 'x'}])), 400)
    assert error['message'].endswith(
        'Defining more than one configuration for the same action in '
        'SoftwareComponent "comp" is not allowed.')


# -- lifecycle actions -------------------------------------------------------

def test_lifecycle_actions_run_their_entries(api, project):
    server = f'{project}-srv'
    metadata_url = metadata_url_of(api, project, server)
    source = create_component(api, project)
    deployment = deploy_to(api, project, server, source['id'],
                           input_values={'target': '/data'})
    derived = _derived_of(api, project, deployment)
    assert (derived['group'], derived['config']) == (
        'script', '#!/bin/sh\necho create\n')
    assert inputs_by_name(derived)['deploy_action']['value'] == 'CREATE'
    complete(api, project, deployment['id'], result='created')
    first_url = signal_url_of(api, project, deployment)

    reply = api.post(deployments_url(project, f'/{deployment["id"]}/actions'),
                     json={'action': 'SUSPEND'})
    assert reply.status == 200, reply.text
    suspended = reply.json['software_deployment']
    assert (suspended['action'], suspended['status']) == (
        'SUSPEND', 'IN_PROGRESS')
    derived = _derived_of(api, project, suspended)
    assert (derived['group'], derived['config']) == ('script', 'suspend')
    assert inputs_by_name(derived)['target']['value'] == '/data'
    document, _ = fetch_document(api, metadata_url)
    assert config_ids_in(document) == [suspended['config_id']]
    # The former action's signal URL is stale now.
    stale = api.put(local_path(first_url), data=json.dumps({'result': 'x'}))
    assert_error(stale, 403, 'SignalRefused')
    complete(api, project, deployment['id'])

    # No entry serves RESUME: nothing runs, it completes at once.
    reply = api.post(deployments_url(project, f'/{deployment["id"]}/actions'),
                     json={'action': 'RESUME'})
    assert reply.status == 200, reply.text
    resumed = reply.json['software_deployment']
    assert (resumed['action'], resumed['status'],
            resumed['status_reason']) == (
        'RESUME', 'COMPLETE', 'No configuration for action RESUME in '
                              'component db; nothing to run.')

    assert_error(api.post(
        deployments_url(project, f'/{deployment["id"]}/actions'),
        json={'action': 'bad action'}), 400)
    assert_error(api.post(deployments_url(project, '/missing/actions'),
                          json={'action': 'SUSPEND'}), 404)


def test_actions_need_a_server_derived_deployment(api, project):
    server = f'{project}-srv'
    config = helpers.create_config(api, project, config='echo')
    raw = helpers.create_deployment(api, project, server_id=server,
                                    config_id=config['id'],
                                    action='CREATE', status='IN_PROGRESS')
    error = assert_error(api.post(
        deployments_url(project, f'/{raw["id"]}/actions'),
        json={'action': 'SUSPEND'}), 400)
    assert 'derived by its client' in error['message']
    assert_error(post_trigger(api, project, raw['id'], action='BACKUP'), 400)


def test_delete_runs_the_delete_entry_first(api, project):
    server = f'{project}-srv'
    source = create_component(api, project)
    deployment = deploy_to(api, project, server, source['id'])
    complete(api, project, deployment['id'])

    reply = api.delete(deployments_url(project, f'/{deployment["id"]}'))
    assert reply.status == 202, reply.text
    deleting = reply.json['software_deployment']
    assert (deleting['action'], deleting['status']) == (
        'DELETE', 'IN_PROGRESS')
    assert _derived_of(api, project, deleting)['config'] == 'delete'
    assert show_deployment(api, project, deployment['id'])['action'] == (
        'DELETE')

    signal_deployment(api, project, deployment['id'], deploy_status_code=0)
    poll_until(lambda: api.get(
        deployments_url(project, f'/{deployment["id"]}')).status,
        lambda status: status == 404, 'the deployment to go')
    assert_error(api.get(helpers.url(project, 'software_configs',
                                     '/' + deleting['config_id'])), 404)

    # Without a DELETE entry the delete is immediate, as in Heat.
    plain = create_component(api, project, COMPONENT_ENTRIES[:2], name='plain')
    other = deploy_to(api, project, server, plain['id'])
    reply = api.delete(deployments_url(project, f'/{other["id"]}'))
    assert reply.status == 204, reply.text
    assert_error(api.get(deployments_url(project, f'/{other["id"]}')), 404)


def test_a_failed_delete_entry_still_deletes(api, project):
    server = f'{project}-srv'
    source = create_component(api, project)
    deployment = deploy_to(api, project, server, source['id'])
    reply = api.post(deployments_url(project, f'/{deployment["id"]}/actions'),
                     json={'action': 'DELETE'})
    assert reply.status == 200, reply.text
    assert reply.json['software_deployment']['action'] == 'DELETE'
    signal_deployment(api, project, deployment['id'], deploy_status_code=3)
    poll_until(lambda: api.get(
        deployments_url(project, f'/{deployment["id"]}')).status,
        lambda status: status == 404, 'the deployment to go')


# -- triggers ----------------------------------------------------------------

def test_trigger_runs_one_entry_as_a_new_deployment(api, project):
    server = f'{project}-srv'
    metadata_url = metadata_url_of(api, project, server)
    source = create_component(api, project)
    original = deploy_to(api, project, server, source['id'],
                         input_values={'target': '/data', 'keep': 'me'})
    original = complete(api, project, original['id'], result='created')

    reply = post_trigger(api, project, original['id'], key='backup-1',
                         action='BACKUP', input_values={'target': '/backup'})
    assert reply.status == 201, reply.text
    trigger = reply.json['software_deployment']
    assert trigger['id'] != original['id']
    assert (trigger['server_id'], trigger['action'], trigger['status']) == (
        server, 'BACKUP', 'IN_PROGRESS')
    assert trigger['input_values'] == {'target': '/backup', 'keep': 'me'}
    derived = _derived_of(api, project, trigger)
    assert (derived['name'], derived['group'], derived['config']) == (
        'db-BACKUP', 'ansible', 'backup')
    assert inputs_by_name(derived)['deploy_action']['value'] == 'BACKUP'
    assert show_deployment(api, project, original['id']) == original
    document, _ = fetch_document(api, metadata_url)
    assert config_ids_in(document) == [original['config_id'],
                                       trigger['config_id']]

    # The same key and request: the same trigger deployment, no new run.
    again = post_trigger(api, project, original['id'], key='backup-1',
                         action='BACKUP', input_values={'target': '/backup'})
    assert again.status == 200, again.text
    assert again.json['software_deployment']['id'] == trigger['id']
    listed = api.get(deployments_url(project, f'?server_id={server}')).json
    assert len(listed['software_deployments']) == 2
    # The same key for another request: refused.
    error = assert_error(post_trigger(api, project, original['id'],
                                      key='backup-1', action='BACKUP',
                                      input_values={'target': '/other'}),
                         422, 'IdempotencyKeyReused')
    assert 'backup-1' in error['message']

    # Once finished, the one-off action leaves the server's document. The
    # engine renders it just after the signal's transaction commits, and
    # the agent path may serve it up to [api] metadata_cache_freshness
    # later.
    done = complete(api, project, trigger['id'], result='saved')
    assert done['output_values']['result'] == 'saved'
    waiting.wait_for(
        lambda: config_ids_in(fetch_document(api, metadata_url)[0]) == [
            original['config_id']], 10, 'finished BACKUP left the document')


def test_concurrent_retries_with_one_key_run_once(api, project):
    server = f'{project}-srv'
    source = create_component(api, project)
    original = deploy_to(api, project, server, source['id'])
    replies: list[Any] = []
    start = threading.Barrier(6)

    def retry() -> None:
        client = own_client(api)
        start.wait()
        replies.append(post_trigger(client, project, original['id'],
                                    key='same', action='BACKUP'))

    threads = [threading.Thread(target=retry) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(reply.status for reply in replies) == [200] * 5 + [201]
    ids = {reply.json['software_deployment']['id'] for reply in replies}
    assert len(ids) == 1
    listed = api.get(deployments_url(project, f'?server_id={server}')).json
    assert len(listed['software_deployments']) == 2


def test_a_custom_action_typo_is_400_and_changes_nothing(api, project):
    """A custom action the component has no entry for is refused before
    anything is written: no trigger deployment, the deployment's action
    and the server's document as they were."""
    server = f'{project}-srv'
    metadata_url = metadata_url_of(api, project, server)
    source = create_component(api, project)
    original = deploy_to(api, project, server, source['id'])
    original = complete(api, project, original['id'])
    document_before = fetch_document(api, metadata_url)[0]
    defined = 'its entries define CREATE, UPDATE, SUSPEND, DELETE, BACKUP.'
    for action, hint in (('BAKUP', ' (did you mean BACKUP?)'),
                         ('backup', ' (did you mean BACKUP?)'),
                         ('RESTORE', '')):
        error = assert_error(post_trigger(api, project, original['id'],
                                          action=action),
                             400, 'UndefinedAction')
        assert error['message'].startswith(
            f'Component db has no entry for action {action}{hint}; '
            f'{defined}'), error
    error = assert_error(api.post(
        deployments_url(project, f'/{original["id"]}/actions'),
        json={'action': 'SUSPND'}),
                         400, 'UndefinedAction')
    assert '(did you mean SUSPEND?)' in error['message']
    assert_error(api.put(deployments_url(project, f'/{original["id"]}'),
                         json={'action': 'suspend'}), 400, 'UndefinedAction')
    assert_error(api.post(deployments_url(project, ''), json={
        'config_id': source['id'], 'server_id': server,
        'signal_transport': 'HEAT_SIGNAL', 'action': 'BAKUP'}),
        400, 'UndefinedAction')

    assert show_deployment(api, project, original['id']) == original
    assert fetch_document(api, metadata_url)[0] == document_before
    listed = api.get(deployments_url(project, f'?server_id={server}')).json
    assert [d['id'] for d in listed['software_deployments']] == [
        original['id']]
    assert_error(post_trigger(api, project, original['id']), 400)
    assert_error(post_trigger(api, project, 'missing', action='BACKUP'), 404)


def test_a_lifecycle_action_no_entry_serves_completes(api, project):
    """Heat's behaviour: nothing to run, COMPLETE at once."""
    server = f'{project}-srv'
    source = create_component(api, project)
    original = deploy_to(api, project, server, source['id'])
    reply = post_trigger(api, project, original['id'], action='RESUME',
                         timeout=30)
    assert reply.status == 201, reply.text
    trigger = reply.json['software_deployment']
    assert (trigger['status'], trigger['status_reason']) == (
        'COMPLETE', 'No configuration for action RESUME in component db; '
                    'nothing to run.')


def test_a_plain_config_runs_any_action_with_deploy_action(api, project):
    """Not a component: the config runs again, and deploy_action tells
    the script which action it is."""
    server = f'{project}-srv'
    script = helpers.create_config(api, project, name='plain',
                                   config='#!/bin/sh\necho $deploy_action\n')
    original = deploy_to(api, project, server, script['id'])
    reply = post_trigger(api, project, original['id'], action='BACKUP')
    assert reply.status == 201, reply.text
    trigger = reply.json['software_deployment']
    assert (trigger['action'], trigger['status']) == ('BACKUP',
                                                      'IN_PROGRESS')
    derived = _derived_of(api, project, trigger)
    assert (derived['group'], derived['config']) == (
        'script', script['config'])
    assert inputs_by_name(derived)['deploy_action']['value'] == 'BACKUP'


# -- outputs -----------------------------------------------------------------

def test_one_output_by_name(api, project):
    server = f'{project}-srv'
    source = create_component(api, project)
    deployment = deploy_to(api, project, server, source['id'])
    assert_error(api.get(deployments_url(
        project, f'/{deployment["id"]}/outputs/result')), 404,
        'OutputNotFound')
    complete(api, project, deployment['id'],
             result={'files': 3, 'path': '/srv/ü'}, deploy_stdout='ok')
    reply = api.get(
        deployments_url(project, f'/{deployment["id"]}/outputs/result'))
    assert reply.status == 200, reply.text
    assert reply.json == {'output': {
        'name': 'result', 'value': {'files': 3, 'path': '/srv/ü'}}}
    reply = api.get(deployments_url(project, f'/{deployment["id"]}/outputs/'
                                  f'deploy_stdout'))
    assert reply.json['output']['value'] == 'ok'
    error = assert_error(api.get(deployments_url(
        project, f'/{deployment["id"]}/outputs/unknown')), 404)
    assert 'unknown' in error['message']


# -- cancel ------------------------------------------------------------------

def test_cancel_leaves_the_document_and_stales_later_signals(api, project):
    server = f'{project}-srv'
    metadata_url = metadata_url_of(api, project, server)
    source = create_component(api, project)
    original = deploy_to(api, project, server, source['id'])
    complete(api, project, original['id'])
    trigger = post_trigger(api, project, original['id'],
                           action='BACKUP').json['software_deployment']
    signal_url = signal_url_of(api, project, trigger)
    document, _ = fetch_document(api, metadata_url)
    assert trigger['config_id'] in config_ids_in(document)

    reply = api.post(deployments_url(project, f'/{trigger["id"]}/cancel'))
    assert reply.status == 200, reply.text
    cancelled = reply.json['software_deployment']
    assert (cancelled['status'], cancelled['status_reason']) == (
        'FAILED', 'Deployment cancelled.')
    document, _ = fetch_document(api, metadata_url)
    assert config_ids_in(document) == [original['config_id']]

    # The agent's late signal is recorded as stale, not applied.
    late = api.put(local_path(signal_url), data=json.dumps(
        {'result': 'late', 'deploy_status_code': 0}))
    error = assert_error(late, 403, 'SignalRefused')
    # The agent is told why, as the event records it.
    assert 'Stale signal for cancelled action revision' in error['message']
    event = wait_event(api, project, trigger['id'],
                       'Stale signal for cancelled action')
    assert event['new_status'] == 'FAILED'
    after = show_deployment(api, project, trigger['id'])
    assert (after['status'], after['status_reason'],
            after['output_values']) == ('FAILED', 'Deployment cancelled.',
                                        None)

    error = assert_error(api.post(
        deployments_url(project, f'/{trigger["id"]}/cancel')),
        409, 'DeploymentFinished')
    assert 'nothing to cancel' in error['message']
    assert_error(api.post(
        deployments_url(project, f'/{original["id"]}/cancel')), 409)
    assert_error(api.post(deployments_url(project, '/missing/cancel')), 404)


def test_cancel_of_a_lifecycle_action(api, project):
    server = f'{project}-srv'
    metadata_url = metadata_url_of(api, project, server)
    source = create_component(api, project)
    deployment = deploy_to(api, project, server, source['id'])
    reply = api.post(deployments_url(project, f'/{deployment["id"]}/cancel'))
    assert reply.status == 200, reply.text
    document, _ = fetch_document(api, metadata_url)
    assert config_ids_in(document) == []
    reasons = [event['reason'] for event in events_of(api, project,
                                                      deployment['id'])]
    assert reasons[-1] == 'Deployment cancelled.'


# -- long polls --------------------------------------------------------------


def test_wait_answers_as_soon_as_the_status_changes(api, project):
    server = f'{project}-srv'
    source = create_component(api, project)
    deployment = deploy_to(api, project, server, source['id'])
    wait = 20
    results: list[tuple[float, Any]] = []
    started = threading.Barrier(WAITERS + 1)

    def waiter() -> None:
        client = own_client(api)
        started.wait()
        begin = time.monotonic()
        reply = client.get(
            deployments_url(project, f'/{deployment["id"]}?wait={wait}'))
        results.append((time.monotonic() - begin, reply))

    threads = [threading.Thread(target=waiter) for _ in range(WAITERS)]
    for thread in threads:
        thread.start()
    started.wait()
    begin = time.monotonic()
    time.sleep(1)  # the waiters are parked by now: the change comes later
    signal_deployment(api, project, deployment['id'], deploy_status_code=0)
    for thread in threads:
        thread.join(wait + 30)
    assert len(results) == WAITERS
    for elapsed, reply in results:
        assert reply.status == 200, reply.text
        assert reply.json['software_deployment']['status'] == 'COMPLETE'
        # Answered on the change, long before the wait was over.
        assert elapsed < wait - 5, elapsed
    assert time.monotonic() - begin < wait - 5


def test_wait_on_a_finished_deployment_answers_at_once(api, project):
    server = f'{project}-srv'
    source = create_component(api, project)
    deployment = deploy_to(api, project, server, source['id'])
    complete(api, project, deployment['id'])
    begin = time.monotonic()
    reply = api.get(deployments_url(project, f'/{deployment["id"]}?wait=30'))
    assert reply.status == 200, reply.text
    assert reply.json['software_deployment']['status'] == 'COMPLETE'
    assert time.monotonic() - begin < 20
    assert_error(api.get(
        deployments_url(project, f'/{deployment["id"]}?wait=x')), 400)


def test_wait_gives_up_after_n_seconds(api, project):
    server = f'{project}-srv'
    source = create_component(api, project)
    deployment = deploy_to(api, project, server, source['id'])
    begin = time.monotonic()
    reply = api.get(deployments_url(project, f'/{deployment["id"]}?wait=3'))
    elapsed = time.monotonic() - begin
    assert reply.json['software_deployment']['status'] == 'IN_PROGRESS'
    assert 3 <= elapsed < 20, elapsed
