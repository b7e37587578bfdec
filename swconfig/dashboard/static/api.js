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

// The public REST API, as the swconfig command calls it: the same URLs,
// bodies and headers, so the same policies apply and the same errors
// come back. Nothing else is ever requested but these URLs under /v1/
// and the dashboard's own files.

import * as session from './session.js';

export class ApiError extends Error {
  constructor(status, title, type, message, body) {
    super(message);
    this.status = status;
    this.title = title;
    this.type = type;
    this.body = body;
  }
}

// /dashboard/ -> /v1/ (behind a proxy prefix too).
export const V1 = new URL('../v1/', document.baseURI);

function projectUrl(path, query) {
  const who = session.current();
  const url = new URL(`${encodeURIComponent(who.project)}${path}`, V1);
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== '') {
      url.searchParams.set(name, value);
    }
  }
  return url;
}

async function send(method, url, body, signal) {
  const who = session.current() || {};
  const headers = {Accept: 'application/json'};
  if (who.token) headers['X-Auth-Token'] = who.token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const reply = await fetch(url, {
    method, headers, signal, credentials: 'omit', cache: 'no-store',
    body: body === undefined ? undefined : JSON.stringify(body)});
  const text = await reply.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!reply.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(reply.status, (data && data.title) || reply.statusText,
                       error.type, error.message || text, data || text);
  }
  return data;
}

export function get(path, query, signal) {
  return send('GET', projectUrl(path, query), undefined, signal);
}

export function post(path, body) {
  return send('POST', projectUrl(path), body);
}

export function put(path, body) {
  return send('PUT', projectUrl(path), body);
}

export function del(path) {
  return send('DELETE', projectUrl(path));
}

export const q = encodeURIComponent;

let openapi = null;

// The API's own OpenAPI document: its request schemas are the ones the
// API validates bodies with, so the forms check what the API will.
export async function requestSchema(name) {
  if (!openapi) openapi = send('GET', new URL('openapi.json', V1));
  const document = await openapi;
  return {document, schema: document.components.schemas[name]};
}
