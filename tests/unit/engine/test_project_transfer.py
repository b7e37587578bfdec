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

"""Export and import of whole projects (``project_transfer``) between the
real backends: a project moved from one backend to another exports
exactly as it did, ids and times kept; ids the database has refuse the
project (nothing of it written) unless skipped; ids of another project
are refused always; taken event ids are numbered anew; agent documents
are rendered for the importing service's settings; and a document that
is not one this release reads is refused saying where.

Each test gets fresh databases (SQLite files, or scratch databases on the
real MariaDB and PostgreSQL, started if down), migrated to head; rows are
written with Core, so every value is exactly the one the test means.
"""

import contextlib
import copy
import datetime
import json

import pytest
import sqlalchemy as sa

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.db import api as db_api
from swconfig.db import models
from swconfig.db import session
from swconfig.engine import metadata
from swconfig.engine import project_transfer
from tests.unit.db import backends

pytestmark = pytest.mark.usefixtures('keyring', 'agent_base_url')

T0 = datetime.datetime(2030, 3, 4, 5, 6, 7, 123456)
ADMIN = swconfig_context.get_admin_context()
on_every_backend = pytest.mark.parametrize('backend', backends.BACKENDS)
#: Each backend's rows moved to another backend.
MOVES = [('sqlite', 'mysql'), ('mysql', 'postgresql'),
         ('postgresql', 'sqlite')]


def _at(seconds: int) -> datetime.datetime:
    return T0 + datetime.timedelta(seconds=seconds)


@pytest.fixture
def databases(tmp_path):
    """``databases(backend)``: a fresh migrated database of ``backend``
    (any number, all gone at teardown); ``use`` patches one into
    swconfig.db.api."""
    with contextlib.ExitStack() as stack:
        made = []

        def make(backend):
            directory = tmp_path / f'db-{len(made)}'
            directory.mkdir()
            made.append(backends.migrated_facade(stack, backend, directory))
            return made[-1]

        resets = []

        def use(facade):
            while resets:
                resets.pop()()
            resets.append(session.context_manager.patch_factory(facade))

        make.use = use
        yield make
        while resets:
            resets.pop()()


def _insert(facade, table, rows):
    with facade.writer.get_engine().begin() as connection:
        for row in rows:  # one by one: rows leave out different columns
            connection.execute(sa.insert(table).values(**row))


