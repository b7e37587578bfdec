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

// Who the dashboard calls the API as: kept in this tab's sessionStorage
// only, so closing the tab signs out.

const KEY = 'swconfig-dashboard-session';

export function current() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY)) || null;
  } catch {
    return null;
  }
}

export function save(session) {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function forget() {
  sessionStorage.removeItem(KEY);
}
