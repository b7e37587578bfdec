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

"""Rollouts through the real API, on SQLite, MariaDB and PostgreSQL
(doc/source/user/rollouts.rst): waves that never exceed
``max_concurrency``, the error budget, cancel, and the targets refused
with a clear message. The deployments are signalled through the API's
signal route, as agents with HEAT_SIGNAL do."""

import time

import pytest

from swconfig.common import context
from swconfig.db import api as db_api
from swconfig.engine import rollouts as engine_rollouts
from tests.fixtures import waiting
from tests.functional.api import helpers
from tests.functional.api.helpers import assert_error

#: Long enough for the engine's rounds (``[engine] rollout_interval``, 1 s)
#: on a busy machine.
TIMEOUT = 60


def rollouts_url(project: str, suffix: str = '') -> str:
    return helpers.url(project, 'rollouts', suffix)


def create_rollout(api, project: str, **body) -> dict:
    reply = api.post(rollouts_url(project), json=body)
    assert reply.status == 200, reply.text
    return reply.json['rollout']


def show(api, project: str, rollout_id: str) -> dict:
    reply = api.get(rollouts_url(project, '/' + rollout_id))
    assert reply.status == 200, reply.text
    return reply.json['rollout']


def targets(api, project: str, rollout_id: str, state: str = '') -> list:
    query = f'?state={state}' if state else ''
    reply = api.get(rollouts_url(project, f'/{rollout_id}/targets{query}'))
    assert reply.status == 200, reply.text
    return reply.json['targets']


def events(api, project: str, rollout_id: str) -> list[dict]:
    reply = api.get(rollouts_url(project, f'/{rollout_id}/events'))
    assert reply.status == 200, reply.text
    return reply.json['events']


def signal(api, project: str, deployment_id: str, code: int) -> None:
    reply = api.post(helpers.url(project, 'software_deployments',
                                 f'/{deployment_id}/signal'),
                     json={'deploy_status_code': code,
                           'deploy_stderr': 'boom' if code else ''})
    assert reply.status == 200, reply.text


def config(api, project: str) -> dict:
    return helpers.create_config(api, project, name='app',
                                 config='echo deploy')


def servers(project: str, count: int) -> list[str]:
    return [f'{project}-s{index:02d}' for index in range(count)]


def four_servers_two_at_a_time(api, project: str) -> dict:
    """A rollout of a config to four servers, its first wave (targets 0
    and 1) started."""
    rollout = create_rollout(api, project, servers=servers(project, 4),
                             config_id=config(api, project)['id'],
                             signal_transport='HEAT_SIGNAL',
                             max_concurrency=2)
    assert [target['position'] for target in targets(
        api, project, rollout['id'], 'IN_PROGRESS')] == [0, 1]
    return rollout


def drive(api, project: str, rollout_id: str, fail: set[int],
          most: int) -> int:
    """Signal every running target as an agent would (FAILED for the
    positions in ``fail``) until the rollout is over, checking at every
    look that no more than ``most`` run; the largest number seen."""
    signalled: set[int] = set()
    seen = 0
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        running = targets(api, project, rollout_id, 'IN_PROGRESS')
        assert len(running) <= most, running
        seen = max(seen, len(running))
        for target in running:
            # An action target is IN_PROGRESS from its reservation; its
            # deployment follows with the trigger.
            if target['deployment_id'] and (
                    target['position'] not in signalled):
                signalled.add(target['position'])
                signal(api, project, target['deployment_id'],
                       1 if target['position'] in fail else 0)
        if show(api, project, rollout_id)['finished_time'] is not None:
            return seen
        time.sleep(0.1)
    raise AssertionError(f'rollout {rollout_id} did not finish in time')


