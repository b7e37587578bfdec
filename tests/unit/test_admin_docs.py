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

"""The admin guide says what the code does: the transports in force with
nothing configured are the options' defaults, the catalog settings the
Keystone page gives are those the ``swconfig`` command reads, and the
scaling page covers every background task of an engine."""

import pathlib
import re

from swconfig.cli import clouds_config
from swconfig.conf import agent
from swconfig.engine import periodics
from swconfig.transports import base

ADMIN = pathlib.Path(__file__).resolve().parents[2] / 'doc' / 'source' / (
    'admin')


def _section(page: str, title: str) -> str:
    text = (ADMIN / page).read_text()
    match = re.search(rf'^{re.escape(title)}\n=+\n(.*?)(?=^\S[^\n]*\n=+\n|\Z)',
                      text, re.MULTILINE | re.DOTALL)
    assert match, f'{page} has no section {title!r}'
    return ' '.join(match[1].split())


def _default(name: str) -> str:
    return next(opt.default for opt in agent.default_opts
                if opt.name == name)


def test_the_transports_in_force_with_nothing_configured():
    said = _section('transports.rst', 'With nothing configured')
    for option in ('default_software_config_transport',
                   'default_deployment_signal_transport'):
        assert (f'``{_default(option)}`` for ' in said
                and f'``[DEFAULT] {option}``' in said), option


def test_the_keystone_page_names_what_the_cli_looks_up():
    text = ' '.join((ADMIN / 'keystone.rst').read_text().split())
    assert f"``{clouds_config.SERVICE_TYPE}``" in text
    assert 'OS_ORCHESTRATION_SERVICE_TYPE=software-config' in text
    assert 'openstack service create --name swconfig software-config' in (
        text)


#: How the scaling page's table names each engine task.
TASKS = {'heartbeat': 'Heartbeats', 'signal-sweep': 'Signal sweep',
         'key-purge': 'Idempotency-Key purge',
         'deployment-timeouts': 'Deployment timeouts',
         'rollouts': 'Rollouts', 'document-push': 'document pushes'}


def test_the_scaling_page_says_what_each_task_does_without_a_backend():
    """Every task of the engine's table is in the page's with/without
    table; the shared ones (given out by the coordination backend) in
    the row that says what happens without one."""
    text = (ADMIN / 'scaling.rst').read_text()
    table = re.search(r'Work +With ``backend_url`` +Without\n(.*?)\n +=+ '
                      r'+=+ +=+\n\n', text, re.DOTALL)
    assert table, 'scaling.rst has no table of the work with and without '
    rows = table[1]
    shared_row = rows[rows.index('Deployment timeouts'):]
    shared_row = shared_row[:shared_row.index('\n    Heartbeats')]
    for task in periodics.table():
        name = TASKS[task.name]
        assert name in rows, name
        if isinstance(task, base.SharedTask):
            assert name in shared_row, name
    assert 'every engine does every' in shared_row