def _seed(facade, project='p1', prefix='', event_ids=(7, 9, 3)):
    """A project with one of everything, and more than one of most."""
    config, derived = f'{prefix}c-1', f'{prefix}c-2'
    s1, s2 = f'{prefix}server-1', f'{prefix}server-2'
    _insert(facade, models.SoftwareConfig.__table__, [
        {'id': config, 'name': 'ünïcode', 'group': 'script',
         'config': '#!/bin/sh\necho "$name"', 'tenant': project,
         'inputs': [{'name': 'name', 'type': 'String', 'default': 'x'}],
         'outputs': [{'name': 'out'}], 'options': {}, 'created_at': _at(0)},
        {'id': derived, 'name': 'ünïcode', 'group': 'script',
         'config': '#!/bin/sh\necho "$name"', 'tenant': project,
         'inputs': [{'name': 'name', 'value': 'web'},
                    {'name': 'deploy_signal_id', 'value': 'http://x/s'}],
         'outputs': [{'name': 'out'}], 'options': None,
         'created_at': _at(1)}])
    _insert(facade, models.Server.__table__, [
        {'id': s1, 'tenant': project, 'token_revision': 2,
         'document_revision': 0, 'created_at': _at(2), 'updated_at': _at(2),
         'last_poll_at': _at(9)},
        {'id': s2, 'tenant': project, 'token_revision': 1,
         'document_revision': 0, 'created_at': _at(3),
         'updated_at': _at(3)}])
    _insert(facade, models.ServerLabel.__table__, [
        {'server_id': s1, 'key': 'role', 'value': 'web', 'tenant': project},
        {'server_id': s1, 'key': 'zone', 'value': 'a', 'tenant': project}])
    _insert(facade, models.SoftwareDeployment.__table__, [
        {'id': f'{prefix}d-1', 'config_id': derived, 'server_id': s1,
         'source_config_id': config, 'input_values': {'name': 'web'},
         'output_values': {'out': 'done', 'deploy_status_code': 0},
         'tenant': project, 'action': 'CREATE', 'status': 'COMPLETE',
         'status_reason': 'Outputs received', 'version': 3,
         'action_revision': 1, 'signal_transport': 'HEAT_SIGNAL',
         'created_at': _at(4), 'updated_at': _at(6)},
        {'id': f'{prefix}d-2', 'config_id': config, 'server_id': s2,
         'input_values': None, 'tenant': project, 'action': 'CREATE',
         'status': 'IN_PROGRESS', 'status_reason': 'Deploy data available',
         'version': 1, 'created_at': _at(5), 'timeout_at': _at(3605)}])
    _insert(facade, models.DeploymentEvent.__table__, [
        {'id': event_ids[0], 'deployment_id': f'{prefix}d-1',
         'created_at': _at(4),
         'action': 'CREATE', 'old_status': None,
         'new_status': 'IN_PROGRESS', 'reason': 'created'},
        {'id': event_ids[1], 'deployment_id': f'{prefix}d-1',
         'created_at': _at(6),
         'action': 'CREATE', 'old_status': 'IN_PROGRESS',
         'new_status': 'COMPLETE', 'reason': 'Outputs received'}])
    _insert(facade, models.ServerGroup.__table__, [
        {'id': f'{prefix}g-1', 'tenant': project, 'name': f'{prefix}web',
         'selector': {'role': 'web'}, 'created_at': _at(7)}])
    _insert(facade, models.ServerGroupMember.__table__, [
        {'group_id': f'{prefix}g-1', 'server_id': s2}])
    _insert(facade, models.Rollout.__table__, [
        {'id': f'{prefix}r-1', 'tenant': project, 'status': 'COMPLETE',
         'target': {'server_group': f'{prefix}g-1'},
         'work': {'config_id': config}, 'max_concurrency': '50%',
         'max_errors': '0', 'created_at': _at(8), 'started_at': _at(8),
         'finished_at': _at(9), 'version': 4}])
    _insert(facade, models.RolloutTarget.__table__, [
        {'rollout_id': f'{prefix}r-1', 'position': 0, 'server_id': s1,
         'deployment_id': f'{prefix}d-1', 'state': 'COMPLETE'},
        {'rollout_id': f'{prefix}r-1', 'position': 1, 'server_id': s2,
         'deployment_id': None, 'state': 'SKIPPED'}])
    _insert(facade, models.RolloutEvent.__table__, [
        {'id': event_ids[2], 'rollout_id': f'{prefix}r-1', 'event': 'STARTED',
         'reason': None, 'created_at': _at(8)}])
    for server_id in (s1, s2):
        metadata.render(server_id)


def _seeded_document(databases):
    """The export of ``_seed``'s project, from a SQLite database of its
    own."""
    source = databases('sqlite')
    databases.use(source)
    _seed(source)
    return _export(databases, source)


def _export(databases, facade, projects=None):
    databases.use(facade)
    return project_transfer.export_document(projects)


def _import(databases, facade, document, skip_existing=False):
    databases.use(facade)
    return [project_transfer.import_project(project, skip_existing)
            for project in project_transfer.check_document(
                json.loads(json.dumps(document)))]


def _count(facade, table):
    with facade.writer.get_engine().connect() as connection:
        return connection.scalar(sa.select(sa.func.count()).select_from(
            table))


@pytest.mark.parametrize('source,destination', MOVES)
def test_a_project_moves_to_another_backend_exactly(databases, source,
                                                    destination):
    """Exported, imported elsewhere and exported again: the same
    document (ids, times to the microsecond, JSON values, agent
    documents and their ETags), and the new database hands out event ids
    above the imported ones."""
    first, second = databases(source), databases(destination)
    databases.use(first)
    _seed(first)
    _seed(first, project='p2', prefix='q', event_ids=(17, 19, 13))
    exported = _export(databases, first)
    assert [p['project_id'] for p in exported['projects']] == ['p1', 'p2']
    servers = exported['projects'][0]['servers']
    assert all(server['document'] and server['etag'] for server in servers)

    reports = _import(databases, second, exported)

    assert reports[0]['inserted'] == {
        'software_configs': 2, 'servers': 2, 'server_labels': 2,
        'software_deployments': 2, 'deployment_events': 2,
        'server_groups': 1, 'server_group_members': 1, 'rollouts': 1,
        'rollout_targets': 2, 'rollout_events': 1}
    assert reports[0]['rendered'] == []  # same settings: same documents
    assert reports[0]['renumbered'] == []
    again = _export(databases, second)
    assert again['projects'] == exported['projects']
    db_api.deployment_events_add(ADMIN, [{
        'deployment_id': 'd-1', 'action': 'CREATE', 'old_status': None,
        'new_status': 'COMPLETE', 'reason': 'after the import'}])
    events = db_api.software_deployment_event_get_all(
        ADMIN, 'd-1')
    assert [event['id'] for event in events][:2] == [7, 9]
    assert events[2]['id'] > 9


