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

"""Lists of deployments at the engine (``deployment_batches``) on every
real backend: a chunk's statements do not grow with it, a list is
derived exactly as single creations are, the quota counts it whole, a
chunk that fails undoes the ones before it, and two requests with one
Idempotency-Key leave one list.

Each test gets a fresh database (a SQLite file, or a scratch database on
the real MariaDB and PostgreSQL), migrated to head and patched into
swconfig.db.api for the test's duration.
"""

import json
import threading

import pytest
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.common.deployment_request import DeploymentRequest
from swconfig.db import api as db_api
from swconfig.db import models
from swconfig.engine import deployment_batches
from swconfig.engine import deployments
from tests.unit.db import backends
from tests.unit.db import rows

pytestmark = pytest.mark.usefixtures('keyring')

ROW_LOCKING_BACKENDS = ('mysql', 'postgresql')
INPUTS = [{'name': 'port', 'type': 'Number', 'default': 80}]
COMPONENT = {'configs': [{'actions': ['CREATE'], 'tool': 'script',
                          'config': 'echo create'}]}
JOIN_TIMEOUT = 60

on_row_locking_backends = pytest.mark.parametrize(
    'facade', ROW_LOCKING_BACKENDS, indirect=True)


def _requests(config, servers, count, prefix='s', **extra):
    return [DeploymentRequest(server_id=f'{prefix}{index % servers}',
                              config_id=config['id'],
                              signal_transport='HEAT_SIGNAL',
                              input_values={'port': index}, **extra)
            for index in range(count)]


def _read(facade, table):
    with facade.writer.get_engine().connect() as connection:
        return [row._asdict() for row in connection.execute(
            sa.select(table))]


def _count(facade, model):
    with facade.writer.get_engine().connect() as connection:
        return connection.scalar(sa.select(sa.func.count()).select_from(
            model))


def _documents(facade):
    """{server id: the config ids its document lists}."""
    return {row['id']: sorted(entry['id'] for entry in json.loads(
        row['document'])['deployments'])
        for row in _read(facade, models.Server.__table__)
        if row['document'] is not None}


@backends.on_every_backend
def test_statements_per_chunk_do_not_grow(facade, ctx):
    """One transaction of the same statements for 3 deployments on 3
    servers, 30 on 30 and 30 on 3 (each server rendered once)."""
    config = rows.make_config(ctx, inputs=INPUTS)
    engine = facade.writer.get_engine()

    def measure(count, servers, prefix):
        found = deployment_batches.plan(
            ctx, _requests(config, servers, count, prefix))
        assert found.problems == {}
        executed, commits = [], []

        caller = threading.get_ident()

        def record(conn, cursor, statement, *args):
            # This call's statements only, not another thread's that
            # happens to use the same engine meanwhile.
            if threading.get_ident() == caller:
                executed.append(statement)

        def committed(conn):
            if threading.get_ident() == caller:
                commits.append(conn)

        sa.event.listen(engine, 'before_cursor_execute', record)
        sa.event.listen(engine, 'commit', committed)
        try:
            written = deployment_batches.write(ctx, found.items,
                                               chunk_size=count)
        finally:
            sa.event.remove(engine, 'before_cursor_execute', record)
            sa.event.remove(engine, 'commit', committed)
        assert len(written) == count
        assert len(commits) == 1
        documents = _documents(facade)
        for row in written:
            assert row['config_id'] in documents[row['server_id']]
        return len(executed)

    few = measure(3, 3, 'a')
    assert measure(30, 30, 'b') == few
    assert measure(30, 3, 'c') == few
    # Lock the servers, insert the new ones, the derived configs, the
    # deployments and their events, read the servers' deployments, store
    # their documents, log the changes; SQLite's BEGIN besides.
    assert few == (9 if facade.writer.get_engine().name == 'sqlite' else 8)