def test_waves_never_exceed_max_concurrency(api, project):
    source = config(api, project)
    names = servers(project, 30)
    rollout = create_rollout(api, project, servers=names,
                             config_id=source['id'],
                             signal_transport='HEAT_SIGNAL',
                             max_concurrency='10%')
    assert rollout['max_concurrency'] == '10%'
    assert rollout['max_errors'] == '0'
    # The first wave started before the answer.
    assert rollout['status'] == 'IN_PROGRESS'
    assert rollout['targets']['IN_PROGRESS'] == 3
    assert drive(api, project, rollout['id'], set(), 3) == 3

    done = show(api, project, rollout['id'])
    assert done['status'] == 'COMPLETE'
    assert done['targets'] == {'NOT_STARTED': 0, 'IN_PROGRESS': 0,
                               'COMPLETE': 30, 'FAILED': 0,
                               'CANCELLED': 0}
    listed = targets(api, project, rollout['id'])
    # In the order given, each an ordinary deployment of its server.
    assert [target['server_id'] for target in listed] == names
    for target in listed:
        reply = api.get(helpers.url(project, 'software_deployments',
                                    '/' + target['deployment_id']))
        assert reply.json['software_deployment']['server_id'] == (
            target['server_id'])
        assert reply.json['software_deployment']['status'] == 'COMPLETE'
    kinds = [event['event'] for event in events(api, project,
                                                rollout['id'])]
    assert kinds[:3] == ['created', 'started', 'wave_started']
    assert kinds[-1] == 'finished'
    # Waves of at most three targets, 30 in all.
    waves = [event['reason'] for event in events(api, project,
                                                 rollout['id'])
             if event['event'] == 'wave_started']
    started = [int(reason.split()[1]) for reason in waves]
    assert max(started) <= 3 and sum(started) == 30

    # Paged like the other lists: by position.
    page = api.get(rollouts_url(
        project, f'/{rollout["id"]}/targets?limit=5&marker=9')).json
    assert [target['position'] for target in page['targets']] == [
        10, 11, 12, 13, 14]


def test_the_error_budget_stops_the_rollout(api, project):
    source = config(api, project)
    rollout = create_rollout(api, project, servers=servers(project, 10),
                             config_id=source['id'],
                             signal_transport='HEAT_SIGNAL',
                             max_concurrency=1, max_errors=2)
    drive(api, project, rollout['id'], {0, 1, 2}, 1)
    stopped = show(api, project, rollout['id'])
    assert stopped['status'] == 'FAILED'
    assert '3 targets failed' in stopped['status_reason']
    assert stopped['targets'] == {'NOT_STARTED': 7, 'IN_PROGRESS': 0,
                                  'COMPLETE': 0, 'FAILED': 3,
                                  'CANCELLED': 0}
    assert sum(stopped['targets'].values()) == 10
    assert [target['position'] for target in targets(
        api, project, rollout['id'], 'NOT_STARTED')] == list(range(3, 10))
    kinds = [event['event'] for event in events(api, project,
                                                rollout['id'])]
    assert kinds.count('target_failed') == 3
    assert kinds[-1] == 'stopped'


def test_cancel_mid_rollout(api, project):
    source = config(api, project)
    rollout = create_rollout(api, project, servers=servers(project, 6),
                             config_id=source['id'],
                             signal_transport='HEAT_SIGNAL',
                             max_concurrency=2)
    for target in targets(api, project, rollout['id'], 'IN_PROGRESS'):
        signal(api, project, target['deployment_id'], 0)
    # The next wave: positions 2 and 3.
    waiting.wait_for(lambda: [t['position'] for t in targets(
        api, project, rollout['id'], 'IN_PROGRESS')] == [2, 3], TIMEOUT,
        'the second wave')
    running = targets(api, project, rollout['id'], 'IN_PROGRESS')
    reply = api.post(rollouts_url(project, f'/{rollout["id"]}/cancel'))
    assert reply.status == 200, reply.text
    cancelled = reply.json['rollout']
    assert cancelled['status'] == 'CANCELLED'
    assert cancelled['finished_time'] is not None
    assert cancelled['targets'] == {'NOT_STARTED': 0, 'IN_PROGRESS': 0,
                                    'COMPLETE': 2, 'FAILED': 0,
                                    'CANCELLED': 4}
    for target in running:
        deployment = api.get(helpers.url(
            project, 'software_deployments',
            '/' + target['deployment_id'])).json['software_deployment']
        assert deployment['status'] == 'FAILED'
        assert deployment['status_reason'] == 'Deployment cancelled.'
    # Over: a second cancel is refused; no target started since.
    assert_error(api.post(rollouts_url(project,
                                       f'/{rollout["id"]}/cancel')), 409)
    assert [t['deployment_id'] for t in targets(
        api, project, rollout['id'], 'CANCELLED')][2:] == [None, None]


