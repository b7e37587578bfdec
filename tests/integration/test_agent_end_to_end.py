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

"""The agent path end to end, with the real agents, on two backends.

A user creates a script config and deploys it with server-side
derivation; the real os-collect-config polls the server's signed metadata
URL, heat-agents' 55-heat-config runs the script through the ``script``
hook and heat-config-notify PUTs the result to the signed signal URL; the
API stores it and an engine applies it (doc/source/reference/signals.rst,
doc/source/reference/agents.rst).

Every test runs on the embedded ``swconfig-all`` (SQLite, in-process RPC)
and on separate ``swconfig-api`` + ``swconfig-engine`` over the real
RabbitMQ on MariaDB, both with 1 s sweeps and timeout checks (the
session fixture ``agent_stack`` of tests/fixtures/agent_stacks.py, shared
with test_signal_durability.py).
"""

import email.utils
import json
import re
import time

import pytest
import requests

# The session fixture ``agent_stack`` (one stack per backend, shared by
# the agent-path modules): a plugin is registered once, so both modules
# get the same stacks.
pytest_plugins = ['tests.fixtures.agent_stacks']

HTTP_DATE = re.compile(r'^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} '
                       r'(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) '
                       r'\d{4} \d{2}:\d{2}:\d{2} GMT$')

GREETING_SCRIPT = '''#!/bin/sh
echo "hello $greeting from $deploy_server_id"
echo "warning: $greeting" >&2
printf '%s' "$greeting" > "$marker"
printf '%s' "result-$greeting" > "$heat_outputs_path.result"
'''
GREETING_INPUTS = [{'name': 'greeting', 'type': 'String',
                    'default': 'nobody'},
                   {'name': 'marker', 'type': 'String'}]
GREETING_OUTPUTS = [{'name': 'result', 'type': 'String'}]

FAILING_SCRIPT = '''#!/bin/sh
echo "about to fail"
echo "it broke" >&2
exit 3
'''


@pytest.fixture
def stack(agent_stack):
    """The shared stack of this test's backend (embedded-sqlite or
    separate-mariadb)."""
    return agent_stack


def greeting_config(stack, project):
    return stack.create_config(project, GREETING_SCRIPT, GREETING_INPUTS,
                               GREETING_OUTPUTS, name='greeting')


def dump(value):
    return json.dumps(value, indent=1, sort_keys=True, default=str)


def report(title, run=None, **documents):
    """What the assertion messages carry (and ``-s`` prints)."""
    parts = [f'===== {title}']
    if run is not None:
        parts.append(f'--- agent run ---\n{run}')
    parts += [f'--- {name} ---\n{dump(value)}'
              for name, value in documents.items()]
    return '\n'.join(parts)


def signal_events(events):
    """The events a signal made (everything after the creation event)."""
    return [(e['old_status'], e['new_status'], e['reason'])
            for e in events[1:]]


def test_script_runs_with_its_inputs_and_completes_with_outputs(
        stack, project, server, agent, tmp_path):
    config = greeting_config(stack, project)
    marker = tmp_path / 'marker'
    deployment = stack.deploy(project, config['id'], server,
                              {'greeting': 'world', 'marker': str(marker)},
                              name='greet-world')
    assert deployment['status'] == 'IN_PROGRESS', deployment
    assert deployment['status_reason'] == 'Deploy data available'
    url = stack.metadata_url(project, server)

    run = agent.run_once(url)
    final = stack.wait_for_deployment(project, deployment['id'])
    context = report(f'{stack.name}: one agent run', run,
                     final_deployment=final)
    print(context)

    assert run.returncode == 0, context
    # The derived config ran on the "server", with its input values.
    assert agent.deployed_ids() == {deployment['config_id']}, context
    assert marker.read_text() == 'world', context
    assert 'Response <Response [200]>' in run.output, context
    assert final['status'] == 'COMPLETE', context
    assert final['status_reason'] == 'Outputs received', context
    assert final['output_values'] == {
        'result': 'result-world',
        'deploy_stdout': f'hello world from {server}\n',
        'deploy_stderr': 'warning: world\n',
        'deploy_status_code': 0,
    }, context
    assert final['input_values'] == deployment['input_values'], context
    assert final['config_id'] == deployment['config_id'], context
    # What the agent sent is what was stored, applied exactly once.
    inbox = stack.inbox(deployment['id'])
    assert [(r['payload'], r['result']) for r in inbox] == [
        (agent.notify_data(deployment['config_id']), 'COMPLETE')], context
    events = stack.events(project, deployment['id'])
    assert [(e['old_status'], e['new_status']) for e in events] == [
        (None, 'IN_PROGRESS'), ('IN_PROGRESS', 'COMPLETE')], dump(events)
    assert events[-1]['reason'] == 'Outputs received'