@backends.on_every_backend
def test_a_list_is_derived_as_single_creations_are(facade, ctx):
    """The same request made alone and in a list: the same deployment
    and derived config, but for what is new each time (ids, times, the
    signal URL signed over the deployment id)."""
    config = rows.make_config(ctx, inputs=INPUTS, name='web')
    request = DeploymentRequest(
        server_id='s1', config_id=config['id'], signal_transport='HEAT_SIGNAL',
        input_values={'port': 8080, 'extra': 'x'}, name='web-1',
        timeout=600, stack_user_project_id='stack-users')
    alone = deployments.create(ctx, request)
    [listed] = deployment_batches.create_many(ctx, [request])
    differ = {'id', 'config_id', 'created_at', 'timeout_at', 'updated_at'}

    def same(row):
        return {key: value for key, value in row.items()
                if key not in differ}

    assert same(listed) == same(alone)
    assert abs((listed['timeout_at'] - alone['timeout_at'])
               .total_seconds()) < 60

    def derived(row):
        found = db_api.software_config_get(ctx, row['config_id'])
        inputs = {item['name']: item.get('value')
                  for item in found['inputs']}
        url = inputs.pop('deploy_signal_id')
        assert row['id'] in url
        return (found['name'], found['group'], found['config'],
                found['outputs'], found['options'], inputs)

    assert derived(listed) == derived(alone)
    events = [db_api.software_deployment_event_get_all(ctx, row['id'])
              for row in (alone, listed)]
    assert [[(e['new_status'], e['reason']) for e in found]
            for found in events] == [
        [('IN_PROGRESS', 'Deploy data available')]] * 2


@backends.on_every_backend
def test_each_bad_item_gets_the_message_a_single_creation_gets(
        facade, ctx, other_ctx, forgotten):
    config = rows.make_config(ctx, inputs=INPUTS)
    component = rows.make_config(ctx, group='component', config=COMPONENT)
    foreign = rows.make_config(other_ctx)
    db_api.server_claim(other_ctx, 'taken', None)
    good = DeploymentRequest(server_id='s1', config_id=config['id'],
                             signal_transport='HEAT_SIGNAL')
    bad = {
        1: DeploymentRequest(server_id='s2', config_id=foreign['id'],
                             signal_transport='HEAT_SIGNAL'),
        2: DeploymentRequest(server_id='taken', config_id=config['id'],
                             signal_transport='HEAT_SIGNAL'),
        4: DeploymentRequest(server_id='s3', config_id=config['id'],
                             signal_transport='PIGEON'),
        5: DeploymentRequest(server_id='s4', config_id=config['id'],
                             input_key='get_input'),
        6: DeploymentRequest(server_id='s5', config_id=component['id'],
                             signal_transport='HEAT_SIGNAL',
                             action='BACKUP'),
        7: DeploymentRequest(server_id='', config_id=config['id']),
    }
    listed = [bad.get(index, good) for index in range(9)]
    found = deployment_batches.plan(ctx, listed)
    assert [item.index for item in found.items] == [0, 3, 8]
    expected = {}
    for index, request in bad.items():
        with pytest.raises(exception.SwconfigException) as single:
            deployments.create(ctx, request)
        expected[index] = single.value.message
    assert found.problems == expected
    with pytest.raises(exception.BatchInvalid) as refused:
        deployment_batches.create_many(ctx, listed)
    assert len(forgotten) == 3  # the good items were derived
    assert refused.value.code == 400
    assert refused.value.message.startswith(
        '6 of the 9 items cannot be created, so none was: items[1]: '
        f'Software config with id {foreign["id"]} not found; items[2]: ')
    assert _count(facade, models.SoftwareDeployment) == 0
    assert db_api.server_owner(ctx, 's1') is None