def test_a_round_during_cancel_counts_the_running_targets_cancelled(
        inprocess_stack, project, monkeypatch):
    """A round that notes the running targets between the cancel's
    cancelling of their deployments and its own marking of them (the
    engine's periodic round and the cancel request race) finds them
    cancelled, not failed: no target_failed event, and the counts the
    cancel answers are those of a cancel alone."""
    api = inprocess_stack
    rollout = four_servers_two_at_a_time(api, project)
    real_set = db_api.rollout_targets_set

    def round_first(request, rollout_id, states, expected='IN_PROGRESS'):
        # The round runs once the deployments are cancelled, before the
        # cancel marks its targets.
        monkeypatch.setattr(db_api, 'rollout_targets_set', real_set)
        admin = context.get_admin_context()
        engine_rollouts._refresh(admin, db_api.rollout_get(admin,
                                                           rollout_id))
        return real_set(request, rollout_id, states, expected)

    monkeypatch.setattr(db_api, 'rollout_targets_set', round_first)
    reply = api.post(rollouts_url(project, f'/{rollout["id"]}/cancel'))
    assert reply.status == 200, reply.text
    assert reply.json['rollout']['targets'] == {
        'NOT_STARTED': 0, 'IN_PROGRESS': 0, 'COMPLETE': 0, 'FAILED': 0,
        'CANCELLED': 4}
    kinds = [event['event'] for event in events(api, project,
                                                rollout['id'])]
    assert 'target_failed' not in kinds


def test_targets_refused_with_a_clear_message(api, project):
    source = config(api, project)
    error = assert_error(api.post(rollouts_url(project), json={
        'selector': {'role': 'nothing-has-this'},
        'config_id': source['id']}), 400)
    assert 'the selector role=nothing-has-this matches no server of the ' \
        'project' in error['message']
    error = assert_error(api.post(rollouts_url(project), json={
        'config_id': source['id']}), 400)
    assert 'exactly one target' in error['message']
    error = assert_error(api.post(rollouts_url(project), json={
        'servers': ['a'], 'selector': {'role': 'x'},
        'config_id': source['id']}), 400)
    assert 'servers and selector' in error['message']
    error = assert_error(api.post(rollouts_url(project), json={
        'servers': ['a'], 'config_id': source['id'], 'action': 'X'}), 400)
    assert 'either config_id' in error['message']
    for bad in ('150%', '-1', 'ten', -1, 0, '0', '0%'):
        error = assert_error(api.post(rollouts_url(project), json={
            'servers': ['a'], 'config_id': source['id'],
            'max_concurrency': bad}), 400)
        assert error['message'].endswith(
            '. It must be a whole number from 1 to 9999999 or a percentage '
            'from 1% to 100%.'), error['message']
    error = assert_error(api.post(rollouts_url(project), json={
        'servers': ['a'], 'config_id': source['id'],
        'skip_missing': True}), 400)
    assert error['message'] == ('skip_missing applies only with '
                                'deployment_name.')
    assert api.get(rollouts_url(project)).json == {'rollouts': []}


def test_another_project_s_servers_are_refused_at_creation(api, project):
    other = project + '-other'
    theirs = [f'{other}-s{index}' for index in range(7)]
    for server in theirs:
        reply = api.put(helpers.url(other, 'servers', '/' + server),
                        json={'labels': {'role': 'db'}})
        assert reply.status == 200, reply.text
    source = config(api, project)
    error = assert_error(api.post(rollouts_url(project), json={
        'servers': [servers(project, 1)[0], theirs[0]],
        'config_id': source['id']}), 403)
    assert error['message'] == (f'Server {theirs[0]} belongs to another '
                                f'project; a rollout runs only on servers '
                                f'of its own project.')
    error = assert_error(api.post(rollouts_url(project), json={
        'servers': theirs, 'config_id': source['id']}), 403)
    assert error['message'].startswith(
        f'Servers {", ".join(theirs[:5])} and 2 more belong to another '
        f'project'), error['message']
    assert api.get(rollouts_url(project)).json == {'rollouts': []}


