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

"""``swconfig config create`` makes structured configs, as
OS::Heat::StructuredConfig does: a JSON or YAML mapping given for a
structured group (apply-config, docker-compose, ...) is stored as an
object, so ``deployment create --input-key get_input`` writes the inputs
into it and ``--strict-inputs`` refuses an input the config lacks.
``--config-format`` reads the file as the user says, whatever the
group."""

import json
import uuid

from tests.integration.swconfig_cli.cli_helpers import one_line_error

SETTINGS = {'port': {'get_input': 'port'}, 'name': 'web'}


def _create(cli, name: str, group: str, filename: str, text: str,
            *options: str) -> dict:
    (cli.workdir / filename).write_text(text)
    return cli('config', 'create', name, '--group', group, '--config-file',
               filename, *options, '-f', 'json').ok().json()


def _stored(cli, config_id: str):
    return cli('config', 'show', config_id, '-f', 'json').ok().json()[
        'config']


def test_a_json_mapping_for_apply_config_is_an_object(cli):
    config = _create(cli, 'st', 'apply-config', 's.json',
                     json.dumps(SETTINGS), '--input', 'port')
    assert _stored(cli, config['id']) == SETTINGS

    server = f'srv-{uuid.uuid4().hex[:8]}'
    deployment = cli('deployment', 'create', '--config', config['id'],
                     '--server', server, '--input', 'port=8080',
                     '--input-key', 'get_input', '--strict-inputs', '-f',
                     'json').ok().json()
    assert _stored(cli, deployment['config_id']) == {'port': '8080',
                                                    'name': 'web'}


def test_strict_inputs_refuses_an_input_the_config_lacks(cli):
    config = _create(cli, 'st-missing', 'docker-compose', 's.yaml',
                     'web:\n  image: nginx\n  ports:\n'
                     '  - {get_input: port}\n')
    assert _stored(cli, config['id']) == {
        'web': {'image': 'nginx', 'ports': [{'get_input': 'port'}]}}
    refused = cli('deployment', 'create', '--config', config['id'],
                  '--server', f'srv-{uuid.uuid4().hex[:8]}', '--input-key',
                  'get_input', '--strict-inputs')
    one_line_error(refused, 400, 'port')
    assert cli('deployment', 'list', '-f', 'json').ok().json() == []


def test_config_format_overrides_the_group(cli):
    as_text = _create(cli, 'st-text', 'apply-config', 's.json',
                      json.dumps(SETTINGS), '--config-format', 'text')
    assert _stored(cli, as_text['id']) == json.dumps(SETTINGS)

    as_yaml = _create(cli, 'vars', 'ansible', 'vars.yaml', 'a: 1\n',
                      '--config-format', 'yaml')
    assert _stored(cli, as_yaml['id']) == {'a': 1}

    (cli.workdir / 'bad.json').write_text('{"a": ')
    bad = cli('config', 'create', 'bad', '--group', 'apply-config',
              '--config-file', 'bad.json', '--config-format', 'json')
    assert bad.returncode == 1, bad
    assert bad.stderr.startswith('bad.json is not valid JSON: '), bad


def test_text_stays_text(cli):
    script = '#!/bin/sh\necho hello\n'
    plain = _create(cli, 'sh', 'script', 'run.sh', script)
    assert _stored(cli, plain['id']) == script
    # A mapping for a hook that writes its config to a file as text.
    playbook = '- hosts: localhost\n  tasks: []\n'
    assert _stored(cli, _create(cli, 'pb', 'ansible', 'pb.yaml',
                                playbook)['id']) == playbook
    # A structured group's file that is no mapping: kept as Heat would.
    assert _stored(cli, _create(cli, 'odd', 'apply-config', 'odd.txt',
                                script)['id']) == script
