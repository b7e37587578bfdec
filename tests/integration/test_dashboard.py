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

"""The web dashboard in a real browser (``tests.fixtures.browser``),
against the session's ``swconfig-all`` under noauth.

One walk through, as an operator would click it: sign in, create a
config with the form (first refused in the browser by the API's own
schema, with nothing sent), deploy it, watch the deployment turn
COMPLETE with its output when a simulated agent signals through its
signed URL (no reload), run UPDATE and trigger BACKUP from the page
(the ``swconfig`` command then shows the same), cancel and delete
another deployment, see a 409 of the API on the page (the same the
command prints), follow a rollout's progress bar. Every page is kept as
a screenshot in the artefacts (``SWCONFIG_TEST_ARTEFACTS`` or
``.artefacts/dashboard``), with the bytes of a deployment page's first
load; every request the pages made went to ``/v1/...`` or
``/dashboard/...`` of the service.
"""

import json
import os
import pathlib
import re
import subprocess
import time
import urllib.parse
import uuid

import pytest
import requests

from tests.fixtures import processes
from tests.fixtures import stack_agents
from tests.fixtures.browser import Dash
from tests.fixtures.browser import artefacts_dir
from tests.fixtures.browser import browser  # noqa: F401

ROOT = pathlib.Path(__file__).resolve().parents[2]

COMPONENT = {'configs': [
    {'actions': ['CREATE', 'UPDATE'], 'tool': 'script',
     'config': '#!/bin/sh\necho created'},
    {'actions': ['BACKUP'], 'tool': 'script',
     'config': '#!/bin/sh\necho backed up'}]}


@pytest.fixture
def dash(browser, embedded_service):  # noqa: F811
    return Dash(browser, embedded_service.base_url,
                artefacts_dir(ROOT, 'dashboard'))


def _posts(browser, fragment: str) -> list[str]:  # noqa: F811
    browser.read_log()
    return [url for method, url in browser.requests()
            if method == 'POST' and fragment in url]


