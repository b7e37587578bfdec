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

"""Seeding S servers x D deployments quickly, with the engine's own code.

Rows are built exactly as the engine would build them (derivation by
``swconfig.engine.deriving``, signed URLs by ``swconfig.common.signing``,
documents by ``swconfig.engine.metadata.build_document``) and written with
multi-row INSERTs through the ``swconfig.db.models`` tables, a chunk of
servers at a time, into one or more databases at once (the production-like
MariaDB and the embedded SQLite get identical data). ``verify`` then asks
the engine's renderer to re-render a sample: an unchanged ETag proves the
seeded documents are what the engine itself would serve.
"""

from collections.abc import Iterator
import dataclasses
import datetime
import time
import urllib.parse
import uuid

from oslo_db.sqlalchemy import engines
import sqlalchemy as sa

from benchmarks import common
from swconfig import transports
from swconfig.common import config_io
from swconfig.common import urls
from swconfig.db import migration
from swconfig.db import models
from swconfig.engine import deriving
from swconfig.engine import metadata

CHUNK = 1000  # servers per INSERT round
SCRIPT = '#!/bin/sh\necho "deploying $name on port $port"\n'
OUTPUT_VALUES = {'result': 'done', 'deploy_stdout': 'deployed\n',
                 'deploy_stderr': '', 'deploy_status_code': 0}


@dataclasses.dataclass
class Group:
    """Servers with the same number of deployments; the last deployment
    of each server is IN_PROGRESS (waiting for a signal) if ``waiting``."""

    name: str
    servers: int
    deployments: int
    waiting: bool = False


@dataclasses.dataclass
class Seeded:
    """What the load phases need to know about the seeded data."""

    targets: dict[str, list[common.Target]]  # group name -> agents
    signals: list[common.SignalTarget]  # IN_PROGRESS deployments
    creations: list[tuple[str, str, str]]  # (project, server, source id)
    rows: dict[str, int]
    seconds: float


def create_mariadb_database(name: str) -> str:
    """A fresh, empty MariaDB database; returns its URL."""
    admin = sa.create_engine(f'{common.MARIADB_URL}/',
                             isolation_level='AUTOCOMMIT')
    with admin.connect() as connection:
        connection.execute(sa.text(f'DROP DATABASE IF EXISTS {name}'))
        connection.execute(sa.text(
            f'CREATE DATABASE {name} CHARACTER SET utf8mb4'))
    admin.dispose()
    return f'{common.MARIADB_URL}/{name}?charset=utf8mb4'


def size_buffer_pool(megabytes: int) -> int | None:
    """Grow MariaDB's InnoDB buffer pool to ``megabytes`` (a production
    server sizes it to its RAM; the packaged default, 128 MB, cannot hold
    100,000 documents). Returns the previous size in bytes to restore, or
    None when nothing was changed."""
    admin = sa.create_engine(f'{common.MARIADB_URL}/',
                             isolation_level='AUTOCOMMIT')
    try:
        with admin.connect() as connection:
            current = connection.execute(sa.text(
                'SELECT @@innodb_buffer_pool_size')).scalar()
            wanted = megabytes * 1024 * 1024
            if current >= wanted:
                return None
            _set_buffer_pool(connection, wanted)
            return current
    finally:
        admin.dispose()


def restore_buffer_pool(size: int | None) -> None:
    if size is None:
        return
    admin = sa.create_engine(f'{common.MARIADB_URL}/',
                             isolation_level='AUTOCOMMIT')
    try:
        with admin.connect() as connection:
            _set_buffer_pool(connection, size)
    finally:
        admin.dispose()


def _set_buffer_pool(connection: sa.engine.Connection, size: int) -> None:
    connection.execute(sa.text(
        f'SET GLOBAL innodb_buffer_pool_size = {int(size)}'))


