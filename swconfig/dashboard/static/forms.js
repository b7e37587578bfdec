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

// The forms that create things. Each builds the body the swconfig
// command would send and checks it against the API's own request schema
// (from its OpenAPI document) before sending: a body the API would
// refuse with 400 is refused here, with nothing sent.

import {h, fill, errorBox} from './dom.js';
import * as api from './api.js';
import {validate} from './validate.js';

const GROUPS = ['script', 'component', 'ansible', 'puppet', 'salt', 'chef',
                'docker-cmd', 'Heat::Ungrouped'];

function row(id, label, control, help) {
  control.setAttribute('id', id);
  control.setAttribute('name', id);
  const parts = [h('label', {for: id}, label), h('br'), control];
  if (help) {
    control.setAttribute('aria-describedby', `${id}-help`);
    parts.push(h('br'), h('small', {id: `${id}-help`}, help));
  }
  return h('p', {}, parts);
}

// A JSON field: empty is "not given"; anything else must parse.
function json(form, id, label, errors) {
  const text = form[id].value.trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    errors.push(`${label}: not JSON (${error.message})`);
    return undefined;
  }
}

function showErrors(box, errors) {
  fill(box, h('div', {class: 'error', role: 'alert'},
    h('p', {}, h('strong', {}, 'Not sent: '),
      'the API would refuse this form.'),
    h('ul', {}, errors.map((text) => h('li', {}, text)))));
}

async function submit(form, box, schemaName, build, send) {
  fill(box);
  const errors = [];
  const body = build(errors);
  if (!errors.length) {
    const {document, schema} = await api.requestSchema(schemaName);
    errors.push(...validate(body, schema, document));
  }
  if (errors.length) {
    showErrors(box, errors);
    box.focus();  // read out, and scrolled into view
    return;
  }
  try {
    await send(body);
  } catch (error) {
    fill(box, errorBox(error));
  }
}

export async function newConfig(main, {go}) {
  const box = h('div', {id: 'form-errors', tabindex: '-1'});
  const form = h('form', {id: 'config-form', novalidate: true},
    row('config-name', 'Name', h('input', {autocomplete: 'off'})),
    row('config-group', 'Group', h('input', {list: 'groups',
                                             value: 'script'}),
        'The agent hook that runs it.'),
    h('datalist', {id: 'groups'}, GROUPS.map((g) => h('option', {value: g}))),
    row('config-source', 'Config', h('textarea', {rows: 10, cols: 70}),
        'A script as text; for the component group, JSON such as '
        + '{"configs": [{"actions": ["CREATE"], "tool": "script", '
        + '"config": "..."}]}.'),
    h('p', {}, h('input', {type: 'checkbox', id: 'config-json',
                           name: 'config-json'}), ' ',
      h('label', {for: 'config-json'}, 'The config is JSON')),
    row('config-inputs', 'Inputs (JSON list, optional)',
        h('textarea', {rows: 4, cols: 70}),
        'For example [{"name": "port", "type": "Number", "default": 80}].'),
    row('config-outputs', 'Outputs (JSON list, optional)',
        h('textarea', {rows: 4, cols: 70}),
        'For example [{"name": "result"}].'),
    h('button', {type: 'submit'}, 'Create the config'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit(form, box, 'SoftwareConfigCreate', (errors) => {
      const group = form['config-group'].value.trim();
      const body = {name: form['config-name'].value.trim(),
                    group: group || null};
      const source = form['config-source'].value;
      body.config = form['config-json'].checked || group === 'component'
        ? json(form, 'config-source', 'Config', errors) : source;
      for (const [key, id, label] of [['inputs', 'config-inputs', 'Inputs'],
                                      ['outputs', 'config-outputs',
                                       'Outputs']]) {
        const value = json(form, id, label, errors);
        if (value !== undefined) body[key] = value;
      }
      return body;
    }, async (body) => {
      const {software_config: created} = await api.post(
        '/software_configs', body);
      go(`configs/${created.id}`);
    });
  });
  fill(main, h('h1', {}, 'Create a config'), box, form);
}

export async function newDeployment(main, {params, signal, go}) {
  const [{software_configs: configs}, {servers}] = await Promise.all([
    api.get('/software_configs', {}, signal),
    api.get('/servers', {}, signal)]);
  const chosen = params.get('config');
  const box = h('div', {id: 'form-errors', tabindex: '-1'});
  const form = h('form', {id: 'deployment-form', novalidate: true},
    row('deploy-config', 'Config', h('select', {},
      configs.map((c) => h('option', {value: c.id, selected: c.id === chosen},
                           `${c.name || '(no name)'} (${c.group || '—'}) `
                           + c.id)))),
    row('deploy-server', 'Server', h('input', {list: 'server-ids',
                                               autocomplete: 'off'}),
        'A server id; a new one is registered to this project.'),
    h('datalist', {id: 'server-ids'},
      servers.map((s) => h('option', {value: s.server_id}))),
    row('deploy-action', 'Action', h('input', {value: 'CREATE'})),
    row('deploy-inputs', 'Input values (JSON object, optional)',
        h('textarea', {rows: 4, cols: 70}), 'For example {"port": 8080}.'),
    row('deploy-transport', 'Signal transport',
        h('input', {value: 'default'}),
        'How the agent reports: default is the operator\'s choice.'),
    row('deploy-timeout', 'Timeout in seconds (optional)',
        h('input', {type: 'text', inputmode: 'numeric'})),
    h('button', {type: 'submit'}, 'Deploy'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit(form, box, 'SoftwareDeploymentCreate', (errors) => {
      const body = {config_id: form['deploy-config'].value,
                    server_id: form['deploy-server'].value.trim(),
                    input_values: json(form, 'deploy-inputs',
                                       'Input values', errors) ?? {},
                    signal_transport: form['deploy-transport'].value.trim()};
      const action = form['deploy-action'].value.trim();
      if (action) body.action = action;
      const timeout = form['deploy-timeout'].value.trim();
      if (timeout) body.timeout = /^-?\d+$/.test(timeout) ? Number(timeout)
        : timeout;
      return body;
    }, async (body) => {
      const {software_deployment: created} = await api.post(
        '/software_deployments', body);
      go(`deployments/${created.id}`);
    });
  });
  fill(main, h('h1', {}, 'Deploy a config'), box, form);
}
