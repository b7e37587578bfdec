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

"""GET / and GET /v1: the version documents (public, no project)."""

from typing import Any

import pecan

from swconfig.api.openapi import spec
from swconfig.common import urls
from swconfig.conf import CONF

TAG = 'versions'


def _version() -> dict[str, Any]:
    # As Nova's public_endpoint: the configured URL when there is one (a
    # proxy in front rewrites the Host), else the one the request used.
    base = (CONF.api.public_url or pecan.request.host_url).rstrip('/')
    return {
        'id': 'v1.0',
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': f'{base}{urls.V1}/'}],
    }


@pecan.expose('json')
@spec.operation('listVersions', 'API versions.', tag=TAG,
                responses=spec.ok('VersionList', 'Versions.'))
def root() -> dict:
    return {'versions': [_version()]}


@pecan.expose('json')
@spec.operation('showVersion', 'The v1 version document.', tag=TAG,
                responses=spec.ok('VersionShow', 'Version.'))
def v1() -> dict:
    return {'version': _version()}