def warm(url: str) -> float:
    """Read every server's document once, as a running cloud's agents do
    every polling interval, so the polls are measured against the hot set
    a production server holds in memory rather than against the pages the
    seeding happened to leave there (MariaDB reads with O_DIRECT: a page
    not in the buffer pool is a disk read). Returns the seconds taken."""
    started = time.monotonic()
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            connection.execute(sa.text(
                'SELECT COUNT(*), SUM(LENGTH(document)), SUM(LENGTH(etag)) '
                'FROM server')).one()
    finally:
        engine.dispose()
    return time.monotonic() - started


def drop_mariadb_database(name: str) -> None:
    admin = sa.create_engine(f'{common.MARIADB_URL}/',
                             isolation_level='AUTOCOMMIT')
    with admin.connect() as connection:
        connection.execute(sa.text(f'DROP DATABASE IF EXISTS {name}'))
    admin.dispose()


def _source_config(project: str, created_at: datetime.datetime) -> dict:
    return {
        'id': str(uuid.uuid4()), 'name': 'app', 'group': 'script',
        'config': SCRIPT,
        'inputs': config_io.normalise_inputs([
            {'name': 'name', 'type': 'String', 'default': 'world'},
            {'name': 'port', 'type': 'Number', 'default': 8080}]),
        'outputs': config_io.normalise_outputs([
            {'name': 'result'}, {'name': 'err', 'error_output': True}]),
        'options': {}, 'tenant': project, 'created_at': created_at,
    }


