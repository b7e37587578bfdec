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

// Rollouts: the list, and one rollout with its targets counted by state
// and a progress bar, read again every few seconds until it is over.

import {h, fill, table, link, time, definitions, status, errorBox,
        announce} from './dom.js';
import * as api from './api.js';
import {confirmAction} from './dialog.js';

const WAIT = 3;  // seconds: ?wait answers at the end, or after this
const DONE = ['COMPLETE', 'FAILED', 'CANCELLED'];

export async function list(main, {signal}) {
  const {rollouts} = await api.get('/rollouts', {}, signal);
  fill(main, h('h1', {}, 'Rollouts'),
    table(`${rollouts.length} rollouts`, [
      ['Rollout', (r) => link(`rollouts/${r.id}`, r.name || r.id)],
      ['Status', (r) => status(r.status)],
      ['Action', (r) => r.action || '—'],
      ['Created', (r) => time(r.creation_time)],
    ], rollouts));
}

function counts(rollout) {
  const targets = rollout.targets || {};
  const total = Object.values(targets).reduce((a, b) => a + b, 0);
  const done = DONE.reduce((sum, state) => sum + (targets[state] || 0), 0);
  return {targets, total, done};
}

export async function detail(main, {id, signal}) {
  const path = `/rollouts/${api.q(id)}`;
  let {rollout} = await api.get(path, {}, signal);
  const problem = h('div', {id: 'problem'});
  const progressBox = h('div', {id: 'rollout-progress'});
  const countsBox = h('div', {id: 'rollout-counts'});
  const targetsBox = h('div', {});
  const eventsBox = h('ol', {class: 'timeline', id: 'events'});
  const factsBox = h('div', {});

  const draw = async () => {
    const {targets, total, done} = counts(rollout);
    const label = `${done} of ${total} targets done`;
    fill(progressBox, h('p', {}, 'Status: ', status(rollout.status)),
      h('label', {for: 'rollout-bar'}, 'Progress'), ' ',
      h('progress', {id: 'rollout-bar', max: total || 1, value: done},
        label), ' ', h('span', {}, label));
    fill(countsBox, table('Targets by state', [
      ['State', ([state]) => status(state)],
      ['Targets', ([, count]) => String(count)],
    ], Object.entries(targets), 'No targets yet.'));
    fill(factsBox, definitions([
      ['ID', h('code', {}, rollout.id)],
      ['Config', rollout.config_id
        ? link(`configs/${rollout.config_id}`, rollout.config_id) : null],
      ['Action', rollout.action],
      ['Server group', rollout.server_group],
      ['Max concurrency', rollout.max_concurrency],
      ['Max errors', rollout.max_errors],
      ['Reason', rollout.status_reason],
      ['Started', time(rollout.started_time)],
      ['Finished', time(rollout.finished_time)],
    ]));
    const [{targets: rows}, {events}] = await Promise.all([
      api.get(`${path}/targets`, {}, signal),
      api.get(`${path}/events`, {}, signal)]);
    fill(targetsBox, table('Targets', [
      ['Server', (t) => link(`servers/${api.q(t.server_id)}`, t.server_id)],
      ['State', (t) => status(t.state)],
      ['Deployment', (t) => (t.deployment_id
        ? link(`deployments/${t.deployment_id}`, t.deployment_id) : '—')],
    ], rows));
    fill(eventsBox, events.map((e) => h('li', {}, time(e.creation_time),
      ' ', h('strong', {}, e.event), e.reason ? ` — ${e.reason}` : '')));
  };

  const cancel = async () => {
    fill(problem);
    if (!await confirmAction('Cancel this rollout?',
      'No new target starts; the running ones finish.', [], 'Cancel it')) {
      return;
    }
    try {
      ({rollout} = await api.post(`${path}/cancel`));
      await draw();
    } catch (error) {
      fill(problem, errorBox(error));
    }
  };

  fill(main, h('h1', {}, `Rollout ${rollout.name || rollout.id}`), problem,
    progressBox,
    rollout.finished_time ? null : h('p', {class: 'buttons'},
      h('button', {type: 'button', id: 'cancel', onclick: cancel},
        'Cancel…')),
    factsBox, countsBox, h('h2', {}, 'Targets'), targetsBox,
    h('h2', {}, 'Events'), eventsBox);
  await draw();
  (async () => {
    try {
      while (!signal.aborted && !rollout.finished_time) {
        const before = JSON.stringify(rollout);
        ({rollout} = await api.get(path, {wait: WAIT}, signal));
        if (JSON.stringify(rollout) !== before) {
          await draw();
          announce(`Rollout ${counts(rollout).done} of `
                   + `${counts(rollout).total} done`);
        }
      }
    } catch (error) {
      if (error.name !== 'AbortError') fill(problem, errorBox(error));
    }
  })();
}
