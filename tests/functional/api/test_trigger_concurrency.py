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


"""A second trigger of an action still running is 409 unless the request
allows concurrent runs; Idempotency-Key retries still get the first
trigger; on every backend."""

import threading
from typing import Any

from tests.functional.api import helpers
from tests.functional.api.deployment_helpers import complete
from tests.functional.api.deployment_helpers import create_component
from tests.functional.api.deployment_helpers import deploy_to
from tests.functional.api.deployment_helpers import deployments_url
from tests.functional.api.deployment_helpers import events_of
from tests.functional.api.deployment_helpers import own_client
from tests.functional.api.deployment_helpers import post_trigger
from tests.functional.api.helpers import assert_error

THREADS = 6


def _created(reply: Any) -> dict:
    assert reply.status == 201, reply.text
    return reply.json['software_deployment']


def _running_error(reply: Any, running_id: str, original_id: str) -> dict:
    error = assert_error(reply, 409, 'ActionAlreadyRunning')
    assert error['message'].startswith(
        f'Deployment {original_id} already has BACKUP running: deployment '
        f'{running_id}, IN_PROGRESS since '), error
    assert '"allow_concurrent": true' in error['message']
    return error


def _listed(api: Any, project: str, server: str) -> list[str]:
    reply = api.get(deployments_url(project, f'?server_id={server}'))
    return [d['id'] for d in reply.json['software_deployments']]


def test_a_second_trigger_of_a_running_action_is_409(api, project):
    server = f'{project}-srv'
    source = create_component(api, project)
    original = complete(api, project,
                        deploy_to(api, project, server, source['id'])['id'])
    first = _created(post_trigger(api, project, original['id'], key='k1',
                                  action='BACKUP'))

    _running_error(post_trigger(api, project, original['id'], action='BACKUP'),
                   first['id'], original['id'])
    # A trigger of the running trigger counts as one of the original.
    _running_error(post_trigger(api, project, first['id'], action='BACKUP'),
                   first['id'], first['id'])
    # A retry with the key gets the first trigger, running or not.
    for extra in ({}, {'allow_concurrent': True}):
        again = post_trigger(api, project, original['id'], key='k1',
                             action='BACKUP', **extra)
        assert again.status == 200, again.text
        assert again.json['software_deployment']['id'] == first['id']
    assert _listed(api, project, server) == [original['id'], first['id']]

    # Another action, or the same one allowed to run concurrently, runs.
    suspend = _created(post_trigger(api, project, original['id'],
                                    action='SUSPEND'))
    second = _created(post_trigger(api, project, original['id'],
                                   action='BACKUP', allow_concurrent=True))
    assert second['status'] == 'IN_PROGRESS'
    assert _listed(api, project, server) == [
        original['id'], first['id'], suspend['id'], second['id']]

    # Once none runs BACKUP any more (finished or cancelled), it may run.
    complete(api, project, first['id'])
    _running_error(post_trigger(api, project, original['id'], action='BACKUP'),
                   second['id'], original['id'])
    reply = api.post(deployments_url(project, f'/{second["id"]}/cancel'))
    assert reply.status == 200, reply.text
    _created(post_trigger(api, project, original['id'], action='BACKUP'))


def test_the_deployment_itself_running_the_action_counts(api, project):
    server = f'{project}-srv'
    source = create_component(api, project)
    original = deploy_to(api, project, server, source['id'])
    reply = api.post(deployments_url(project, f'/{original["id"]}/actions'),
                     json={'action': 'BACKUP'})
    assert reply.status == 200, reply.text
    _running_error(post_trigger(api, project, original['id'], action='BACKUP'),
                   original['id'], original['id'])


def test_concurrent_triggers_run_once(api, project):
    """Decided one after the other: one 201, the others 409."""
    server = f'{project}-srv'
    source = create_component(api, project)
    original = deploy_to(api, project, server, source['id'])
    replies: list[Any] = []
    start = threading.Barrier(THREADS)

    def trigger() -> None:
        client = own_client(api)
        start.wait()
        replies.append(post_trigger(client, project, original['id'],
                                    action='BACKUP'))

    threads = [threading.Thread(target=trigger) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    statuses = sorted(reply.status for reply in replies)
    assert statuses == [201] + [409] * (THREADS - 1), [
        reply.text for reply in replies]
    assert len(_listed(api, project, server)) == 2


def test_the_first_event_says_what_runs(api, project):
    server = f'{project}-srv'
    source = create_component(api, project)
    original = deploy_to(api, project, server, source['id'])
    backup = _created(post_trigger(api, project, original['id'],
                                   action='BACKUP'))
    assert events_of(api, project, backup['id'])[0]['reason'] == (
        f'Runs BACKUP of component db, its entry configs[3] (tool '
        f'ansible); triggered from deployment {original["id"]}.')

    script = helpers.create_config(api, project, name='plain',
                                   config='echo $deploy_action')
    plain = deploy_to(api, project, server, script['id'])
    backup = _created(post_trigger(api, project, plain['id'], action='BACKUP'))
    assert events_of(api, project, backup['id'])[0]['reason'] == (
        f'Runs script config plain again with deploy_action=BACKUP (not a '
        f'component: the config decides what BACKUP does); triggered from '
        f'deployment {plain["id"]}.')