@backends.on_every_backend
def test_the_quota_counts_the_list_whole(facade, ctx, set_conf):
    set_conf('max_software_deployments_per_tenant', 5)
    config = rows.make_config(ctx, inputs=INPUTS)
    assert len(deployment_batches.create_many(
        ctx, _requests(config, 3, 3))) == 3
    with pytest.raises(exception.RequestLimitExceeded) as refused:
        deployment_batches.create_many(ctx, _requests(config, 3, 3, 'x'))
    assert 'would make 6 software deployments' in refused.value.message
    assert len(deployment_batches.create_many(
        ctx, _requests(config, 2, 2, 'y'))) == 2
    assert _count(facade, models.SoftwareDeployment) == 5


@pytest.fixture
def forgotten(monkeypatch):
    """The deployments whose signal transport was told to remove what it
    made for them (HEAT_SIGNAL makes nothing, so the call is recorded)."""
    found = []
    monkeypatch.setattr(deployments, 'forget_transport',
                        lambda row: found.append(row['id']))
    return found


@backends.on_every_backend
def test_a_failed_chunk_undoes_the_chunks_before(facade, ctx, other_ctx,
                                                 forgotten):
    """A server another project registered after the list was checked:
    the chunk that claims it fails, and the chunks written before it are
    deleted again, with their derived configs and events; the servers'
    documents are rendered without them."""
    config = rows.make_config(ctx, inputs=INPUTS)
    requests = [DeploymentRequest(server_id=server, config_id=config['id'],
                                  signal_transport='HEAT_SIGNAL')
                for server in ('a', 'b', 'c', 'd', 'late')]
    found = deployment_batches.plan(ctx, requests)
    assert found.problems == {}
    db_api.server_claim(other_ctx, 'late', None)  # committed meanwhile
    with pytest.raises(exception.ServerOwnedByOtherProject):
        deployment_batches.write(ctx, found.items, chunk_size=2)
    assert _count(facade, models.SoftwareDeployment) == 0
    assert _count(facade, models.DeploymentEvent) == 0
    assert [row['id'] for row in _read(
        facade, models.SoftwareConfig.__table__)] == [config['id']]
    documents = _documents(facade)
    assert {server: documents[server] for server in 'abcd'} == dict.fromkeys(
        'abcd', [])
    assert forgotten == [item.values['id'] for item in found.items]


@on_row_locking_backends
def test_one_key_two_concurrent_lists_one_survives(facade, ctx,
                                                   monkeypatch, caplog):
    """The second request checks the key while the first is writing its
    chunks, so both write; the one that stores the key with its last
    chunk wins, the other undoes its chunks and answers with the
    winner's deployments."""
    config = rows.make_config(ctx, inputs=INPUTS)
    requests = _requests(config, 5, 5)
    second_planning = threading.Event()
    real_plan = deployment_batches.plan
    results = {}

    def plan(context, listed, first_id=None):
        if threading.current_thread().name == 'second':
            second_planning.set()
        return real_plan(context, listed, first_id)

    monkeypatch.setattr(deployment_batches, 'plan', plan)

    def first_chunk(context, written, last):
        if threading.current_thread().name == 'first':
            second_planning.wait(JOIN_TIMEOUT)

    def run(name):
        try:
            results[name] = deployment_batches.create_many(
                rows.context_for(ctx.project_id), requests, 'one-key',
                in_chunk=first_chunk, chunk_size=2)
        except Exception as exc:  # reported by the assertion below
            results[name] = exc

    threads = [threading.Thread(target=run, args=(name,), name=name)
               for name in ('first', 'second')]
    threads[0].start()
    threads[1].start()
    for thread in threads:
        thread.join(JOIN_TIMEOUT)
    assert second_planning.is_set()
    first, second = results['first'], results['second']
    assert isinstance(first, list), first
    assert isinstance(second, list), second
    assert [row['id'] for row in first] == [row['id'] for row in second]
    assert sorted(row['id'] for row in _read(
        facade, models.SoftwareDeployment.__table__)) == sorted(
        row['id'] for row in first)
    assert _count(facade, models.SoftwareConfig) == 6  # source + derived
    # The loser had written its first two chunks.
    assert 'Undid the 4 deployments a list wrote before it stopped ' \
           '(_MadeMeanwhile)' in caplog.text
