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

// Configs: the list (filtered as you type) and one config: its source
// as code, its inputs and outputs, and for a component the actions each
// entry runs.

import {h, fill, table, link, code, time, definitions, errorBox}
  from './dom.js';
import * as api from './api.js';
import {confirmAction} from './dialog.js';

export async function list(main, {signal}) {
  const {software_configs: configs} = await api.get(
    '/software_configs', {}, signal);
  const groups = [...new Set(configs.map((c) => c.group || ''))].sort();
  const rows = h('div', {id: 'config-rows'});
  const filter = h('input', {id: 'filter', type: 'search',
                             autocomplete: 'off'});
  const group = h('select', {id: 'group-filter'},
    h('option', {value: '*'}, 'Any group'),
    groups.map((name) => h('option', {value: name}, name || '(none)')));
  const draw = () => {
    const text = filter.value.trim().toLowerCase();
    const shown = configs.filter((c) =>
      (group.value === '*' || (c.group || '') === group.value)
      && (!text || `${c.name} ${c.id} ${c.group}`.toLowerCase()
        .includes(text)));
    fill(rows, table(`${shown.length} of ${configs.length} configs`, [
      ['Name', (c) => link(`configs/${c.id}`, c.name || c.id)],
      ['Group', (c) => c.group || '—'],
      ['ID', (c) => h('code', {}, c.id)],
      ['Created', (c) => time(c.creation_time)],
    ], shown, 'No configs match.'));
  };
  filter.addEventListener('input', draw);
  group.addEventListener('change', draw);
  fill(main, h('h1', {}, 'Configs'),
    h('p', {}, link('configs/new', 'Create a config')),
    h('div', {class: 'filters', role: 'search'},
      h('label', {for: 'filter'}, 'Filter by name, ID or group'), ' ',
      filter, ' ', h('label', {for: 'group-filter'}, 'Group'), ' ', group),
    rows);
  draw();
}

function ioTable(caption, items, extra) {
  return table(caption, [
    ['Name', (i) => i.name],
    ['Type', (i) => i.type || 'String'],
    ...extra,
    ['Description', (i) => i.description || ''],
  ], items || [], `No ${caption.toLowerCase()}.`);
}

// The actions a component config's entries run, one row per entry.
export function componentActions(config) {
  const entries = (config.config && config.config.configs) || [];
  return entries.map((entry) => ({
    actions: entry.actions || ['CREATE', 'UPDATE'],
    tool: entry.tool, config: entry.config || ''}));
}

export async function detail(main, {id, signal, go}) {
  const {software_config: config} = await api.get(
    `/software_configs/${api.q(id)}`, {}, signal);
  const problem = h('div', {});
  const remove = async () => {
    if (!await confirmAction('Delete this config?',
      `Delete config ${config.name || config.id}? A config that a `
      + 'deployment uses cannot be deleted.', [], 'Delete')) return;
    try {
      await api.del(`/software_configs/${api.q(id)}`);
      go('configs');
    } catch (error) {
      fill(problem, errorBox(error));
    }
  };
  const parts = [
    h('h1', {}, `Config ${config.name || config.id}`), problem,
    definitions([['ID', h('code', {}, config.id)],
                 ['Group', config.group],
                 ['Created', time(config.creation_time)]]),
    h('p', {class: 'buttons'},
      link(`deployments/new?config=${api.q(config.id)}`, 'Deploy it…'), ' ',
      h('button', {type: 'button', onclick: remove}, 'Delete…')),
  ];
  if (config.group === 'component') {
    parts.push(h('h2', {}, 'Component actions'),
      table('What each entry runs', [
        ['Actions', (e) => e.actions.join(', ')],
        ['Tool', (e) => e.tool],
        ['Source', (e) => code(e.config)],
      ], componentActions(config)));
  } else {
    parts.push(h('h2', {}, 'Source'), code(config.config ?? ''));
  }
  parts.push(h('h2', {}, 'Inputs'),
    ioTable('Inputs', config.inputs, [
      ['Default', (i) => ('default' in i ? JSON.stringify(i.default) : '—')],
    ]),
    h('h2', {}, 'Outputs'),
    ioTable('Outputs', config.outputs, [
      ['Error output', (i) => (i.error_output ? 'yes' : 'no')],
    ]));
  if (config.options && Object.keys(config.options).length) {
    parts.push(h('h2', {}, 'Options'), code(config.options));
  }
  fill(main, ...parts);
}
