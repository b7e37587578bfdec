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


"""The ``swconfig`` command with a user's mistakes: a typo in an action
is an error naming the actions defined (never a success), a second
trigger of a running action is refused unless ``--allow-concurrent``,
and a trigger says on stderr what the agent will run. The real console
script against a real ``swconfig-all``, as in test_commands.py."""

import os
import uuid

from tests.integration.swconfig_cli.cli_helpers import COMPONENT
from tests.integration.swconfig_cli.cli_helpers import Cli
from tests.integration.swconfig_cli.cli_helpers import hello_config
from tests.integration.swconfig_cli.cli_helpers import one_line_error

DEFINED = 'its entries define CREATE, BACKUP, SUSPEND, RESUME, DELETE.'


def _component_deployment(cli: Cli) -> str:
    (cli.workdir / 'component.yaml').write_text(COMPONENT)
    config = cli('config', 'create', 'comp', '--group', 'component',
                 '--config-file', 'component.yaml', '-f', 'value', '-c',
                 'id').ok().stdout.strip()
    return cli('deployment', 'create', '--config', config, '--server',
               f'srv-{uuid.uuid4().hex[:8]}', '-f', 'value', '-c',
               'id').ok().stdout.strip()


def test_a_typo_in_an_action_is_an_error_naming_the_defined_ones(cli):
    deployment = _component_deployment(cli)
    before = cli('deployment', 'show', deployment, '-f', 'json').ok().json()
    for action, hint in (('BAKUP', 'BACKUP'), ('backup', 'BACKUP')):
        refused = cli('deployment', 'trigger', deployment, '--action',
                      action)
        one_line_error(refused, 400, f'Component comp has no entry for '
                                     f'action {action} (did you mean '
                                     f'{hint}?); {DEFINED}')
    one_line_error(cli('deployment', 'action', deployment, 'SUSPND'), 400,
                   'no entry for action SUSPND (did you mean SUSPEND?)')
    assert cli('deployment', 'show', deployment, '-f',
               'json').ok().json() == before
    assert len(cli('deployment', 'list', '-f', 'json').ok().json()) == 1

    empty = cli('deployment', 'trigger', deployment, '--action', '')
    one_line_error(empty, 400, 'Invalid value for action: the empty string. '
                               'It must be an identifier such as CREATE, '
                               'UPDATE or BACKUP')
    assert 'Required.' not in empty.stderr


def test_a_second_trigger_while_one_runs_needs_allow_concurrent(cli):
    deployment = _component_deployment(cli)
    first = cli('deployment', 'trigger', deployment, '--action', 'BACKUP',
                '-f', 'json').ok()
    first_id = first.json()['id']
    assert first.stderr == (
        f'Deployment {first_id}: Runs BACKUP of component comp, its entry '
        f'configs[1] (tool script); triggered from deployment '
        f'{deployment}.\n')
    refused = cli('deployment', 'trigger', deployment, '--action', 'BACKUP')
    one_line_error(refused, 409, f'Deployment {deployment} already has '
                                 f'BACKUP running: deployment {first_id}')
    assert '--allow-concurrent' in refused.stderr
    second = cli('deployment', 'trigger', deployment, '--action', 'BACKUP',
                 '--allow-concurrent', '-f', 'json').ok().json()
    assert second['id'] != first_id
    assert second['status'] == 'IN_PROGRESS'
    quiet = cli('deployment', 'trigger', deployment, '--action', 'SUSPEND',
                '--quiet', '-f', 'json').ok()
    assert quiet.stderr == ''


def test_a_trigger_of_a_plain_config_says_deploy_action_decides(cli):
    config = hello_config(cli)
    deployment = cli('deployment', 'create', '--config', config['id'],
                     '--server', 'srv-plain', '-f', 'value', '-c',
                     'id').ok().stdout.strip()
    run = cli('deployment', 'trigger', deployment, '--action', 'BACKUP',
              '-f', 'json').ok()
    assert run.json()['action'] == 'BACKUP'
    assert ('Runs script config hello again with deploy_action=BACKUP '
            '(not a component: the config decides what BACKUP does)'
            in run.stderr), run


def test_an_id_that_is_not_utf8_is_one_plain_line(cli):
    """Bytes of the command line that are not UTF-8: no codec error."""
    not_utf8 = os.fsdecode(b'a\xffb')
    for args in (('deployment', 'show', not_utf8),
                 ('deployment', 'trigger', not_utf8, '--action', 'BACKUP'),
                 ('deployment', 'list', '--server', not_utf8)):
        run = cli(*args)
        assert run.returncode == 1, run
        assert run.stderr == ('"a\\xffb" is not UTF-8 text; ids, names and '
                              'values must be UTF-8.\n'), run


def test_a_group_that_is_no_hook_heat_agents_ships_is_warned_of(cli):
    (cli.workdir / 'run.sh').write_text('#!/bin/sh\ntrue\n')
    typo = cli('config', 'create', 'typo', '--group', 'scirpt',
               '--config-file', 'run.sh', '-f', 'json').ok()
    assert typo.json()['group'] == 'scirpt'  # taken, as Heat takes it
    assert typo.stderr == (
        'Group scirpt is not a hook heat-agents ships (did you mean '
        'script?): an agent runs its deployments only if the server has a '
        'hook of that name installed; elsewhere they wait until they time '
        'out.\n')
    shipped = cli('config', 'create', 'fine', '--group', 'script',
                  '--config-file', 'run.sh').ok()
    assert shipped.stderr == ''


def test_an_input_the_config_does_not_declare_is_warned_of(cli):
    config = hello_config(cli)  # declares "name"
    server = f'srv-{uuid.uuid4().hex[:8]}'
    said = ('Config hello has no input nme (did you mean name?); it '
            'declares name.')
    refused = cli('deployment', 'create', '--config', config['id'],
                  '--server', server, '--input', 'nme=x', '--strict')
    assert refused.returncode == 1, refused
    assert refused.stderr == f'{said} Nothing was created (--strict).\n'
    assert cli('deployment', 'list', '-f', 'json').ok().json() == []

    warned = cli('deployment', 'create', '--config', config['id'],
                 '--server', server, '--input', 'nme=x', '-f', 'json').ok()
    assert warned.stderr == (f'{said} The value is passed to the agent as '
                             f'given; --strict refuses it.\n')
    assert warned.json()['input_values'] == {'nme': 'x'}
    quiet = cli('deployment', 'create', '--config', config['id'],
                '--server', server, '--input', 'name=x').ok()
    assert quiet.stderr == ''