def test_a_group_of_another_project_is_not_found(api, project):
    other = project + '-other'
    reply = api.put(helpers.url(other, 'servers', '/' + other + '-s'),
                    json={'labels': {'role': 'db'}})
    assert reply.status == 200, reply.text
    reply = api.post(helpers.url(other, 'server_groups'),
                     json={'name': 'dbs', 'selector': {'role': 'db'}})
    assert reply.status == 200, reply.text
    group = reply.json['server_group']
    source = config(api, project)
    assert_error(api.post(rollouts_url(project), json={
        'server_group': group['id'], 'config_id': source['id']}), 404)
    # And the other project's own rollout of it is not visible here.
    rollout = create_rollout(api, other, server_group=group['id'],
                             config_id=config(api, other)['id'],
                             signal_transport='HEAT_SIGNAL')
    assert [t['server_id'] for t in targets(api, other, rollout['id'])] \
        == [other + '-s']
    assert_error(api.get(rollouts_url(project, '/' + rollout['id'])), 404)


def test_an_action_on_each_servers_deployment_of_a_component(api, project):
    """deployment_name + action: each target's deployment of the named
    component is triggered, as POST .../trigger does; a server without
    one is refused at creation, or left out with skip_missing."""
    component = helpers.create_config(
        api, project, name='db', group='component', config={'configs': [
            {'actions': ['CREATE'], 'tool': 'script', 'config': 'create'},
            {'actions': ['BACKUP'], 'tool': 'script', 'config': 'backup'}]})
    names = servers(project, 4)
    deployed = create_rollout(api, project, servers=names[:3],
                              config_id=component['id'],
                              signal_transport='HEAT_SIGNAL')
    drive(api, project, deployed['id'], set(), 3)
    originals = {target['server_id']: target['deployment_id']
                 for target in targets(api, project, deployed['id'])}

    body = {'servers': names, 'deployment_name': 'db', 'action': 'BACKUP',
            'max_concurrency': 2, 'max_errors': 1}
    error = assert_error(api.post(rollouts_url(project), json=body), 400)
    assert error['message'] == (
        f'Server {names[3]} has no deployment named db; give '
        f'"skip_missing": true (swconfig rollout create --skip-missing) to '
        f'run on the servers that have one.')
    assert len(api.get(rollouts_url(project)).json['rollouts']) == 1

    backup = create_rollout(api, project, skip_missing=True, **body)
    drive(api, project, backup['id'], set(), 2)
    done = show(api, project, backup['id'])
    assert done['status'] == 'COMPLETE', done
    assert done['deployment_name'] == 'db' and done['action'] == 'BACKUP'
    assert done['targets'] == {'NOT_STARTED': 0, 'IN_PROGRESS': 0,
                               'COMPLETE': 3, 'FAILED': 0, 'CANCELLED': 0}
    for target in targets(api, project, backup['id'], 'COMPLETE'):
        trigger = api.get(helpers.url(
            project, 'software_deployments',
            '/' + target['deployment_id'])).json['software_deployment']
        assert trigger['action'] == 'BACKUP'
        assert trigger['triggered_from'] == originals[target['server_id']]
    assert names[3] not in {target['server_id'] for target in targets(
        api, project, backup['id'])}
    assert {'event': 'skipped', 'reason': f'Server {names[3]} has no '
            f'deployment named db: left out (skip_missing)'} in [
        {key: event[key] for key in ('event', 'reason')}
        for event in events(api, project, backup['id'])]


def test_the_same_idempotency_key_returns_the_same_rollout(api, project):
    source = config(api, project)
    body = {'servers': servers(project, 2), 'config_id': source['id'],
            'signal_transport': 'HEAT_SIGNAL'}
    key = {'Idempotency-Key': f'{project}-once'}
    first = api.post(rollouts_url(project), json=body, headers=key)
    assert first.status == 200, first.text
    again = api.post(rollouts_url(project), json=body, headers=key)
    assert again.status == 200, again.text
    assert again.json['rollout']['id'] == first.json['rollout']['id']
    assert len(api.get(rollouts_url(project)).json['rollouts']) == 1
    # Its targets started once.
    assert len(targets(api, project, first.json['rollout']['id'],
                       'IN_PROGRESS')) == 2
    other = api.post(rollouts_url(project), json={**body, 'max_errors': 1},
                     headers=key)
    assert_error(other, 422)


