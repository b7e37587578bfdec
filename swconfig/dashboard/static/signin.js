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

// Signing in: under noauth, a project to act in; under Keystone, a token
// (with its project), or an application credential exchanged for a
// token at the Keystone URL the operator set ([api]
// dashboard_keystone_url).

import {h, fill, errorBox} from './dom.js';
import * as session from './session.js';

function field(id, label, attrs = {}) {
  return h('p', {}, h('label', {for: id}, label), h('br'),
           h('input', {id, name: id, required: true, ...attrs}));
}

export function signIn(main, settings, done) {
  const problem = h('div', {});
  if (settings.auth_strategy !== 'keystone') {
    const form = h('form', {id: 'signin-noauth'},
      field('project', 'Project', {autocomplete: 'off'}),
      h('button', {type: 'submit'}, 'Sign in'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      session.save({project: form.project.value.trim()});
      done();
    });
    fill(main, h('h1', {}, 'Sign in'),
         h('p', {}, 'This service runs without Keystone (noauth): you act ',
           'as a member of the project you name.'), form);
    return;
  }
  const tokenForm = h('form', {id: 'signin-token'},
    field('token', 'Keystone token', {type: 'password',
                                      autocomplete: 'off'}),
    field('token-project', 'Project ID of the token'),
    h('button', {type: 'submit'}, 'Sign in with the token'));
  tokenForm.addEventListener('submit', (event) => {
    event.preventDefault();
    session.save({token: tokenForm.token.value.trim(),
                  project: tokenForm['token-project'].value.trim()});
    done();
  });
  const sections = [h('h1', {}, 'Sign in'), problem,
    h('section', {'aria-labelledby': 'with-token'},
      h('h2', {id: 'with-token'}, 'With a token'),
      h('p', {}, 'For example from ', h('code', {},
        'openstack token issue -f value -c id -c project_id'), '.'),
      tokenForm)];
  if (settings.keystone_url) {
    const credentialForm = h('form', {id: 'signin-credential'},
      field('credential-id', 'Application credential ID'),
      field('credential-secret', 'Secret', {type: 'password',
                                            autocomplete: 'off'}),
      h('button', {type: 'submit'}, 'Sign in'));
    credentialForm.addEventListener('submit', async (event) => {
      event.preventDefault();
      fill(problem);
      try {
        session.save(await credentialToken(
          settings.keystone_url, credentialForm['credential-id'].value,
          credentialForm['credential-secret'].value));
        done();
      } catch (error) {
        fill(problem, errorBox(error));
      }
    });
    sections.push(h('section', {'aria-labelledby': 'with-credential'},
      h('h2', {id: 'with-credential'}, 'With an application credential'),
      h('p', {}, 'The browser asks Keystone at ', h('code', {},
        settings.keystone_url), ' for a token.'), credentialForm));
  }
  fill(main, ...sections);
}

async function credentialToken(keystoneUrl, id, secret) {
  const url = keystoneUrl.replace(/\/$/, '') + '/auth/tokens';
  const reply = await fetch(url, {
    method: 'POST', credentials: 'omit',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({auth: {identity: {
      methods: ['application_credential'],
      application_credential: {id, secret}}}})});
  const body = await reply.json().catch(() => null);
  if (!reply.ok) {
    const error = new Error((body && body.error && body.error.message)
                            || reply.statusText);
    error.status = reply.status;
    error.title = reply.statusText;
    error.body = body;
    throw error;
  }
  const token = reply.headers.get('X-Subject-Token');
  if (!token) {
    throw new Error('Keystone did not expose X-Subject-Token: allow it in '
                    + 'its [cors] expose_headers.');
  }
  return {token, project: body.token.project.id};
}
