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

"""The ``swconfig`` command in a shell a user really has: an openrc's
variables left over beside ``OS_AUTH_TYPE=none``, a cloud that no
clouds.yaml names, an endpoint written without its scheme, a service
that is not running. Each gets one plain line, never a traceback."""

from tests.fixtures import processes
from tests.integration.swconfig_cli.cli_helpers import Cli

#: What an openrc leaves in the environment that the ``none`` auth type
#: cannot take.
OPENRC = {'OS_PROJECT_ID': 'p-0123', 'OS_PROJECT_NAME': 'demo',
          'OS_TOKEN': 'gAAAA-token', 'OS_USER_DOMAIN_NAME': 'Default'}


def _one_plain_line(run, text: str) -> None:
    assert run.returncode == 1, run
    assert run.stderr.strip().splitlines() == [run.stderr.strip()], run
    assert text in run.stderr, run
    assert 'Traceback' not in run.stderr, run
    assert run.stdout == ''


def test_openrc_variables_are_ignored_under_auth_type_none(cli):
    (cli.workdir / 'true.sh').write_text('#!/bin/sh\ntrue\n')
    cli('config', 'create', 'kept', '--group', 'script', '--config-file',
        'true.sh').ok()
    for name, value in OPENRC.items():
        listed = cli('config', 'list', '-f', 'value', '-c', 'name',
                     env={**cli.env, name: value})
        assert listed.ok().stdout == 'kept\n', (name, listed)

    with_all = {**cli.env, **OPENRC}
    assert cli('config', 'list', '-f', 'value', '-c', 'name',
               env=with_all).ok().stdout == 'kept\n'
    debug = cli('--debug', 'config', 'list', env=with_all).ok()
    said = [line for line in debug.stderr.splitlines()
            if 'ignoring' in line]
    assert said == ['Auth type none: ignoring OS_PROJECT_ID, '
                    'OS_PROJECT_NAME, OS_TOKEN, OS_USER_DOMAIN_NAME (they '
                    'apply only with Keystone)'], debug.stderr
    assert 'gAAAA-token' not in debug.stderr


def test_none_without_an_endpoint_names_the_variable_to_unset(cli):
    env = {key: value for key, value in cli.env.items()
           if key != 'OS_ENDPOINT'}
    run = cli('config', 'list', env={**env,
                                     'OS_AUTH_URL': 'http://127.0.0.1:1/v3'})
    _one_plain_line(run, 'OS_AUTH_TYPE=none needs OS_ENDPOINT')
    assert 'unset OS_AUTH_TYPE' in run.stderr


def test_an_unknown_cloud_is_one_line_naming_the_files_read(cli):
    for args, env in ((('--os-cloud', 'mycloud'), cli.env),
                      ((), {**cli.env, 'OS_CLOUD': 'mycloud'})):
        run = cli(*args, 'deployment', 'list', env=env)
        _one_plain_line(run, 'Cloud mycloud was not found. It is not in '
                             'any clouds.yaml (no clouds.yaml found in ')
        assert f'{cli.workdir}/.config/openstack' in run.stderr, run

    clouds = cli.workdir / 'clouds.yaml'
    clouds.write_text('clouds:\n  other:\n    auth_type: none\n')
    run = cli('--os-cloud', 'mycloud', 'deployment', 'list')
    _one_plain_line(run, f'It is not in any clouds.yaml (read {clouds})')


def test_an_endpoint_without_its_scheme_is_explained(cli):
    bare = cli.env['OS_ENDPOINT'].removeprefix('http://')
    run = cli('config', 'list', env={**cli.env, 'OS_ENDPOINT': bare})
    _one_plain_line(run, f"The endpoint '{bare}' (OS_ENDPOINT or "
                         f"--os-endpoint) is not a URL: write it with its "
                         f"scheme, e.g. http://{bare}.")


def test_a_service_that_is_not_running_is_one_plain_line(tmp_path):
    endpoint = f'http://{processes.HOST}:{processes.free_port()}/v1/demo'
    run = Cli(tmp_path, endpoint)('deployment', 'list')
    _one_plain_line(run, f'Cannot reach swconfig at {endpoint} (connection '
                         f'refused); check that the service runs')