@on_every_backend
def test_ids_the_database_has_refuse_the_project_whole(databases, backend):
    facade = databases(backend)
    document = _seeded_document(databases)
    _import(databases, facade, document)
    extra = copy.deepcopy(document)
    extra['projects'][0]['software_configs'].append(
        dict(extra['projects'][0]['software_configs'][0], id='c-new'))
    before = {table.name: _count(facade, table)
              for table in models.Base.metadata.sorted_tables}

    with pytest.raises(exception.ImportIdsExist) as refused:
        _import(databases, facade, extra)

    message = str(refused.value)
    assert 'software_config c-1, c-2' in message
    assert 'server server-1, server-2' in message
    assert '--skip-existing' in message
    assert {table.name: _count(facade, table)
            for table in models.Base.metadata.sorted_tables} == before


@on_every_backend
def test_skip_existing_keeps_what_is_there_and_imports_the_rest(
        databases, backend):
    facade = databases(backend)
    document = _seeded_document(databases)
    smaller = copy.deepcopy(document)
    project = smaller['projects'][0]
    project['software_deployments'] = [
        row for row in project['software_deployments'] if row['id'] != 'd-1']
    project['deployment_events'] = []
    project['rollout_targets'] = []
    project['rollouts'] = []
    project['rollout_events'] = []
    _import(databases, facade, smaller)

    [report] = _import(databases, facade, document, skip_existing=True)

    assert report['inserted']['software_deployments'] == 1
    assert report['inserted']['deployment_events'] == 2
    assert report['inserted']['rollouts'] == 1
    assert report['inserted']['software_configs'] == 0
    assert report['skipped'] == {
        'software_configs': 2, 'servers': 2, 'server_labels': 2,
        'software_deployments': 1, 'deployment_events': 0,
        'server_groups': 1, 'server_group_members': 1, 'rollouts': 0,
        'rollout_targets': 0, 'rollout_events': 0}
    assert report['rendered'] == ['server-1']  # its deployment came
    imported = _export(databases, facade)['projects'][0]
    original = document['projects'][0]
    # The servers' documents are as they were (their revisions moved on).
    assert [(row['id'], row['etag'], row['document'])
            for row in imported.pop('servers')] == [
        (row['id'], row['etag'], row['document'])
        for row in original.pop('servers')]
    assert imported == original


@on_every_backend
def test_ids_of_another_project_are_refused_even_when_skipping(
        databases, backend):
    facade = databases(backend)
    document = _seeded_document(databases)
    _import(databases, facade, document)
    moved = copy.deepcopy(document)
    moved['projects'][0]['project_id'] = 'p-other'

    with pytest.raises(exception.ImportIdsOfOtherProject) as refused:
        _import(databases, facade, moved, skip_existing=True)

    assert 'software_config c-1, c-2' in str(refused.value)
    assert db_api.project_ids(ADMIN) == ['p1']


@on_every_backend
def test_taken_event_ids_are_numbered_anew_in_order(databases, backend):
    facade = databases(backend)
    source, other = databases('sqlite'), databases('sqlite')
    databases.use(source)
    _seed(source)
    first = _export(databases, source)
    databases.use(other)
    _seed(other, project='p2', prefix='q')  # events 7, 9 and 3 again
    second = _export(databases, other)
    _import(databases, facade, first)

    [report] = _import(databases, facade, second)

    assert report['renumbered'] == ['deployment_events', 'rollout_events']
    events = db_api.software_deployment_event_get_all(ADMIN, 'qd-1')
    assert [event['reason'] for event in events] == [
        'created', 'Outputs received']
    assert 9 < events[0]['id'] < events[1]['id']


@on_every_backend
def test_a_refusal_late_in_the_project_leaves_nothing_of_it(databases,
                                                            backend):
    """The group's name is taken by another group of the project: refused
    saying so, and the configs and servers inserted before are gone."""
    facade = databases(backend)
    document = _seeded_document(databases)
    _insert(facade, models.ServerGroup.__table__, [
        {'id': 'g-there', 'tenant': 'p1', 'name': 'web',
         'created_at': _at(0)}])

    with pytest.raises(exception.ServerGroupNameExists):
        _import(databases, facade, document)

    assert _count(facade, models.SoftwareConfig.__table__) == 0
    assert _count(facade, models.Server.__table__) == 0