def _local(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f'{parts.path}?{parts.query}'


class _Builder:
    """Builds the rows of one chunk of servers."""

    def __init__(self, base_url: str, projects: list[str],
                 sources: dict[str, dict]) -> None:
        self.base_url = base_url
        self.projects = projects
        self.sources = sources
        self.transport = transports.get('HEAT_SIGNAL')
        self.clock = datetime.datetime.utcnow() - datetime.timedelta(days=1)
        self.timeout_at = datetime.datetime.utcnow() + datetime.timedelta(
            days=1)

    def _tick(self) -> datetime.datetime:
        self.clock += datetime.timedelta(microseconds=100)
        return self.clock

    def server(self, group: Group, index: int, rows: dict) -> tuple:
        server_id = f'bench-{group.name}-{index:07d}'
        project = self.projects[index % len(self.projects)]
        source = self.sources[project]
        server = {'id': server_id, 'base_url': self.base_url,
                  'token_revision': 1}
        pairs = []
        signal = None
        for number in range(group.deployments):
            deployment_id = str(uuid.uuid4())
            waiting = group.waiting and number == group.deployments - 1
            when = self._tick()
            inputs = {'name': server_id, 'port': 8000 + number}
            config = deriving.derive(source, server, deployment_id, 1,
                                     'CREATE', inputs, self.transport,
                                     name=f'app-{number:03d}')
            config['created_at'] = when
            deployment = {
                'id': deployment_id, 'config_id': config['id'],
                'server_id': server_id, 'input_values': inputs,
                'output_values': None if waiting else OUTPUT_VALUES,
                'tenant': project, 'stack_user_project_id': None,
                'action': 'CREATE',
                'status': 'IN_PROGRESS' if waiting else 'COMPLETE',
                'status_reason': ('Deploy data available' if waiting
                                  else 'Outputs received'),
                'version': 1 if waiting else 2, 'created_at': when,
                'updated_at': None if waiting else when,
                'source_config_id': source['id'],
                'signal_transport': self.transport.name,
                'action_revision': 1,
                'timeout_at': self.timeout_at if waiting else None,
            }
            rows['software_config'].append(config)
            rows['software_deployment'].append(deployment)
            rows['deployment_event'].append({
                'deployment_id': deployment_id, 'created_at': when,
                'action': 'CREATE', 'old_status': None,
                'new_status': deployment['status'],
                'reason': deployment['status_reason']})
            pairs.append({'deployment': deployment, 'config': config})
            if waiting:
                signal = common.SignalTarget(deployment_id, _local(
                    urls.agent_signal_url(deployment_id, 1)))
        document = metadata.build_document(server, pairs)
        etag = metadata.document_etag(document)
        now = self._tick()
        rows['server'].append({
            'id': server_id, 'tenant': project, 'base_url': self.base_url,
            'token_revision': 1, 'document': document, 'etag': etag,
            'document_revision': 1, 'created_at': now, 'updated_at': now})
        target = common.Target(server_id, _local(urls.agent_metadata_url(
            server_id, 1)), etag, project)
        return target, signal, project


def _empty_rows() -> dict[str, list[dict]]:
    return {'software_config': [], 'software_deployment': [],
            'deployment_event': [], 'server': []}


TABLES = {'software_config': models.SoftwareConfig.__table__,
          'software_deployment': models.SoftwareDeployment.__table__,
          'deployment_event': models.DeploymentEvent.__table__,
          'server': models.Server.__table__}


def _write(engine: sa.engine.Engine, rows: dict[str, list[dict]]) -> None:
    with engine.begin() as connection:
        if engine.dialect.name == 'mysql':
            connection.exec_driver_sql('SET unique_checks=0')
            connection.exec_driver_sql('SET foreign_key_checks=0')
        for name, table in TABLES.items():  # parents before children
            for start in range(0, len(rows[name]), 500):
                connection.execute(table.insert(),
                                   rows[name][start:start + 500])


def open_engines(urls: list[str]) -> list[sa.engine.Engine]:
    """Engines with oslo.db's settings, the schema migrated to head."""
    result = []
    for url in urls:
        engine = engines.create_engine(url, sqlite_fk=True,
                                       sqlite_synchronous=False,
                                       max_retries=3, retry_interval=1)
        migration.upgrade('head', engine=engine)
        result.append(engine)
    return result


def _chunks(total: int) -> Iterator[range]:
    for start in range(0, total, CHUNK):
        yield range(start, min(total, start + CHUNK))


def seed(urls: list[str], groups: list[Group], base_url: str,
         signal_count: int, creation_count: int) -> Seeded:
    """Seed every database in ``urls`` with the same ``groups``.

    The caller has configured swconfig's CONF (signing key, polling
    interval) exactly as the services under test will be.
    """
    started = time.monotonic()
    targets_engines = open_engines(urls)
    projects = [f'bench-project-{n:03d}' for n in range(max(
        1, min(100, groups[0].servers // 1000)))]
    epoch = datetime.datetime.utcnow() - datetime.timedelta(days=2)
    sources = {project: _source_config(project, epoch)
               for project in projects}
    for engine in targets_engines:
        with engine.begin() as connection:
            connection.execute(TABLES['software_config'].insert(),
                               list(sources.values()))
    builder = _Builder(base_url, projects, sources)
    seeded = Seeded({}, [], [], dict.fromkeys(TABLES, 0), 0.0)
    for group in groups:
        seeded.targets[group.name] = []
        for chunk in _chunks(group.servers):
            rows = _empty_rows()
            for index in chunk:
                target, signal, project = builder.server(group, index, rows)
                seeded.targets[group.name].append(target)
                if signal is not None and len(seeded.signals) < signal_count:
                    seeded.signals.append(signal)
                elif (group.waiting
                      and len(seeded.creations) < creation_count):
                    seeded.creations.append(
                        (project, target.server_id, sources[project]['id']))
            for engine in targets_engines:
                _write(engine, rows)
            for name, values in rows.items():
                seeded.rows[name] += len(values)
        common.log(f'seeded group {group.name}: {group.servers} servers x '
                   f'{group.deployments} deployments')
    for engine in targets_engines:
        engine.dispose()
    seeded.seconds = time.monotonic() - started
    return seeded


def verify(server_ids: list[str]) -> int:
    """Re-render ``server_ids`` with the engine's renderer (CONF's
    database); returns how many documents it had to rewrite (0 expected).
    """
    from swconfig.common import context as swconfig_context
    from swconfig.db import api as db_api
    from swconfig.db import session

    admin = swconfig_context.get_admin_context()
    rewritten = 0
    for server_id in server_ids:
        before = db_api.server_get(admin, server_id)['document_revision']
        metadata.render(server_id)
        after = db_api.server_get(admin, server_id)['document_revision']
        rewritten += after != before
    session.dispose_engine()
    return rewritten
