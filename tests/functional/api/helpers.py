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

"""Small helpers shared by the API scenarios."""

from typing import Any


def url(project: str, resource: str, suffix: str = '') -> str:
    return f'/v1/{project}/{resource}{suffix}'


def create_config(api: Any, project: str, **body: Any) -> dict:
    body.setdefault('name', 'cfg')
    body.setdefault('group', 'script')
    reply = api.post(url(project, 'software_configs'), json=body)
    assert reply.status == 200, reply.text
    return reply.json['software_config']


def create_deployment(api: Any, project: str, **body: Any) -> dict:
    reply = api.post(url(project, 'software_deployments'), json=body)
    assert reply.status == 200, reply.text
    return reply.json['software_deployment']


def assert_error(reply: Any, status: int, error_type: str | None = None
                 ) -> dict:
    """Heat's error body, exactly: returns its ``error`` member."""
    assert reply.status == status, reply.text
    assert reply.headers['Content-Type'].startswith('application/json')
    body = reply.json
    assert body['code'] == status
    assert set(body) == {'code', 'title', 'explanation', 'error'}
    assert body['error']['traceback'] is None
    if error_type:
        assert body['error']['type'] == error_type
    return body['error']
