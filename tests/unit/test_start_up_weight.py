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

"""What the embedded default loads to start: nothing it does not use.

``swconfig-all`` spends nearly all of its start-up importing, so a library
loaded for a feature the process does not use (the Swift client, the
Keystone middleware under noauth, alembic on a database already at the
current schema, eventlet's DNS resolver on the threading backend, the
RabbitMQ driver with the in-process bus) is start-up time lost by every
newcomer and every test that spawns a process (benchmarks/startup.py
times it).
"""

import json
import os
import subprocess
import sys

#: Start the embedded default as swconfig.cmd.all does, short of
#: launching it, and print the modules then loaded.
_START = '''
import json, sys
from swconfig.cmd import all as cmd_all
from swconfig.common import process
from swconfig.conf import CONF

CONF.set_default('auth_strategy', 'noauth')
CONF.set_default('generate_signing_key', True, group='agent')
process.init_process(['swconfig-all'], default_transport_url='fake://')
from oslo_service import service
from swconfig.api import app, server
from swconfig.common import config
from swconfig.db import migration
from swconfig.engine import service as engine_service

config.ensure_state_path()
migration.upgrade('head')
engine_service.check_config()
app.setup_app()
engine_service.EngineService()
print(json.dumps(sorted(sys.modules)))
'''

UNUSED = ('swiftclient', 'keystonemiddleware.auth_token', 'alembic',
          'dns', 'kombu')


def _loaded(state_path: str) -> set[str]:
    result = subprocess.run(
        [sys.executable, '-c', _START], capture_output=True, text=True,
        timeout=120, check=False,
        env=dict(os.environ, OS_DEFAULT__STATE_PATH=state_path))
    assert result.returncode == 0, result.stderr[-3000:]
    return set(json.loads(result.stdout.splitlines()[-1]))


def test_a_warm_start_loads_none_of_what_it_does_not_use(tmp_path):
    first = _loaded(str(tmp_path))
    assert 'alembic' in first  # the schema was created: it migrated
    warm = _loaded(str(tmp_path))
    assert 'pecan' in warm and 'sqlalchemy' in warm  # it did start
    assert sorted(name for name in UNUSED if name in warm) == []
