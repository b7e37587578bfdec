# Copyright 2026 swconfig developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Client-derived TEMP_URL deployments: a GET polls the caller's Swift.

python-heatclient's ``software deployment create`` derives the config
itself and points ``deploy_signal_id`` at a PUT TempURL in the *user's*
Swift account, which only the user can read. As in Heat, showing such a
deployment while it is IN_PROGRESS reads that object with the caller's
token; new content (by ETag, never by Last-Modified) goes through the
same exactly-once path as every other signal. Server-derived deployments
are never polled here: the engines watch their objects in the
background.

The object is read from the object-store endpoint of the caller's
service catalog, with the container and object named by the TempURL's
path; the TempURL's host is never contacted, so a config cannot make the
API send a token, or a request, anywhere else.
"""

import json
from typing import Any
from urllib import parse

from oslo_log import log
import requests

from swconfig.common.context import RequestContext
from swconfig.conf import CONF
from swconfig.transports import base

LOG = log.getLogger(__name__)


def object_path(signal_url: str) -> tuple[str, str] | None:
    """(container, object) from the last two path segments of a TempURL
    (``/v1/AUTH_x/<container>/<object>``), or None."""
    segments = parse.urlsplit(signal_url).path.split('/')
    if len(segments) < 5 or not segments[-2] or not segments[-1]:
        return None
    return parse.unquote(segments[-2]), parse.unquote(segments[-1])


def storage_url(catalog_header: str | None, project_id: str) -> str | None:
    """The caller's object-store URL (public interface) from the
    X-Service-Catalog header keystonemiddleware sets."""
    if not catalog_header:
        return None
    try:
        catalog = json.loads(catalog_header)
    except ValueError:
        return None
    for service in catalog if isinstance(catalog, list) else []:
        if not isinstance(service, dict) or (
                service.get('type') != 'object-store'):
            continue
        for endpoint in service.get('endpoints') or []:
            url = endpoint.get('publicURL') or (
                endpoint.get('url')
                if endpoint.get('interface') == 'public' else None)
            if url:
                return url.replace('%(project_id)s', project_id)
    return None


def poll(context: RequestContext, row: dict, inputs: dict[str, Any],
         catalog_header: str | None, sink: base.SignalSink) -> bool:
    """For an IN_PROGRESS deployment of a client-derived config with
    ``inputs``: hand what the caller's signal object holds to ``sink`` if it is
    new; returns whether a signal was stored and applied. Swift being
    unreachable is logged, not raised: the GET still answers with the
    deployment as stored, and the next GET polls again."""
    where = object_path(str(inputs.get('deploy_signal_id') or ''))
    storage = storage_url(catalog_header, context.project_id or '')
    if where is None or storage is None or not context.auth_token:
        return False
    url = '/'.join([storage.rstrip('/'), *(parse.quote(part, safe='')
                                           for part in where)])
    try:
        response = requests.get(
            url, headers={'X-Auth-Token': context.auth_token},
            timeout=CONF.swift.timeout)
    except requests.RequestException as exc:
        LOG.warning('Could not poll the signal object of deployment %s: '
                    '%s', row['id'], exc)
        return False
    if response.status_code == 404 or not response.content:
        return False  # not written yet (heatclient makes it empty)
    if response.status_code != 200:
        LOG.warning('Polling the signal object of deployment %s: %s',
                    row['id'], response.status_code)
        return False
    etag = response.headers.get('Etag', '').strip('"')
    revision = row['action_revision']
    return sink.receive(row['id'], revision, f'swift:{revision}:{etag}',
                        body=response.content,
                        where="the user's signal object")