def test_failing_script_fails_the_deployment_with_its_exit_code(
        stack, project, server, agent):
    config = stack.create_config(project, FAILING_SCRIPT, name='fails')
    deployment = stack.deploy(project, config['id'], server)

    run = agent.run_once(stack.metadata_url(project, server))
    final = stack.wait_for_deployment(project, deployment['id'])
    context = report(f'{stack.name}: failing script', run,
                     final_deployment=final)

    assert run.returncode == 0, context
    assert final['status'] == 'FAILED', context
    assert final['status_reason'] == (
        'deploy_status_code : Deployment exited with non-zero status '
        'code: 3'), context
    assert final['output_values'] == {
        'deploy_stdout': 'about to fail\n',
        'deploy_stderr': 'it broke\n',
        'deploy_status_code': 3,
    }, context
    events = stack.events(project, deployment['id'])
    assert signal_events(events) == [
        ('IN_PROGRESS', 'FAILED', final['status_reason'])], dump(events)


def test_second_agent_run_signals_nothing(stack, project, server, agent,
                                          tmp_path):
    config = greeting_config(stack, project)
    deployment = stack.deploy(project, config['id'], server,
                              {'greeting': 'once',
                               'marker': str(tmp_path / 'marker')})
    url = stack.metadata_url(project, server)
    agent.run_once(url).check()
    done = stack.wait_for_deployment(project, deployment['id'])
    assert done['status'] == 'COMPLETE', dump(done)
    events = stack.events(project, deployment['id'])
    inbox = stack.inbox(deployment['id'])
    assert len(inbox) == 1, dump(inbox)

    # Nothing changed in the document: os-collect-config runs nothing.
    again = agent.run_once(url).check()
    assert 'apply:' not in again.output, again
    # Forced through to 55-heat-config: the config id is already deployed.
    forced = agent.run_once(url, force=True).check()
    assert (f'Skipping config {deployment["config_id"]}, already deployed'
            in forced.output), forced
    assert 'Signaling to' not in forced.output, forced
    # A signal is stored before heat-config-notify gets its answer, so any
    # would be in the inbox by now.

    context = report(f'{stack.name}: second run', forced)
    assert stack.inbox(deployment['id']) == inbox, context
    assert stack.events(project, deployment['id']) == events, context
    assert stack.deployment(project, deployment['id']) == done, context


def test_two_deployments_of_one_config_both_run(stack, project, server,
                                                agent, tmp_path):
    config = greeting_config(stack, project)
    first = stack.deploy(project, config['id'], server,
                         {'greeting': 'alpha',
                          'marker': str(tmp_path / 'alpha')})
    # "default" is the operator's transport, HEAT_SIGNAL here.
    second = stack.deploy(project, config['id'], server,
                          {'greeting': 'beta',
                           'marker': str(tmp_path / 'beta')},
                          signal_transport='default')
    assert first['config_id'] != second['config_id']

    run = agent.run_once(stack.metadata_url(project, server))
    finals = [stack.wait_for_deployment(project, d['id'])
              for d in (first, second)]
    context = report(f'{stack.name}: two deployments', run,
                     deployments=finals)

    assert run.returncode == 0, context
    assert agent.deployed_ids() == {first['config_id'],
                                    second['config_id']}, context
    for final, greeting in zip(finals, ('alpha', 'beta'), strict=True):
        assert final['status'] == 'COMPLETE', context
        assert final['output_values'] == {
            'result': f'result-{greeting}',
            'deploy_stdout': f'hello {greeting} from {server}\n',
            'deploy_stderr': f'warning: {greeting}\n',
            'deploy_status_code': 0,
        }, context
        assert (tmp_path / greeting).read_text() == greeting, context