def test_dashboard_walk(dash, embedded_service, server, tmp_path):
    project = f'dash-{uuid.uuid4().hex[:8]}'
    # The silent server's id needs quoting in a URL: its links must too.
    answered, silent, rolled = server, f'{server} b?#%', f'{server}-c'
    api = f'{embedded_service.base_url}/v1/{project}'

    def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        """The swconfig command on the same project, as a user runs it."""
        env = {key: value for key, value in os.environ.items()
               if not key.startswith('OS_')}
        env.update(HOME=str(tmp_path), OS_AUTH_TYPE='none', OS_ENDPOINT=api)
        return subprocess.run([processes.script('swconfig'), *args],
                              env=env, capture_output=True, text=True,
                              timeout=60, check=check)

    # Sign in under noauth: the form, then a deep link with ?project=.
    dash.open('')
    dash.heading('Sign in')
    dash.shot('01-sign-in')
    dash.fill('#project', project)
    dash.click('#signin-noauth button')
    dash.heading('Configs')
    assert dash.text('#project') == project
    dash.open('servers?project=other-project')
    dash.heading('Servers')
    assert dash.text('#project') == 'other-project'
    dash.open(f'configs?project={project}')
    dash.heading('Configs')

    # A config from the form: refused in the browser first, nothing sent.
    dash.link('Create a config')
    dash.heading('Create a config')
    dash.fill('#config-name', 'web')
    dash.fill('#config-group', 'component')
    dash.set_value('#config-source', json.dumps(COMPONENT, indent=1))
    dash.set_value('#config-outputs', '[{"nme": "result"}]')
    dash.click('#config-form button[type=submit]')
    refusal = dash.wait_text('#form-errors', 'Not sent')
    assert 'outputs.0: name is required' in refusal
    assert 'outputs.0: has no key "nme"' in refusal
    dash.shot('02-config-form-refused')
    assert _posts(dash.browser, '/software_configs') == []
    dash.set_value('#config-outputs', '[{"name": "result"}]')
    dash.click('#config-form button[type=submit]')
    dash.heading('Config web')
    config_id = dash.path().rsplit('/', 1)[1]
    assert 'BACKUP' in dash.text('main table')
    dash.shot('03-config-detail')
    shown = _api('GET', f'{api}/software_configs/{config_id}').json()
    assert shown['software_config']['config'] == COMPONENT

    # Deploy it to a server whose agent starts only once the page shows
    # IN_PROGRESS: the page turns COMPLETE through its long poll.
    dash.link('Deploy it…')
    dash.heading('Deploy a config')
    dash.fill('#deploy-server', answered)
    dash.click('#deployment-form button[type=submit]')
    deployment_id = dash.deployment_id()
    dash.wait_text('#deployment-status', 'IN_PROGRESS')
    dash.shot('04-deployment-in-progress')
    dash.mark()
    urls = {name: stack_agents.metadata_url(_Session(api), name)
            for name in (answered, rolled)}
    with stack_agents.SimulatedAgents(urls) as agents:
        dash.wait_text('#deployment-status', 'COMPLETE')
        dash.wait_text('#outputs', f'CREATE on {answered}')
        dash.wait_text('#events', 'COMPLETE')
        assert dash.not_reloaded()
        dash.shot('05-deployment-complete')

        # Run UPDATE again from the page: the agent answers it too.
        dash.click('#run-action')
        dash.find('#lifecycle-action option[value=UPDATE]').click()
        dash.click('#dialog-ok')
        dash.wait_text('#deployment-status', 'action UPDATE')
        dash.wait_text('#deployment-status', 'COMPLETE')
        dash.wait_text('#outputs', f'UPDATE on {answered}')

        # A trigger the API's schema refuses is not sent.
        dash.click('#trigger')
        dash.fill('#trigger-action', '1BAD')
        dash.click('#dialog-ok')
        assert 'action: must be' in dash.wait_text('#problem', 'Not sent')
        assert _posts(dash.browser, '/trigger') == []

        # Trigger BACKUP on the component from the page.
        dash.click('#trigger')
        dash.fill('#trigger-action', 'BACKUP')
        dash.shot('06-trigger-dialog')
        dash.click('#dialog-ok')
        dash.wait.until(lambda driver: dash.path().rsplit('/', 1)[1] not in (
            deployment_id, 'new'), 'the trigger did not open')
        dash.wait_text('#deployment-status', 'COMPLETE')
        dash.wait_text('#outputs', f'BACKUP on {answered}')
        dash.shot('07-backup-complete')
        # The CLI shows the same.
        backup_id = dash.deployment_id()
        backup = json.loads(cli('deployment', 'show', backup_id,
                                '-f', 'json').stdout)
        assert backup['triggered_from'] == deployment_id
        assert backup['status'] == 'COMPLETE'
        assert backup['output_values']['deploy_stdout'] in dash.text(
            '#outputs')

        # Another deployment, to a server without an agent: cancel it.
        dash.open(f'deployments/new?config={config_id}')
        dash.heading('Deploy a config')
        dash.fill('#deploy-server', silent)
        dash.click('#deployment-form button[type=submit]')
        cancelled_id = dash.deployment_id()
        dash.wait_text('#deployment-status', 'IN_PROGRESS')
        # By keyboard: Escape closes the confirmation, nothing happens.
        keys = dash.keys
        dash.find('#cancel').send_keys(keys.ENTER)
        dash.find('#dialog-ok')
        dash.driver.switch_to.active_element.send_keys(keys.ESCAPE)
        dash.wait.until(lambda driver: not driver.find_elements(
            dash.by.TAG_NAME, 'dialog'), 'the dialog stayed open')
        assert 'IN_PROGRESS' in dash.text('#deployment-status')
        dash.find('#cancel').send_keys(keys.ENTER)
        dash.find('#dialog-ok').send_keys(keys.ENTER)
        dash.wait_text('#deployment-status', 'FAILED')
        dash.shot('08-deployment-cancelled')
        cancelled = _api(
            'GET', f'{api}/software_deployments/{cancelled_id}').json()
        assert cancelled['software_deployment']['status'] == 'FAILED'
        assert (cancelled['software_deployment']['status_reason']
                in dash.text('#deployment-reason'))

        dash.click('#delete')
        dash.click('#dialog-ok')
        dash.heading('Deployments')
        assert _api('GET', f'{api}/software_deployments/{cancelled_id}'
                    ).status_code == 404

        # A 4xx of the API, shown as the API sent it.
        dash.open(f'configs/{config_id}')
        dash.heading('Config web')
        dash.click('main .buttons button')
        dash.click('#dialog-ok')
        error = dash.wait_text('[role=alert]', '409 Conflict')
        refused = _api('DELETE', f'{api}/software_configs/{config_id}')
        assert refused.status_code == 409
        assert refused.json()['error']['message'] in error
        assert refused.json()['error']['type'] in error
        by_cli = cli('config', 'delete', config_id, check=False)
        assert by_cli.returncode == 1
        assert refused.json()['error']['message'] in by_cli.stderr
        dash.shot('09-api-error')

        # The list filters as one types.
        dash.open('configs')
        dash.wait_text('main table', 'web')
        dash.fill('#filter', 'no such config')
        dash.wait_text('#config-rows', 'No configs match.')
        dash.fill('#filter', config_id[:8])
        dash.wait_text('#config-rows', '1 of ')
        assert dash.text('#config-rows tbody').startswith('web ')

        # The servers, with their agents and documents.
        dash.open('servers')
        dash.wait_text('main table', silent)
        rows = {row.find_element(dash.by.TAG_NAME, 'td').text: row.text
                for row in dash.driver.find_elements(dash.by.CSS_SELECTOR,
                                                     'main tbody tr')}
        assert 'no deployments' in rows[silent]
        assert 'COMPLETE all answered' in rows[answered]
        # The answered server's agent polled: its last poll time shows
        # (written within [api] poll_time_interval, 1 s here); the
        # silent one never polled.
        polled = _last_polls(dash, answered)
        assert polled[silent] == 'never'
        shown = _api('GET', f'{api}/servers/{urllib.parse.quote(answered)}'
                     ).json()['server']['last_poll_time']
        # Polls go on: the API may already have a later time.
        assert re.fullmatch(r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ',
                            polled[answered]), polled
        assert polled[answered] <= shown.replace('T', ' ')
        dash.shot('10-servers')
        dash.link(silent)
        dash.heading(f'Server {silent}')
        dash.driver.back()
        dash.wait_text('main table', answered)
        dash.link(answered)
        dash.heading(f'Server {answered}')
        dash.wait_text('main', 'Current document')
        last_poll = dash.driver.find_element(
            dash.by.XPATH, '//dt[text()="Last poll"]/following-sibling::dd')
        assert last_poll.find_element(dash.by.TAG_NAME, 'time'
                                      ).get_attribute('datetime') >= shown
        dash.shot('11-server-detail')

        # A rollout: its progress bar fills without a reload.
        rollout = _api('POST', f'{api}/rollouts', json={
            'servers': [answered, rolled], 'config_id': config_id,
            'max_concurrency': '1'})
        assert rollout.status_code in (200, 201), rollout.text
        rollout_id = rollout.json()['rollout']['id']
        dash.open(f'rollouts/{rollout_id}')
        dash.find('#rollout-bar')
        dash.mark()
        dash.wait_text('#rollout-progress', '2 of 2 targets done')
        dash.wait_text('#rollout-progress', 'COMPLETE')
        bar = dash.find('#rollout-bar')
        assert bar.get_attribute('value') == bar.get_attribute('max') == '2'
        assert dash.not_reloaded()
        dash.shot('12-rollout')
        dash.open('deployments')
        dash.find(f'main table a[href="deployments/{deployment_id}"]')
        dash.fill('#filter', 'BACKUP')
        dash.wait_text('#deployment-rows', '1 of ')
        assert 'web-BACKUP' in dash.text('#deployment-rows tbody')
        dash.shot('13-deployments')
        assert agents.errors == []

    # The first load of a deployment page, from an empty cache.
    weight = dash.browser.load_weight(
        f'{embedded_service.base_url}/dashboard/deployments/{deployment_id}',
        lambda: 'COMPLETE' in (dash.driver.find_element(
            dash.by.ID, 'deployment-status').text if dash.driver.
            find_elements(dash.by.ID, 'deployment-status') else ''))
    api_bytes = sum(size for url, size in weight['by_url'].items()
                    if '/v1/' in url)
    weight['api_bytes'] = api_bytes
    (dash.artefacts / 'page-weight.json').write_text(
        json.dumps(weight, indent=1))
    print(f'\nFirst load of a deployment page: {weight["bytes"]} bytes in '
          f'{weight["requests"]} requests ({api_bytes} bytes of them the '
          f'API answers): {dash.artefacts / "page-weight.json"}')
    print('Screenshots:\n' + '\n'.join(dash.screenshots))
    assert weight['bytes'] < 100_000

    # No script failed, nothing broke the Content-Security-Policy.
    assert dash.browser.script_errors() == []

    # Nothing but the service's /v1 and /dashboard URLs was requested.
    dash.browser.read_log()
    requested = dash.browser.requests()
    assert requested
    origin = urllib.parse.urlsplit(embedded_service.base_url)
    strays = [url for _method, url in requested
              if urllib.parse.urlsplit(url)[:2] != origin[:2]
              or not urllib.parse.urlsplit(url).path.startswith(
                  ('/v1/', '/dashboard/'))]
    assert strays == []