def test_agent_documents_follow_the_importing_services_settings(
        databases, set_conf):
    source, destination = databases('sqlite'), databases('sqlite')
    databases.use(source)
    _seed(source)
    document = _export(databases, source)
    set_conf('public_url', 'http://elsewhere.test:8004', group='api')

    [report] = _import(databases, destination, document)

    assert report['rendered'] == ['server-1', 'server-2']
    imported = {server['id']: server for server in
                _export(databases, destination)['projects'][0]['servers']}
    for server in document['projects'][0]['servers']:
        assert imported[server['id']]['etag'] != server['etag']
        assert 'http://elsewhere.test:8004/' in imported[
            server['id']]['document']
        assert imported[server['id']]['document_revision'] == (
            server['document_revision'] + 1)


def test_naming_a_project_without_data_is_refused(databases):
    source = databases('sqlite')
    databases.use(source)
    _seed(source)
    with pytest.raises(exception.InvalidParameterValue) as refused:
        _export(databases, source, ['p1', 'p-typo'])
    assert 'No project p-typo in the database' in str(refused.value)
    assert 'projects with data: p1' in str(refused.value)


def _document(**project):
    return {'format': 'swconfig-export', 'version': 1,
            'projects': [{'project_id': 'p1', **project}]}


@pytest.mark.parametrize('document,said', [
    ([], 'no "format": "swconfig-export"'),
    ({'format': 'swconfig-export', 'version': 2, 'projects': []},
     'it is version 2; this release reads version 1'),
    ({'format': 'swconfig-export', 'version': 1, 'projects': {}},
     '"projects" is not a list'),
    ({'format': 'swconfig-export', 'version': 1, 'projects': [{}]},
     'projects[0] has no "project_id"'),
    ({'format': 'swconfig-export', 'version': 1,
      'projects': [{'project_id': 'a'}, {'project_id': 'a'}]},
     'project a is in it twice'),
])
def test_a_document_of_another_shape_is_refused(document, said):
    with pytest.raises(exception.InvalidExport) as refused:
        project_transfer.check_document(document)
    assert said in str(refused.value)


CONFIG = {'id': 'c-1', 'inputs': [], 'outputs': [],
          'created_at': '2030-01-01T00:00:00.000000Z'}


@pytest.mark.parametrize('project,said', [
    ({'stacks': []}, 'project p1: has stacks, which this release does not'),
    ({'servers': {}}, 'project p1: servers is not a list of objects'),
    ({'software_configs': [dict(CONFIG, colour='red')]},
     'software_configs[0] has colour, which this release does not know'),
    ({'software_configs': [{'id': 'c-1'}]},
     'software_configs[0] lacks created_at, inputs, outputs'),
    ({'software_configs': [dict(CONFIG, created_at='yesterday')]},
     "software_configs[0] created_at is 'yesterday', not a time"),
    ({'software_configs': [CONFIG], 'server_labels': [
        {'server_id': 's-9', 'key': 'k', 'value': 'v'}]},
     'server_labels name servers that are not in the project: s-9'),
])
def test_a_project_the_release_cannot_read_is_refused_saying_where(
        project, said):
    [checked] = project_transfer.check_document(_document(**project))
    with pytest.raises(exception.InvalidExport) as refused:
        project_transfer.import_project(checked)
    assert said in str(refused.value)


@on_every_backend
def test_refresh_brings_kept_deployments_up_to_date(databases, backend):
    facade = databases(backend)
    document = _seeded_document(databases)
    _import(databases, facade, document)
    changed = copy.deepcopy(document)
    [row] = [row for row in changed['projects'][0]['software_deployments']
             if row['id'] == 'd-2']
    row.update(status='COMPLETE', status_reason='Outputs received',
               output_values={'out': 'late'},
               updated_at='2030-03-04T06:00:00.000000Z')

    databases.use(facade)
    [checked] = project_transfer.check_document(changed)
    report = project_transfer.import_project(checked, skip_existing=True,
                                             refresh=True)
    again = project_transfer.import_project(checked, skip_existing=True,
                                            refresh=True)

    assert report['updated'] == {'software_deployments': 1}
    assert again['updated'] == {'software_deployments': 0}
    shown = db_api.software_deployment_get(ADMIN, 'd-2')
    assert (shown['status'], shown['output_values'], shown['version']) == (
        'COMPLETE', {'out': 'late'}, 2)
    assert shown['updated_at'] == datetime.datetime(2030, 3, 4, 6)
