// Copyright 2026 swconfig developers
//
//    Licensed under the Apache License, Version 2.0 (the "License"); you may
//    not use this file except in compliance with the License. You may obtain
//    a copy of the License at
//
//         http://www.apache.org/licenses/LICENSE-2.0
//
//    Unless required by applicable law or agreed to in writing, software
//    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
//    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
//    License for the specific language governing permissions and limitations
//    under the License.

// Deployments: the list, and one deployment followed live: its status
// and events are read again whenever the API's long poll (?wait=N)
// answers that it changed, so the page turns COMPLETE without a reload.

import {h, fill, table, link, code, time, definitions, status, errorBox,
        announce} from './dom.js';
import * as api from './api.js';
import {confirmAction} from './dialog.js';
import {componentActions} from './configs.js';
import {validate} from './validate.js';

const WAIT = 25;  // seconds of each long poll (the API allows up to 60)
const LIFECYCLE = ['CREATE', 'UPDATE', 'SUSPEND', 'RESUME', 'DELETE'];

export async function list(main, {signal}) {
  const {software_deployments: deployments} = await api.get(
    '/software_deployments', {}, signal);
  const rows = h('div', {id: 'deployment-rows'});
  const filter = h('input', {id: 'filter', type: 'search',
                             autocomplete: 'off'});
  const statuses = [...new Set(deployments.map((d) => d.status || 'NONE'))];
  const state = h('select', {id: 'status-filter'},
    h('option', {value: '*'}, 'Any status'),
    statuses.sort().map((name) => h('option', {value: name}, name)));
  const draw = () => {
    const text = filter.value.trim().toLowerCase();
    const shown = deployments.filter((d) =>
      (state.value === '*' || (d.status || 'NONE') === state.value)
      && (!text || `${d.name} ${d.id} ${d.server_id} ${d.action}`
        .toLowerCase().includes(text)));
    fill(rows, table(`${shown.length} of ${deployments.length} deployments`, [
      ['Deployment', (d) => link(`deployments/${d.id}`, d.name || d.id)],
      ['Server', (d) => link(`servers/${api.q(d.server_id)}`, d.server_id)],
      ['Action', (d) => d.action],
      ['Status', (d) => status(d.status)],
      ['Created', (d) => time(d.creation_time)],
    ], shown, 'No deployments match.'));
  };
  filter.addEventListener('input', draw);
  state.addEventListener('change', draw);
  fill(main, h('h1', {}, 'Deployments'),
    h('p', {}, link('deployments/new', 'Deploy a config')),
    h('div', {class: 'filters', role: 'search'},
      h('label', {for: 'filter'}, 'Filter by name, ID, server or action'),
      ' ', filter, ' ', h('label', {for: 'status-filter'}, 'Status'), ' ',
      state),
    rows);
  draw();
}

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, {once: true});
  });
}

function eventLine(event) {
  const change = event.old_status === event.new_status
    ? (event.new_status || '—')
    : `${event.old_status || '—'} → ${event.new_status || '—'}`;
  return h('li', {}, time(event.time), ' ', h('strong', {}, event.action),
           ' ', change, event.reason ? ` — ${event.reason}` : '');
}

function outputsView(values) {
  const entries = Object.entries(values || {});
  return table('Output values', [
    ['Name', ([name]) => h('code', {}, name)],
    ['Value', ([, value]) => code(value === null ? 'null' : value)],
  ], entries, 'No outputs yet.');
}

async function checked(schemaName, body) {
  const {document, schema} = await api.requestSchema(schemaName);
  const errors = validate(body, schema, document);
  if (errors.length) {
    const error = new Error(`Not sent: ${errors.join('; ')}`);
    error.clientSide = true;
    throw error;
  }
  return body;
}