def test_no_signal_deployment_is_complete_at_once_and_still_served(
        stack, project, server, agent, tmp_path):
    config = greeting_config(stack, project)
    marker = tmp_path / 'marker'
    deployment = stack.deploy(project, config['id'], server,
                              {'greeting': 'quiet', 'marker': str(marker)},
                              signal_transport='NO_SIGNAL')
    assert deployment['status'] == 'COMPLETE', deployment
    assert deployment['status_reason'] == 'Not waiting for outputs signal'

    url = stack.metadata_url(project, server)
    document = requests.get(url, timeout=30).json()
    items = {item['id']: item for item in document['deployments']}
    assert deployment['config_id'] in items, dump(document)
    inputs = {i['name']: i['value']
              for i in items[deployment['config_id']]['inputs']}
    assert inputs['deploy_signal_transport'] == 'NO_SIGNAL', inputs
    assert 'deploy_signal_id' not in inputs, inputs
    assert inputs['greeting'] == 'quiet', inputs

    run = agent.run_once(url)
    context = report(f'{stack.name}: NO_SIGNAL', run)
    assert run.returncode == 0, context
    assert marker.read_text() == 'quiet', context
    assert 'Signaling to' not in run.output, context
    assert stack.inbox(deployment['id']) == [], context
    assert stack.deployment(project, deployment['id']) == deployment
    events = stack.events(project, deployment['id'])
    assert [(e['old_status'], e['new_status']) for e in events] == [
        (None, 'COMPLETE')], dump(events)


def test_metadata_url_validators(stack, project, server):
    config = greeting_config(stack, project)
    stack.deploy(project, config['id'], server, {'marker': '/dev/null'})
    url = stack.metadata_url(project, server)

    got = requests.get(url, timeout=30)
    assert got.status_code == 200, got.text
    assert got.headers['Content-Type'].startswith('application/json')
    etag = got.headers['ETag']
    modified = got.headers['Last-Modified']
    assert re.fullmatch(r'"[^"]+"', etag), etag
    assert HTTP_DATE.match(modified), modified
    assert email.utils.parsedate_to_datetime(modified).tzname() == 'UTC'
    document = got.json()
    assert len(document['deployments']) == 1, dump(document)
    assert document['os-collect-config']['request']['metadata_url'] == url

    head = requests.head(url, timeout=30)
    assert head.status_code == 200
    assert head.content == b''
    assert head.headers['ETag'] == etag
    assert head.headers['Last-Modified'] == modified

    for method in ('GET', 'HEAD'):
        cached = requests.request(method, url, timeout=30,
                                  headers={'If-None-Match': etag})
        assert cached.status_code == 304, (method, cached.text)
        assert cached.content == b''
        assert cached.headers['ETag'] == etag
    other = requests.get(url, timeout=30,
                         headers={'If-None-Match': '"something-else"'})
    assert other.status_code == 200 and other.json() == document

    # A new deployment changes the document and its validators.
    time.sleep(1.1)  # Last-Modified has a one-second resolution
    stack.deploy(project, config['id'], server, {'marker': '/dev/null'})
    changed = requests.get(url, timeout=30,
                           headers={'If-None-Match': etag})
    assert changed.status_code == 200, changed.text
    assert changed.headers['ETag'] != etag
    assert len(changed.json()['deployments']) == 2
    assert (email.utils.parsedate_to_datetime(
        changed.headers['Last-Modified'])
        > email.utils.parsedate_to_datetime(modified))

    # The token is the credential: tampering with it is refused.
    base, _, token = url.partition('?token=')
    for bad in (base, f'{base}?token={token[:-4]}',
                f'{base}?token=forged.{token.partition(".")[2]}',
                f'{base}?token={token}x'):
        refused = requests.get(bad, timeout=30)
        assert refused.status_code in (401, 403), (bad, refused.text)
    other_server = stack.metadata_url(project, server + '-other')
    swapped = other_server.replace(server + '-other', server)
    assert requests.get(swapped, timeout=30).status_code in (401, 403)
    missing = url.replace(server, server + '-unknown')
    assert requests.get(missing, timeout=30).status_code == 404