def test_a_stale_engine_starts_nothing(inprocess_stack, project):
    """An engine that decided a wave on what it read before another
    engine started that wave (a takeover, a kick racing the owner's
    round) writes nothing: its chunk finds the targets started or the
    concurrency used, and rolls back whole. In-process, so the test can
    be that engine."""
    api = inprocess_stack
    rollout = four_servers_two_at_a_time(api, project)
    running = targets(api, project, rollout['id'], 'IN_PROGRESS')
    admin = context.get_admin_context()
    row = db_api.rollout_get(admin, rollout['id'])

    def deployments() -> list:
        return api.get(helpers.url(project, 'software_deployments')).json[
            'software_deployments']

    # Read before the first wave: two free slots, targets 0 and 1 not
    # started.
    stale = [dict(target, state='NOT_STARTED', deployment_id=None)
             for target in running]
    with pytest.raises(engine_rollouts._Raced):
        engine_rollouts._deploy(engine_rollouts._project_context(row), row,
                                stale, 4)
    # Two free slots read before the wave: the next targets would exceed
    # max_concurrency.
    engine_rollouts._start_wave(row, 2, 2)
    assert len(deployments()) == 2
    assert [target['position'] for target in targets(
        api, project, rollout['id'], 'IN_PROGRESS')] == [0, 1]
    assert [target['deployment_id'] for target in targets(
        api, project, rollout['id'], 'IN_PROGRESS')] == [
        target['deployment_id'] for target in running]


def test_an_action_target_left_reserved_is_triggered_once(
        inprocess_stack, project, monkeypatch):
    """An engine that reserved an action target and died before its
    trigger: the next round triggers it; a trigger that did happen is not
    made again (the target's Idempotency-Key). A stale engine's action
    wave writes nothing, as a deploy wave's does."""
    api = inprocess_stack
    component = helpers.create_config(
        api, project, name='db', group='component', config={'configs': [
            {'actions': ['CREATE'], 'tool': 'script', 'config': 'create'},
            {'actions': ['BACKUP'], 'tool': 'script', 'config': 'backup'}]})
    names = servers(project, 2)
    deployed = create_rollout(api, project, servers=names,
                              config_id=component['id'],
                              signal_transport='HEAT_SIGNAL')
    drive(api, project, deployed['id'], set(), 2)

    # The creating engine "dies" after reserving the first wave.
    monkeypatch.setattr(engine_rollouts, '_attach',
                        lambda context, rollout, targets: 0)
    backup = create_rollout(api, project, servers=names,
                            deployment_name='db', action='BACKUP',
                            max_concurrency=1)
    [reserved] = targets(api, project, backup['id'], 'IN_PROGRESS')
    assert reserved['position'] == 0 and reserved['deployment_id'] is None
    monkeypatch.undo()

    admin = context.get_admin_context()
    row = db_api.rollout_get(admin, backup['id'])
    # A stale engine that read two free slots starts nothing more.
    with pytest.raises(engine_rollouts._Raced):
        engine_rollouts._trigger(engine_rollouts._project_context(row), row,
                                 db_api.rollout_targets_get(
                                     admin, backup['id'],
                                     state='NOT_STARTED'), 1)

    engine_rollouts.advance(backup['id'])
    [running] = targets(api, project, backup['id'], 'IN_PROGRESS')
    assert running['position'] == 0 and running['deployment_id']
    # Attached again (a second engine's round): the same deployment.
    assert engine_rollouts._attach(engine_rollouts._project_context(row),
                                   row, [reserved]) == 1
    assert targets(api, project, backup['id'], 'IN_PROGRESS') == [running]
    backups = [item for item in api.get(helpers.url(
        project, 'software_deployments')).json['software_deployments']
        if item['action'] == 'BACKUP']
    assert [item['id'] for item in backups] == [running['deployment_id']]

    drive(api, project, backup['id'], set(), 1)
    assert show(api, project, backup['id'])['targets']['COMPLETE'] == 2
