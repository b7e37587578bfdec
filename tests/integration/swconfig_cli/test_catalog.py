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

"""The ``swconfig`` command finds swconfig in a real Keystone catalog
that Heat shares (doc/source/admin/keystone.rst): swconfig registered
under a service type of its own, and the command told so with
``OS_ORCHESTRATION_SERVICE_TYPE``, as openstacksdk's other per-service
settings are given."""

import json
import os
import subprocess
import uuid

import requests

from tests.fixtures import keystone as keystone_fixture
from tests.fixtures import processes

#: The type doc/source/admin/keystone.rst registers swconfig under when
#: Heat is "orchestration".
SERVICE_TYPE = 'software-config'
USER = 'member_a'


def _run(keystone, tmp_path, *args: str, **env: str
         ) -> subprocess.CompletedProcess:
    """The console script as a Keystone user of project A, in a HOME of
    its own (no clouds.yaml of the machine)."""
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith('OS_')}
    environ.update(
        HOME=str(tmp_path), OS_AUTH_URL=keystone.auth_url,
        OS_IDENTITY_API_VERSION='3', OS_USERNAME=USER,
        OS_PASSWORD=keystone.passwords[USER],
        OS_PROJECT_NAME=keystone.user_projects[USER],
        OS_USER_DOMAIN_ID=keystone_fixture.DOMAIN,
        OS_PROJECT_DOMAIN_ID=keystone_fixture.DOMAIN,
        OS_REGION_NAME=keystone_fixture.REGION, **env)
    return subprocess.run([processes.script('swconfig'), *args],
                          cwd=tmp_path, env=environ, capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_cli_selects_swconfig_by_its_own_service_type(
        keystone, embedded_service, tmp_path):
    keystone.register_endpoint(
        SERVICE_TYPE, f'{embedded_service.base_url}/v1/%(tenant_id)s')
    project_id = keystone.project_id(keystone.user_projects[USER])
    name = f'beside-heat-{uuid.uuid4().hex[:8]}'
    created = requests.post(
        f'{embedded_service.endpoint(project_id)}/software_configs',
        json={'name': name, 'group': 'script', 'config': 'true'},
        timeout=30)
    assert created.status_code == 200, created.text
    config_id = created.json()['software_config']['id']

    for interface in ('public', 'internal'):
        listed = _run(keystone, tmp_path, 'config', 'list', '-f', 'json',
                      OS_ORCHESTRATION_SERVICE_TYPE=SERVICE_TYPE,
                      OS_ORCHESTRATION_INTERFACE=interface)
        assert listed.returncode == 0, listed.stderr
        assert config_id in {row['id'] for row in json.loads(
            listed.stdout)}, listed.stdout


def test_a_service_type_not_in_the_catalog_is_named(keystone, tmp_path):
    missing = f'nothing-{uuid.uuid4().hex[:8]}'
    run = _run(keystone, tmp_path, 'config', 'list',
               OS_ORCHESTRATION_SERVICE_TYPE=missing)
    assert run.returncode == 1, run
    assert 'Traceback' not in run.stderr
    assert missing in run.stderr, run.stderr
