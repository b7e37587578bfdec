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

"""A server's last poll time: written by the API worker that served the
agent's poll within ``[api] poll_time_interval`` (1 s on the test
stacks), shown as ``last_poll_time`` by ``GET /servers/{id}`` and the
list; polls with a bad token do not count."""

import urllib.parse

from tests.fixtures.waiting import wait_for
from tests.functional.api import helpers


def _register(api, project: str, server_id: str) -> str:
    """Register the server; the path and query of its signed URL."""
    reply = api.post(helpers.url(project, 'servers'),
                     json={'server_id': server_id})
    assert reply.status == 200, reply.text
    assert reply.json['server']['last_poll_time'] is None
    config = api.get(helpers.url(project, 'servers',
                                 f'/{server_id}/agent-config'))
    assert config.status == 200, config.text
    parts = urllib.parse.urlsplit(
        config.json['os-collect-config']['request']['metadata_url'])
    return f'{parts.path}?{parts.query}'


def _last_poll(api, project: str, server_id: str) -> str | None:
    reply = api.get(helpers.url(project, 'servers', f'/{server_id}'))
    assert reply.status == 200, reply.text
    return reply.json['server']['last_poll_time']


def test_a_valid_poll_shows_as_the_last_poll_time(api, project):
    refused, polled, checked = (f'{project}-refused', f'{project}-polled',
                                f'{project}-checked')
    urls = {server_id: _register(api, project, server_id)
            for server_id in (refused, polled, checked)}
    # A bad token first: it must not count, so it would be written
    # with (or before) the valid polls below if it were noted.
    bad = urls[refused].replace('token=', 'token=x')
    assert api.get(bad).status == 403
    first = api.get(urls[polled])
    assert first.status == 200, first.text
    # A 304 and a HEAD are polls too.
    again = api.request('GET', urls[polled],
                        headers={'If-None-Match': first.headers['ETag']})
    assert again.status == 304
    assert api.request('HEAD', urls[checked]).status == 200

    shown = wait_for(lambda: _last_poll(api, project, polled) and _last_poll(
        api, project, checked), 15, 'the last poll times')
    assert shown.endswith('Z')
    server = api.get(helpers.url(project, 'servers', f'/{polled}')).json[
        'server']
    assert server['creation_time'] <= server['last_poll_time']
    assert _last_poll(api, project, refused) is None
    listed = {item['server_id']: item['last_poll_time'] for item in api.get(
        helpers.url(project, 'servers')).json['servers']}
    assert listed[refused] is None
    assert listed[polled] == server['last_poll_time']
