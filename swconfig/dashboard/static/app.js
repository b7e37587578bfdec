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

// The dashboard's entry point: who is signed in, which page the URL
// names, and the links between pages (history navigation, no reloads).

import {h, fill, errorBox, announce} from './dom.js';
import * as session from './session.js';
import {signIn} from './signin.js';
import * as configs from './configs.js';
import * as deployments from './deployments.js';
import * as servers from './servers.js';
import * as rollouts from './rollouts.js';
import * as forms from './forms.js';

const BASE = new URL(document.baseURI).pathname;

// The modules whose functions draw pages; settings.json names the
// function of each page as "module.function".
const VIEWS = {configs, deployments, servers, rollouts, forms};

let settings = null;
let pages = null;  // [pattern, draw] in the server's order
let running = null;  // the AbortController of the page shown

// The server's page list (swconfig.api.dashboard.PAGES) as patterns and
// the functions that draw them. A path's segments are lower-case words,
// or "*": one segment, an id.
function pagesOf(listed) {
  return listed.filter((page) => page.view).map((page) => {
    const [module, name] = page.view.split('.');
    const pattern = page.path.replaceAll('*', '([^/]+)');
    return [new RegExp(`^${pattern}$`), VIEWS[module][name]];
  });
}

export function go(path) {
  history.pushState(null, '', new URL(path, document.baseURI));
  render();
}

// The page's path after /dashboard/, still percent-encoded: an id may
// hold any character but "/", so each segment is decoded on its own.
function pagePath() {
  return location.pathname.slice(BASE.length).replace(/\/$/, '');
}

function drawChrome(who) {
  const nav = document.getElementById('nav');
  const current = pagePath().split('/')[0] || 'configs';
  const linked = settings.pages.filter((page) => page.nav);
  fill(nav, h('ul', {}, linked.map(({path, nav: label}) => h('li', {},
    h('a', {href: path, 'data-nav': true,
            'aria-current': path === current ? 'page' : null}, label)))));
  const whoBox = document.getElementById('who');
  if (!who) {
    fill(whoBox);
    return;
  }
  fill(whoBox, h('span', {}, 'Project ', h('strong', {id: 'project'},
                                           who.project)),
       ' ', h('button', {type: 'button', onclick: () => {
         session.forget();
         go('signin');
       }}, 'Sign out'));
}

async function render() {
  if (running) running.abort();
  running = new AbortController();
  const main = document.getElementById('main');
  const params = new URLSearchParams(location.search);
  if (!settings) {
    settings = await (await fetch('settings.json', {cache: 'no-store'}))
      .json();
    pages = pagesOf(settings.pages);
  }
  if (settings.auth_strategy !== 'keystone' && params.get('project')) {
    session.save({project: params.get('project')});
  }
  const who = session.current();
  const path = pagePath();
  if (!who || path === 'signin') {
    drawChrome(null);
    document.title = 'Sign in · swconfig';
    signIn(main, settings, () => go(params.get('next') || ''));
    return;
  }
  drawChrome(who);
  for (const [pattern, page] of pages) {
    const match = pattern.exec(path);
    if (!match) continue;
    fill(main, h('p', {}, 'Loading…'));
    try {
      const id = match[1] === undefined ? undefined
        : decodeURIComponent(match[1]);
      await page(main, {id, params, signal: running.signal, go});
    } catch (error) {
      if (error.name === 'AbortError') return;
      fill(main, h('h1', {}, 'Error'), errorBox(error));
    }
    const heading = main.querySelector('h1');
    document.title = `${heading ? heading.textContent : 'swconfig'} · swconfig`;
    announce(document.title);
    return;
  }
  fill(main, h('h1', {}, 'Not found'),
       h('p', {}, 'The dashboard has no such page.'));
}

// Same-origin links marked data-nav change the page without a reload.
document.addEventListener('click', (event) => {
  const anchor = event.target.closest('a[data-nav]');
  if (!anchor || event.ctrlKey || event.metaKey || event.shiftKey
      || event.button !== 0) return;
  event.preventDefault();
  history.pushState(null, '', anchor.href);
  render().then(() => document.getElementById('main').focus());
});
window.addEventListener('popstate', render);
render();
