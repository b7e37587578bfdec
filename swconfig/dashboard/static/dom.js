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

// Building the page from data: every value goes in as text, never as
// markup, so nothing an API answer holds can run as script.

export function h(tag, attrs, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

// A status as a word with a symbol: never told by colour alone.
const SYMBOLS = {COMPLETE: '✔', FAILED: '✖', IN_PROGRESS: '⟳',
                 CANCELLED: '⊘', PENDING: '…'};

export function status(value) {
  const text = value || 'NONE';
  return h('span', {class: `status status-${text.toLowerCase()}`},
           h('span', {'aria-hidden': 'true'}, SYMBOLS[text] || '•', ' '),
           text);
}

export function table(caption, columns, rows, empty = 'None.') {
  if (!rows.length) return h('p', {class: 'empty'}, empty);
  return h('table', {},
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, columns.map(([label]) =>
      h('th', {scope: 'col'}, label)))),
    h('tbody', {}, rows.map((row) => h('tr', {}, columns.map(([, cell]) =>
      h('td', {}, cell(row)))))));
}

export function link(href, text) {
  return h('a', {href, 'data-nav': true}, text);
}

export function code(value) {
  const text = typeof value === 'string' ? value
    : JSON.stringify(value, null, 2);
  return h('pre', {class: 'code', tabindex: '0'}, h('code', {}, text));
}

export function time(iso) {
  return iso ? h('time', {datetime: iso}, iso.replace('T', ' ')) : '—';
}

export function definitions(pairs) {
  return h('dl', {class: 'facts'}, pairs.map(([term, value]) =>
    [h('dt', {}, term), h('dd', {}, value ?? '—')]));
}

// The API's error as it sent it: status, title, type and message.
export function errorBox(error) {
  if (!error.status) {
    return h('div', {class: 'error', role: 'alert'}, String(error.message));
  }
  return h('div', {class: 'error', role: 'alert'},
    h('p', {}, h('strong', {}, `${error.status} ${error.title}`),
      error.type ? ` (${error.type})` : '', ': ', error.message),
    error.status === 401 ? h('p', {}, 'The token was refused (expired?): ',
                             link('signin', 'sign in again'), '.') : null,
    error.body ? h('details', {}, h('summary', {}, 'The API\'s answer'),
                   code(error.body)) : null);
}

export function announce(text) {
  document.getElementById('announce').textContent = text;
}
