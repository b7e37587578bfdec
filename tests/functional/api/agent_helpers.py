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

"""What an agent is given and reads through the REST API: its metadata
URL, the per-server document, and a deployment's signal URL."""

from typing import Any
import urllib.parse

from tests.functional.api import helpers
from tests.functional.api.deployment_helpers import get_config
from tests.functional.api.deployment_helpers import inputs_by_name


def local_path(url: str) -> str:
    """The path and query of an absolute URL, for the test client."""
    parts = urllib.parse.urlsplit(url)
    return f'{parts.path}?{parts.query}'


def signal_url_of(api: Any, project: str, deployment: dict) -> str:
    """The signed signal URL in the deployment's derived config."""
    derived = get_config(api, project, deployment['config_id'])
    return inputs_by_name(derived)['deploy_signal_id']['value']


def metadata_url_of(api: Any, project: str, server: str) -> str:
    reply = api.get(helpers.url(project, 'servers', f'/{server}/agent-config'))
    assert reply.status == 200, reply.text
    return reply.json['os-collect-config']['request']['metadata_url']


def fetch_document(api: Any, metadata_url: str) -> tuple[dict, str]:
    """The server's metadata document and its ETag."""
    reply = api.get(local_path(metadata_url))
    assert reply.status == 200, reply.text
    return reply.json, reply.headers['ETag']


def config_ids_in(document: dict) -> list[str]:
    return [entry['id'] for entry in document['deployments']]