export async function detail(main, {id, signal, go}) {
  const path = `/software_deployments/${api.q(id)}`;
  let {software_deployment: deployment} = await api.get(path, {}, signal);
  let {events} = await api.get(`${path}/events`, {}, signal);
  const problem = h('div', {id: 'problem'});
  const statusBox = h('p', {id: 'deployment-status'});
  const reasonBox = h('p', {id: 'deployment-reason'});
  const eventsBox = h('ol', {id: 'events', class: 'timeline'});
  const outputsBox = h('div', {id: 'outputs'});
  const facts = h('div', {});
  let following = false;

  const draw = () => {
    fill(statusBox, 'Status: ', status(deployment.status), ' ',
         h('span', {}, `(action ${deployment.action})`));
    fill(reasonBox, deployment.status_reason || '');
    fill(eventsBox, events.map(eventLine));
    fill(outputsBox, outputsView(deployment.output_values));
    fill(facts, definitions([
      ['ID', h('code', {}, deployment.id)],
      ['Server', link(`servers/${api.q(deployment.server_id)}`,
                      deployment.server_id)],
      ['Config', link(`configs/${deployment.config_id}`,
                      deployment.config_id)],
      ['Source config', deployment.source_config_id
        ? link(`configs/${deployment.source_config_id}`,
               deployment.source_config_id) : null],
      ['Triggered from', deployment.triggered_from
        ? link(`deployments/${deployment.triggered_from}`,
               deployment.triggered_from) : null],
      ['Signal transport', deployment.signal_transport],
      ['Input values', code(deployment.input_values || {})],
      ['Created', time(deployment.creation_time)],
    ]));
  };

  // Follow the deployment while it runs: each long poll answers at once
  // when it changes, else after WAIT seconds.
  const follow = async () => {
    if (following) return;
    following = true;
    try {
      while (!signal.aborted && deployment.status === 'IN_PROGRESS') {
        const started = Date.now();
        const before = JSON.stringify(deployment);
        ({software_deployment: deployment} = await api.get(
          path, {wait: WAIT}, signal));
        if (JSON.stringify(deployment) !== before) {
          ({events} = await api.get(`${path}/events`, {}, signal));
          draw();
          announce(`Deployment ${deployment.status || 'changed'}`);
        } else if (Date.now() - started < 1000) {
          await sleep(1000, signal);  // the API answered without waiting
        }
      }
    } catch (error) {
      if (error.name !== 'AbortError') fill(problem, errorBox(error));
    } finally {
      following = false;
    }
  };

  const act = async (work) => {
    fill(problem);
    try {
      await work();
    } catch (error) {
      fill(problem, errorBox(error));
    }
  };

  const refresh = async (answer) => {
    if (answer && answer.software_deployment) {
      deployment = answer.software_deployment;
    }
    ({events} = await api.get(`${path}/events`, {}, signal));
    draw();
    follow();
  };

  const trigger = () => act(async () => {
    const actions = new Set(['BACKUP', 'RESTORE', 'CHECK']);
    const source = deployment.source_config_id;
    if (source) {
      const {software_config: config} = await api.get(
        `/software_configs/${api.q(source)}`, {}, signal);
      for (const entry of componentActions(config)) {
        entry.actions.forEach((name) => actions.add(name));
      }
    }
    const values = await confirmAction('Trigger an action',
      'Run one action as a new deployment on the same server, from the '
      + 'same source config. This deployment is left as it is.',
      [h('p', {}, h('label', {for: 'trigger-action'}, 'Action'), h('br'),
         h('input', {id: 'trigger-action', name: 'action', required: true,
                     list: 'trigger-actions', autocomplete: 'off'}),
         h('datalist', {id: 'trigger-actions'},
           [...actions].map((name) => h('option', {value: name}))))],
      'Trigger');
    if (!values) return;
    const body = await checked('SoftwareDeploymentTrigger',
                               {action: values.action.trim()});
    const {software_deployment: created} = await api.post(
      `${path}/trigger`, body);
    go(`deployments/${created.id}`);
  });

  const runAction = () => act(async () => {
    const values = await confirmAction('Run a lifecycle action',
      'Run an action of this deployment again on its server (DELETE '
      + 'deletes the deployment after its DELETE entry ran).',
      [h('p', {}, h('label', {for: 'lifecycle-action'}, 'Action'), h('br'),
         h('select', {id: 'lifecycle-action', name: 'action'},
           LIFECYCLE.map((name) => h('option', {value: name}, name))))],
      'Run');
    if (!values) return;
    const body = await checked('SoftwareDeploymentAction',
                               {action: values.action});
    const answer = await api.post(`${path}/actions`, body);
    if (answer === null) {
      go('deployments');
      return;
    }
    await refresh(answer);
  });

  const cancel = () => act(async () => {
    if (!await confirmAction('Cancel the running action?',
      'The deployment fails now with a reason saying it was cancelled; '
      + 'a signal that arrives later is refused.', [], 'Cancel it')) return;
    await refresh(await api.post(`${path}/cancel`));
  });

  const remove = () => act(async () => {
    if (!await confirmAction('Delete this deployment?',
      'A deployment with a DELETE action runs it first; the agent stops '
      + 'running the config.', [], 'Delete')) return;
    const answer = await api.del(path);
    if (answer === null) {
      go('deployments');
      return;
    }
    await refresh(answer);
  });

  fill(main, h('h1', {}, `Deployment ${deployment.name || deployment.id}`),
    statusBox, reasonBox, problem,
    h('p', {class: 'buttons'},
      h('button', {type: 'button', id: 'trigger', onclick: trigger},
        'Trigger action…'), ' ',
      h('button', {type: 'button', id: 'run-action', onclick: runAction},
        'Run lifecycle action…'), ' ',
      h('button', {type: 'button', id: 'cancel', onclick: cancel},
        'Cancel…'), ' ',
      h('button', {type: 'button', id: 'delete', onclick: remove},
        'Delete…')),
    facts,
    h('h2', {}, 'Outputs'), outputsBox,
    h('h2', {}, 'Events'), eventsBox);
  draw();
  follow();
}
