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

"""A sixth transport is one package and one entry point.

The test writes a pulled signal transport that swconfig has never seen
(the agent writes its signal as a file in a drop directory; the engines
look for files there) as a package of its own, installs it the way pip
would (a ``.dist-info`` with its entry point on ``sys.path``), and then
uses it through the real API and engine of the in-process stack: nothing
in ``engine/``, ``api/`` or ``conf/`` knows its name. Its options reach
the option listing the sample configuration is generated from, its
background task reaches the engine's table, and a signal it fetches goes
through the same exactly-once sink as Swift's and Zaqar's.
"""

import importlib
import json
import pathlib
import sys
import textwrap
import uuid

from oslo_config import cfg
import pytest
from stevedore import extension

from swconfig import transports
from swconfig.common import states
from swconfig.conf import CONF
from swconfig.engine import periodics
from tests.functional.api import helpers

NAME = 'DROP_DIR_SIGNAL'
PACKAGE = 'swconfig_drop_dir_transport'

PLUGIN = '''
"""DROP_DIR_SIGNAL: the agent writes <deployment>.<revision>.json into
[drop_dir] path; engines pick the files up."""

import os

from oslo_config import cfg

from swconfig.conf import CONF
from swconfig.transports import base

GROUP = cfg.OptGroup('drop_dir', help='A directory agents drop signals in.')
OPTS = [cfg.StrOpt('path', help='The directory.'),
        cfg.FloatOpt('poll_interval', default=1.0, help='Seconds between '
                     'looks.')]
CONF.register_group(GROUP)
CONF.register_opts(OPTS, group=GROUP)


def _file(deployment_id, revision):
    return os.path.join(CONF.drop_dir.path, f'{deployment_id}.{revision}.json')


class Poller(base.SharedTask):
    name = 'drop-dir-signals'

    def __init__(self, sink):
        self.sink = sink

    def interval(self):
        return CONF.drop_dir.poll_interval

    def items(self):
        for name in sorted(os.listdir(CONF.drop_dir.path)):
            deployment_id, revision, _ = name.rsplit('.', 2)
            yield deployment_id, (deployment_id, int(revision), name)

    def handle(self, owned):
        for deployment_id, revision, name in owned:
            path = os.path.join(CONF.drop_dir.path, name)
            with open(path, 'rb') as handle:
                body = handle.read()
            self.sink.receive(deployment_id, revision,
                              f'drop:{revision}:{hash(body)}', body=body)
            os.remove(path)


class DropDirSignalTransport(base.SignalTransport):
    name = 'DROP_DIR_SIGNAL'

    @classmethod
    def list_opts(cls):
        return [(GROUP, OPTS)]

    def missing_configuration(self):
        return None if CONF.drop_dir.path else '[drop_dir] path is unset'

    def periodic_tasks(self, sink):
        return [Poller(sink)]

    def signal_inputs(self, server, deployment_id, action_revision):
        return [base.string_input('deploy_signal_id',
                                  _file(deployment_id, action_revision),
                                  'Where to write the signal')]
'''


@pytest.fixture
def installed(tmp_path, monkeypatch, inprocess_stack):
    """The plugin package and its entry point, as pip would leave them."""
    site = tmp_path / 'site'
    (site / PACKAGE).mkdir(parents=True)
    (site / PACKAGE / '__init__.py').write_text(textwrap.dedent(PLUGIN))
    dist = site / f'{PACKAGE}-1.0.dist-info'
    dist.mkdir()
    (dist / 'METADATA').write_text(
        f'Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: 1.0\n')
    (dist / 'entry_points.txt').write_text(
        f'[swconfig.transports]\n{NAME} = {PACKAGE}:DropDirSignalTransport\n')
    drop = tmp_path / 'drop'
    drop.mkdir()
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    # What stevedore and the loader found before the installation.
    monkeypatch.setattr(extension.ExtensionManager, 'ENTRY_POINT_CACHE', {})
    monkeypatch.setattr(transports, '_CLASSES', {})
    monkeypatch.setattr(transports, '_LOADED', {})
    yield drop
    if 'drop_dir' in CONF:
        CONF.clear_override('path', group='drop_dir')
    sys.modules.pop(PACKAGE, None)


def test_the_new_transport_is_found_by_its_entry_point_only(installed):
    assert NAME in transports.names()
    assert NAME not in transports.available()  # [drop_dir] path unset
    with pytest.raises(Exception, match=r'\[drop_dir\] path is unset'):
        transports.check_defaults(NAME, 'POLL_SERVER_URL')
    CONF.set_override('path', str(installed), group='drop_dir')
    assert NAME in transports.available()
    transports.check_defaults(NAME, 'POLL_SERVER_URL')
    listed = {group.name: [opt.dest for opt in opts]
              for group, opts in transports.list_opts()}
    assert listed['drop_dir'] == ['path', 'poll_interval']
    assert isinstance(CONF.drop_dir, cfg.ConfigOpts.GroupAttr)


def test_a_signal_it_fetches_completes_a_deployment_made_through_the_api(
        installed, inprocess_stack):
    # Loading the transport imports its package, which registers the
    # [drop_dir] options (this test may run first, or alone).
    assert NAME in transports.names()
    CONF.set_override('path', str(installed), group='drop_dir')
    api = inprocess_stack
    project = f'p-{uuid.uuid4().hex[:10]}'
    config = helpers.create_config(
        api, project, group='script', config='echo hi',
        outputs=[{'name': 'result'}])
    deployment = helpers.create_deployment(
        api, project, config_id=config['id'], server_id=f'{project}-s1',
        signal_transport=NAME)
    assert deployment['status'] == states.IN_PROGRESS
    derived = api.get(helpers.url(project, 'software_configs',
                                  '/' + deployment['config_id'])).json
    inputs = {item['name']: item.get('value')
              for item in derived['software_config']['inputs']}
    assert inputs['deploy_signal_transport'] == NAME
    # The agent writes its signal where the derived config says.
    pathlib.Path(inputs['deploy_signal_id']).write_text(json.dumps(
        {'result': 'dropped', 'deploy_status_code': 0}))

    [task] = [task for task in periodics.table()
              if task.name == 'drop-dir-signals']

    class OwnsAll:
        @staticmethod
        def owns(key):
            return True

    task.run(OwnsAll())
    shown = api.get(helpers.url(project, 'software_deployments',
                                '/' + deployment['id'])).json
    assert shown['software_deployment']['status'] == states.COMPLETE
    assert shown['software_deployment']['output_values']['result'] == (
        'dropped')
    assert list(installed.iterdir()) == []
