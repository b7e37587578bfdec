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

"""How long ``swconfig-manage heat-import`` takes for a Heat of N
deployments (1,000 by default, ten per server, each with its derived
config as Heat makes them), into a fresh SQLite swconfig; then a second,
idempotent run, and ``export`` and ``import`` of the project it made.

Each figure is the whole command, start to exit; the reference is the
same command's start-up alone (``swconfig-manage db version``), in the
same run. Compare the ratios between runs, not the seconds.

    python3 -m benchmarks.heat_import [--deployments 1000]
"""

import argparse
import datetime
import json
import os
import pathlib
import subprocess
import tempfile
import time

import sqlalchemy as sa

from swconfig.engine import heat_import
from tests.fixtures import processes

PROJECT = 'bench-project'


def heat_database(path: pathlib.Path, deployments: int) -> str:
    """A SQLite file laid out as Heat's tables, holding ``deployments``
    deployments on ``deployments // 10`` servers (at least one)."""
    url = f'sqlite:///{path}'
    engine = sa.create_engine(url)
    heat_import.HEAT_TABLES.create_all(engine)
    start = datetime.datetime(2030, 1, 1)
    servers = max(deployments // 10, 1)
    configs, rows = [], []
    for index in range(deployments):
        at = start + datetime.timedelta(seconds=index)
        config_id = f'{index:08d}-0000-4000-8000-000000000000'
        configs.append({
            'id': config_id, 'name': f'config-{index % 7}',
            'group': 'script', 'tenant': PROJECT, 'created_at': at,
            'config': json.dumps({
                'config': '#!/bin/sh\necho "$name"\n' * 20,
                'inputs': [{'name': 'name', 'value': f'n{index}'},
                           {'name': 'deploy_server_id',
                            'value': f'server-{index % servers}'},
                           {'name': 'deploy_signal_transport',
                            'value': 'NO_SIGNAL'}],
                'outputs': [{'name': 'result'}], 'options': {}})})
        rows.append({
            'id': f'{index:08d}-0000-4000-8000-00000000d000',
            'config_id': config_id, 'server_id': f'server-{index % servers}',
            'input_values': json.dumps({'name': f'n{index}'}),
            'output_values': json.dumps({'result': 'ok'}),
            'action': 'CREATE', 'status': 'COMPLETE',
            'status_reason': 'Outputs received', 'tenant': PROJECT,
            'stack_user_project_id': None, 'created_at': at,
            'updated_at': at})
    with engine.begin() as connection:
        connection.execute(sa.insert(heat_import.CONFIG_TABLE), configs)
        connection.execute(sa.insert(heat_import.DEPLOYMENT_TABLE), rows)
    engine.dispose()
    return url


def _timed(config_file: str, *args: str) -> float:
    started = time.monotonic()
    subprocess.run([processes.script('swconfig-manage'), '--config-file',
                    config_file, *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--deployments', type=int, default=1000,
                        help='Deployments in the Heat database (default '
                             '1000, ten per server).')
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as workdir:
        root = pathlib.Path(workdir)
        heat_url = heat_database(root / 'heat.sqlite', args.deployments)
        configs = {}
        for name in ('first', 'second'):
            os.makedirs(root / name)
            configs[name] = processes.write_config(
                str(root / name / 'swconfig.conf'),
                {'DEFAULT': {'state_path': root / name},
                 'agent': {'signing_keys': 'bench:' + 'k' * 32}})
            _timed(configs[name], 'db', 'sync')
        export = str(root / 'export.json')
        figures = {
            'reference: db version': _timed(configs['first'], 'db',
                                            'version'),
            'heat-import': _timed(configs['first'], 'heat-import',
                                  '--heat-database', heat_url),
            'heat-import again (nothing new)': _timed(
                configs['first'], 'heat-import', '--heat-database',
                heat_url),
            'export': _timed(configs['first'], 'export', '--file', export),
            'import into another database': _timed(
                configs['second'], 'import', '--file', export),
        }
    reference = figures['reference: db version']
    print(f'{args.deployments} deployments, '
          f'{max(args.deployments // 10, 1)} servers')
    for name, seconds in figures.items():
        print(f'{name:<32} {seconds:7.2f} s  {seconds / reference:5.1f} x '
              f'reference')
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
