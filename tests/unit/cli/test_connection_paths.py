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

"""Which way the ``swconfig`` command reads its connection settings:
without openstacksdk for the endpoint alone under ``OS_AUTH_TYPE=none``
(half of a command's start-up, ``benchmarks/cli_startup.py``), through
openstacksdk for everything else, which knows what each setting means."""

import argparse
import json
import os
import subprocess
import sys

import pytest

from swconfig.cli import cloud
from swconfig.cli import clouds_config
from swconfig.cli import endpoint_only

ENDPOINT = 'http://127.0.0.1:8004/v1/demo'
NONE = {'OS_AUTH_TYPE': 'none', 'OS_ENDPOINT': ENDPOINT}


@pytest.mark.parametrize('argv, environ', [
    ([], NONE),
    (['--os-auth-type', 'none', '--os-endpoint', ENDPOINT], {}),
    (['--os-auth-type=noauth', f'--os-endpoint={ENDPOINT}'], {}),
    (['deployment', 'list'], dict(NONE, HOME='/tmp', PATH='/bin')),
    # the command's own options are not connection settings
    (['deployment', 'create', '--timeout', '5', '--', '--os-cloud'], NONE),
])
def test_the_endpoint_alone_needs_no_openstacksdk(argv, environ):
    assert endpoint_only.applies(argv, environ)


@pytest.mark.parametrize('argv, environ', [
    ([], {}),  # Keystone's password plugin by default
    ([], {'OS_AUTH_TYPE': 'none'}),  # no endpoint: openstacksdk explains
    ([], dict(NONE, OS_CLOUD='mine')),
    (['--os-cloud', 'mine'], NONE),
    ([], dict(NONE, OS_PROJECT_ID='x')),  # an openrc: ignored, at --debug
    ([], dict(NONE, OS_CACERT='/ca.pem')),
    (['--insecure'], NONE),
    (['--os-timeout', '5'], NONE),
    (['--os-auth-type', 'password'], NONE),  # the command line wins
    (['--os-endpoint', ''], {'OS_AUTH_TYPE': 'none'}),
])
def test_every_other_setting_goes_to_openstacksdk(argv, environ):
    assert not endpoint_only.applies(argv, environ)


def test_both_paths_give_the_same_session_and_endpoint(monkeypatch):
    """The endpoint-only path gives what openstacksdk gives for it."""
    for key in [key for key in os.environ if key.startswith('OS_')]:
        monkeypatch.delenv(key)
    for key, value in NONE.items():
        monkeypatch.setenv(key, value)
    made = []
    for register in (endpoint_only.register_arguments,
                     clouds_config.register_arguments):
        parser = argparse.ArgumentParser()
        loader = register(parser, os.environ if register is
                          endpoint_only.register_arguments else [])
        client = cloud.make_client(loader, parser.parse_args([]))
        made.append((client.endpoint, type(client.session.auth),
                     client.session.get_auth_headers(),
                     client.session.verify))
    assert made[0] == made[1]
    assert made[0][0] == ENDPOINT


#: A command on the endpoint-only path, up to its request (which fails:
#: nothing listens on port 9), then the modules loaded.
_COMMAND = '''
import json, sys
from swconfig.cli import main
code = main.main(['deployment', 'list'])
print(json.dumps([code, sorted(sys.modules)]))
'''


def test_a_command_without_keystone_loads_no_openstacksdk():
    environ = {key: value for key, value in os.environ.items()
               if not key.startswith('OS_')}
    environ.update(OS_AUTH_TYPE='none',
                   OS_ENDPOINT='http://127.0.0.1:9/v1/demo')
    result = subprocess.run([sys.executable, '-c', _COMMAND],
                            capture_output=True, text=True, timeout=120,
                            env=environ, check=False)
    code, loaded = json.loads(result.stdout.splitlines()[-1])
    assert code == 1 and 'Cannot reach swconfig' in result.stderr
    assert [name for name in loaded if name.split('.')[0] == 'openstack'
            ] == []
