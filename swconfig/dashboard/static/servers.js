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

// Servers: the project's servers with what their agents have answered,
// and one server: its deployments and the document its agent polls.

import {h, fill, table, link, code, time, definitions, status}
  from './dom.js';
import * as api from './api.js';

// A server's agent, told by its deployments: waiting while any of them
// waits for a signal, else how the newest one ended.
export function agentStatus(deployments) {
  if (!deployments.length) return h('span', {}, 'no deployments');
  const waiting = deployments.filter((d) => d.status === 'IN_PROGRESS');
  if (waiting.length) {
    return h('span', {}, status('IN_PROGRESS'),
             ` waiting for the agent (${waiting.length})`);
  }
  const failed = deployments.filter((d) => d.status === 'FAILED');
  if (failed.length) {
    return h('span', {}, status('FAILED'), ` ${failed.length} failed`);
  }
  const answered = deployments.filter((d) => d.status === 'COMPLETE');
  if (answered.length === deployments.length) {
    return h('span', {}, status('COMPLETE'), ' all answered');
  }
  return h('span', {}, `${answered.length} answered, `
           + `${deployments.length - answered.length} expect no signal`);
}

// When the agent last fetched its document (the API writes it a few
// seconds late); "never" in words, not a dash, when it has not polled yet.
function lastPoll(server) {
  return server.last_poll_time ? time(server.last_poll_time) : 'never';
}

function byServer(deployments) {
  const found = new Map();
  for (const deployment of deployments) {
    if (!found.has(deployment.server_id)) found.set(deployment.server_id, []);
    found.get(deployment.server_id).push(deployment);
  }
  return found;
}

export async function list(main, {signal}) {
  const [{servers}, {software_deployments: deployments}] = await Promise.all([
    api.get('/servers', {}, signal),
    api.get('/software_deployments', {}, signal)]);
  const grouped = byServer(deployments);
  fill(main, h('h1', {}, 'Servers'),
    table(`${servers.length} servers`, [
      ['Server', (s) => link(`servers/${api.q(s.server_id)}`, s.server_id)],
      ['Agent', (s) => agentStatus(grouped.get(s.server_id) || [])],
      ['Last poll', (s) => lastPoll(s)],
      ['Document changed', (s) => time(s.metadata_updated_time)],
      ['Labels', (s) => Object.entries(s.labels || {})
        .map(([k, v]) => `${k}=${v}`).join(', ') || '—'],
    ], servers, 'No servers yet: a server appears when something is '
                + 'deployed to it.'));
}

export async function detail(main, {id, signal}) {
  const path = api.q(id);
  const [{server}, {software_deployments: deployments}, document] =
    await Promise.all([
      api.get(`/servers/${path}`, {}, signal),
      api.get('/software_deployments', {server_id: id}, signal),
      api.get(`/software_deployments/metadata/${path}`, {}, signal)]);
  fill(main, h('h1', {}, `Server ${server.server_id}`),
    definitions([
      ['Agent', agentStatus(deployments)],
      ['Last poll', lastPoll(server)],
      ['Registered', time(server.creation_time)],
      ['Document changed', time(server.metadata_updated_time)],
      ['Labels', Object.entries(server.labels || {})
        .map(([k, v]) => `${k}=${v}`).join(', ') || '—'],
    ]),
    h('h2', {}, 'Deployments'),
    table('Deployments on this server', [
      ['Deployment', (d) => link(`deployments/${d.id}`, d.name || d.id)],
      ['Action', (d) => d.action],
      ['Status', (d) => status(d.status)],
      ['Created', (d) => time(d.creation_time)],
    ], deployments),
    h('h2', {}, 'Current document'),
    h('p', {}, 'What the agent reads on its next poll.'),
    code(document.metadata ?? document));
}
