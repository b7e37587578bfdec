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

// Confirmations: a modal <dialog> (keyboard reachable, Escape cancels)
// asking before anything changes; it resolves to the form's values, or
// null when cancelled.

import {h} from './dom.js';

export function confirmAction(title, text, fields = [], confirmLabel = 'OK') {
  return new Promise((resolve) => {
    const form = h('form', {method: 'dialog'},
      h('h2', {id: 'dialog-title'}, title),
      h('p', {}, text),
      fields,
      h('p', {class: 'buttons'},
        h('button', {type: 'submit', value: 'ok', id: 'dialog-ok'},
          confirmLabel),
        ' ',
        h('button', {type: 'submit', value: 'cancel', formnovalidate: true,
                     id: 'dialog-cancel'}, 'Cancel')));
    const dialog = h('dialog', {'aria-labelledby': 'dialog-title'}, form);
    document.body.append(dialog);
    dialog.addEventListener('close', () => {
      const values = dialog.returnValue === 'ok'
        ? Object.fromEntries(new FormData(form)) : null;
      dialog.remove();
      resolve(values);
    });
    dialog.showModal();
  });
}
