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

"""Changing a server-derived deployment starts a new action the agent sees
(a new derived config, a new signal URL, the old one refused), and the
tenant's metadata view is the agent's document, on every backend."""

import json
import urllib.parse

from tests.functional.api import helpers
from tests.functional.api.agent_helpers import config_ids_in
from tests.functional.api.agent_helpers import fetch_document
from tests.functional.api.agent_helpers import local_path
from tests.functional.api.agent_helpers import metadata_url_of
from tests.functional.api.agent_helpers import signal_url_of
from tests.functional.api.deployment_helpers import deploy_to
from tests.functional.api.deployment_helpers import events_of
from tests.functional.api.deployment_helpers import get_config
from tests.functional.api.deployment_helpers import inputs_by_name
from tests.functional.api.deployment_helpers import poll_until
from tests.functional.api.deployment_helpers import script_config
from tests.functional.api.deployment_helpers import wait_finished
from tests.functional.api.helpers import assert_error


def _put(api, project, deployment_id, **body):
    reply = api.put(helpers.url(project, 'software_deployments',
                                '/' + deployment_id), json=body)
    assert reply.status == 200, reply.text
    return reply.json['software_deployment']


def _tenant_view(api, project, server):
    reply = api.get(helpers.url(project, 'software_deployments',
                                f'/metadata/{server}'))
    assert reply.status == 200, reply.text
    return reply.json['metadata']


def _revision(url: str) -> str:
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)[
        'revision'][0]


def test_new_input_values_start_a_new_action(api, project):
    server = f'{project}-srv'
    metadata_url = metadata_url_of(api, project, server)
    source = script_config(api, project, name='web', inputs=[{'name': 'port'}])
    first = deploy_to(api, project, server, source['id'],
                      input_values={'port': '80'})
    old_url = signal_url_of(api, project, first)

    changed = _put(api, project, first['id'],
                   input_values={'port': '8080'})
    assert changed['config_id'] != first['config_id']
    assert changed['input_values'] == {'port': '8080'}
    assert (changed['status'], changed['status_reason']) == (
        'IN_PROGRESS', 'Deploy data available')

    derived = get_config(api, project, changed['config_id'])
    assert derived['name'] == 'web'
    inputs = inputs_by_name(derived)
    assert inputs['port']['value'] == '8080'
    new_url = inputs['deploy_signal_id']['value']
    assert (_revision(old_url), _revision(new_url)) == ('1', '2')
    # The agent's document carries the new config only; the former
    # derived config is gone.
    document, _ = fetch_document(api, metadata_url)
    assert config_ids_in(document) == [changed['config_id']]
    assert_error(api.get(helpers.url(project, 'software_configs',
                                     '/' + first['config_id'])), 404)

    # The former action's URL is refused; the new one completes it.
    stale = api.put(local_path(old_url), data=json.dumps({'result': 'old'}))
    error = assert_error(stale, 403, 'SignalRefused')
    assert 'recorded, not applied' in error['message']
    reply = api.put(local_path(new_url), data=json.dumps(
        {'result': 'new', 'deploy_status_code': 0}))
    assert reply.status == 200, reply.text
    done = wait_finished(api, project, first['id'])
    assert done['status'] == 'COMPLETE'
    assert done['output_values']['result'] == 'new'
    reasons = [event['reason'] for event in events_of(api, project,
                                                     first['id'])]
    assert 'CREATE started: config derived again for action revision 2' \
        in reasons


def test_a_new_action_name_reaches_the_agent(api, project):
    server = f'{project}-srv'
    source = script_config(api, project)
    first = deploy_to(api, project, server, source['id'],
                      signal_transport='NO_SIGNAL')
    assert first['status'] == 'COMPLETE'
    changed = _put(api, project, first['id'], action='UPDATE')
    assert changed['action'] == 'UPDATE'
    assert changed['status'] == 'COMPLETE'  # NO_SIGNAL: complete at once
    inputs = inputs_by_name(get_config(api, project, changed['config_id']))
    assert inputs['deploy_action']['value'] == 'UPDATE'


def test_reporting_status_is_not_a_new_action(api, project):
    server = f'{project}-srv'
    source = script_config(api, project)
    first = deploy_to(api, project, server, source['id'])
    changed = _put(api, project, first['id'], status='FAILED',
                   status_reason='given up', input_values=first[
                       'input_values'])
    assert changed['config_id'] == first['config_id']
    assert (changed['status'], changed['status_reason']) == (
        'FAILED', 'given up')
    assert _revision(signal_url_of(api, project, changed)) == '1'


def test_tenant_view_is_the_agents_document(api, project):
    server = f'{project}-srv'
    metadata_url = metadata_url_of(api, project, server)
    source = script_config(api, project)
    create = deploy_to(api, project, server, source['id'], action='CREATE')
    backup = deploy_to(api, project, server, source['id'], action='BACKUP')

    def both_views():
        document, _ = fetch_document(api, metadata_url)
        return (config_ids_in(document),
                config_ids_in({'deployments': _tenant_view(api, project,
                                                           server)}),
                document['deployments'])

    agent_ids, tenant_ids, document = both_views()
    assert sorted(agent_ids) == sorted([create['config_id'],
                                        backup['config_id']])
    assert _tenant_view(api, project, server) == document
    reply = api.put(local_path(signal_url_of(api, project, backup)),
                    data=json.dumps({'deploy_status_code': 0}))
    assert reply.status == 200, reply.text
    # The engine applies the signal between the two reads at times: wait
    # until both views show its outcome, then they must be equal.
    expected = [create['config_id']]
    poll_until(both_views, lambda views: views[0] == views[1] == expected,
               'the finished BACKUP to leave both views')
    document, _ = fetch_document(api, metadata_url)
    assert _tenant_view(api, project, server) == document['deployments']