def test_progress_signal_keeps_the_deployment_in_progress(stack, project,
                                                          server):
    config = greeting_config(stack, project)
    deployment = stack.deploy(project, config['id'], server,
                              {'marker': '/dev/null'})
    signal_url = stack.signal_url(project, deployment)

    progress = requests.put(signal_url, timeout=30, json={
        'deploy_status': 'IN_PROGRESS', 'deploy_status_reason': 'halfway'})
    assert progress.status_code == 200, progress.text
    assert isinstance(progress.json()['signal'], int), progress.text
    stack.wait_for_deployment(
        project, deployment['id'],
        until=lambda d: d['status_reason'] == 'halfway')
    events = stack.events(project, deployment['id'])
    assert signal_events(events) == [
        ('IN_PROGRESS', 'IN_PROGRESS', 'halfway')], dump(events)
    current = stack.deployment(project, deployment['id'])
    assert current['status'] == 'IN_PROGRESS', dump(current)
    assert current['output_values'] is None, dump(current)

    final = requests.put(signal_url, timeout=30, json={
        'result': 'done', 'deploy_stdout': 'ok\n', 'deploy_stderr': '',
        'deploy_status_code': 0})
    assert final.status_code == 200, final.text
    done = stack.wait_for_deployment(project, deployment['id'])
    events = stack.events(project, deployment['id'])
    context = report(f'{stack.name}: progress', deployment=done,
                     events=events)
    assert done['status'] == 'COMPLETE', context
    assert done['output_values'] == {
        'result': 'done', 'deploy_stdout': 'ok\n', 'deploy_stderr': '',
        'deploy_status_code': 0}, context
    assert signal_events(events) == [
        ('IN_PROGRESS', 'IN_PROGRESS', 'halfway'),
        ('IN_PROGRESS', 'COMPLETE', 'Outputs received')], context


def test_deployment_without_signal_times_out(stack, project, server):
    config = greeting_config(stack, project)
    deployment = stack.deploy(project, config['id'], server,
                              {'marker': '/dev/null'}, timeout=1)
    assert deployment['status'] == 'IN_PROGRESS', deployment

    failed = stack.wait_for_deployment(project, deployment['id'],
                                       timeout=20)
    events = stack.events(project, deployment['id'])
    context = report(f'{stack.name}: timeout', deployment=failed,
                     events=events)
    assert failed['status'] == 'FAILED', context
    assert re.search(r'timed out.*\b1 seconds?\b', failed['status_reason']
                     ), context
    assert failed['output_values'] is None, context
    assert signal_events(events) == [
        ('IN_PROGRESS', 'FAILED', failed['status_reason'])], context

    # The agent reports too late: refused, and nothing changes.
    late = requests.put(stack.signal_url(project, deployment), timeout=30,
                        json={'result': 'late', 'deploy_status_code': 0})
    assert late.status_code in (403, 409), late.text
    # Recorded, and once the engine has handled it, nothing changed.
    handled = stack.wait_for_inbox(deployment['id'], lambda rows: bool(
        rows) and all(row['processed_at'] for row in rows))
    assert [row['result'] for row in handled] == ['DUPLICATE'], context
    assert stack.deployment(project, deployment['id']) == failed, context
