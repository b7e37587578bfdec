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

"""The URLs agents are given come from configuration, never from a request.

A caller's Host header used to decide the base of every signed URL of a
new server: anybody could point a server's agent at a host of their
choosing, and a request to 127.0.0.1 baked that address into every VM's
document. The in-process stack configures ``[api] public_url``; the
separate stacks leave it unset, so their URLs use the bind address.
"""

import urllib.parse

from tests.functional.api import helpers

INJECTED = {'Host': 'attacker.example:666',
            'X-Forwarded-Host': 'attacker.example'}


def _configured_base(api) -> str:
    return getattr(api, 'base_url', 'http://localhost')


def _input(config: dict, name: str) -> str:
    return next(item['value'] for item in config['inputs']
                if item['name'] == name)


def test_signal_url_ignores_the_host_header(api, project):
    config = helpers.create_config(api, project, config='#!/bin/sh')
    reply = api.post(helpers.url(project, 'software_deployments'),
                     json={'config_id': config['id'],
                           'server_id': f'{project}-srv',
                           'signal_transport': 'HEAT_SIGNAL'},
                     headers=INJECTED)
    assert reply.status == 200, reply.text
    deployment = reply.json['software_deployment']
    derived = api.get(helpers.url(project, 'software_configs',
                                  f'/{deployment["config_id"]}')).json
    signal_url = _input(derived['software_config'], 'deploy_signal_id')

    assert 'attacker' not in signal_url
    assert signal_url.startswith(_configured_base(api) + '/agent/')


def test_metadata_url_ignores_the_host_header(api, project):
    server = f'{project}-agent'
    reply = api.get(helpers.url(project, 'servers', f'/{server}/agent-config'),
                    headers=INJECTED)
    assert reply.status == 200, reply.text
    url = reply.json['os-collect-config']['request']['metadata_url']

    assert 'attacker' not in reply.text
    assert url.startswith(f'{_configured_base(api)}/agent/servers/{server}/')
    # The agent reaches its document on that URL.
    parts = urllib.parse.urlsplit(url)
    document = api.get(f'{parts.path}?{parts.query}')
    assert document.status == 200, document.text
    assert document.json['os-collect-config']['request'][
        'metadata_url'] == url


def test_registration_by_an_injected_host_changes_nothing(api, project):
    server = f'{project}-registered'
    reply = api.post(helpers.url(project, 'servers'),
                     json={'server_id': server}, headers=INJECTED)
    assert reply.status == 200, reply.text
    config = api.get(helpers.url(project, 'servers',
                                 f'/{server}/agent-config')).json
    assert 'attacker' not in config['os_collect_config_conf']
    assert config['os-collect-config']['request']['metadata_url'].startswith(
        _configured_base(api) + '/agent/')
