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

"""Heat's representation of a software config, shared by the API's views
and the engine's metadata renderer (agents read the very same shape)."""

import datetime
import json
from typing import Any

from oslo_utils import timeutils

TIME_FORMAT = '%Y-%m-%dT%H:%M:%SZ'


def format_time(value: Any) -> str | None:
    """Heat's timestamp form: UTC, whole seconds, ``Z``. Engine results
    arrive over RPC with their datetimes already turned into strings."""
    if value is None:
        return None
    if not isinstance(value, datetime.datetime):
        value = timeutils.parse_isotime(value)
    return timeutils.normalize_time(value).strftime(TIME_FORMAT)


def config_summary(row: dict, with_project: bool = False) -> dict:
    item = {'id': row['id'], 'name': row['name'], 'group': row['group'],
            'creation_time': format_time(row['created_at'])}
    if with_project:
        item['project'] = row['tenant']
    return item


def config(row: dict) -> dict:
    item = config_summary(row)
    item.update(config=row['config'], inputs=row['inputs'],
                outputs=row['outputs'], options=row['options'])
    return item


def metadata(config_rows: list[dict]) -> list[dict]:
    """Heat's order (config name, then deployment age), except that configs
    without a name sort first instead of failing the request."""
    ordered = sorted(config_rows,
                     key=lambda c: (c['name'] is not None, c['name'] or ''))
    return [config(row) for row in ordered]


#: A server's document as the engine writes it: compact JSON, keys sorted,
#: so ``deployments`` comes first and ``os-collect-config`` last.
DOCUMENT_HEAD = b'{"deployments":'
DOCUMENT_COLLECTOR = b',"os-collect-config":'
TENANT_VIEW_HEAD = b'{"metadata":'


def tenant_view(document: bytes | None) -> bytes:
    """Heat's tenant metadata view of a server, ``{"metadata": [...]}``:
    the deployments list of its document, cut out of the document's bytes
    (no parse, no second copy kept), in the document's compact form.

    The collector block is the document's last key and only its top-level
    key can end the list: inside a string a quote is escaped, and the
    block itself (collector settings) holds no such key.
    """
    if document and document.startswith(DOCUMENT_HEAD):
        end = document.rfind(DOCUMENT_COLLECTOR)
        if end > 0:
            return TENANT_VIEW_HEAD + document[len(DOCUMENT_HEAD):end] + b'}'
    deployments = json.loads(document)['deployments'] if document else []
    return json.dumps({'metadata': deployments}, separators=(',', ':'),
                      sort_keys=True).encode()