def _last_polls(dash: Dash, polled: str, timeout: float = 20
                ) -> dict[str, str]:
    """{server: its "Last poll" cell} of the servers page, reloaded until
    ``polled`` shows a time (the API writes poll times a little late)."""
    deadline = time.monotonic() + timeout
    while True:
        dash.open('servers')
        dash.wait_text('main table', polled)
        headers = [cell.text for cell in dash.driver.find_elements(
            dash.by.CSS_SELECTOR, 'main thead th')]
        column = headers.index('Last poll')
        cells = {}
        for row in dash.driver.find_elements(dash.by.CSS_SELECTOR,
                                             'main tbody tr'):
            texts = [cell.text for cell in row.find_elements(
                dash.by.CSS_SELECTOR, 'th, td')]
            cells[texts[0]] = texts[column]
        if cells[polled] != 'never' or time.monotonic() > deadline:
            return cells


def _api(method: str, url: str, **kwargs) -> requests.Response:
    """What the CLI would be asked, to compare with the page."""
    return requests.request(method, url, timeout=30, **kwargs)


class _Session:
    """What ``stack_agents.metadata_url`` calls: GETs under the project."""

    def __init__(self, api: str) -> None:
        self.api = api

    def get(self, path: str):
        return requests.get(self.api + path, timeout=30)
