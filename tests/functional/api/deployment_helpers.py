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

"""Deployments through the REST API, as the scenarios drive them: create,
show, signal, trigger, and wait for what an engine applies (signals are
applied asynchronously, so the waits poll instead of sleeping blindly)."""

import time
from typing import Any

from tests.fixtures import api_client
from tests.functional.api import helpers

POLL_SECONDS = 10
OUTPUTS = [{'name': 'result'}, {'name': 'err', 'error_output': True}]
#: The entries of the component config ``create_component`` makes.
COMPONENT_ENTRIES = [
    {'actions': ['CREATE', 'UPDATE'], 'tool': 'script',
     'config': '#!/bin/sh\necho create\n'},
    {'actions': ['SUSPEND'], 'tool': 'script', 'config': 'suspend'},
    {'actions': ['DELETE'], 'tool': 'script', 'config': 'delete'},
    {'actions': ['BACKUP'], 'tool': 'ansible', 'config': 'backup'},
]


def deployments_url(project: str, suffix: str = '') -> str:
    return helpers.url(project, 'software_deployments', suffix)


def poll_until(fetch: Any, done: Any, what: str) -> Any:
    """``fetch()`` again until ``done`` holds for its value, for up to
    POLL_SECONDS."""
    deadline = time.monotonic() + POLL_SECONDS
    while True:
        value = fetch()
        if done(value):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f'timed out waiting for {what}: {value!r}')
        time.sleep(0.05)


def show_deployment(api: Any, project: str, deployment_id: str) -> dict:
    reply = api.get(deployments_url(project, '/' + deployment_id))
    assert reply.status == 200, reply.text
    return reply.json['software_deployment']


def wait_finished(api: Any, project: str, deployment_id: str) -> dict:
    return poll_until(lambda: show_deployment(api, project, deployment_id),
                      lambda d: d['status'] != 'IN_PROGRESS',
                      f'deployment {deployment_id} to finish')


def events_of(api: Any, project: str,
                      deployment_id: str) -> list[dict]:
    reply = api.get(deployments_url(project, f'/{deployment_id}/events'))
    assert reply.status == 200, reply.text
    return reply.json['events']


def wait_event(api: Any, project: str, deployment_id: str,
               reason_start: str) -> dict:
    """The last event whose reason starts with ``reason_start``, once
    there is one."""
    events = poll_until(
        lambda: events_of(api, project, deployment_id),
        lambda evs: any((e['reason'] or '').startswith(reason_start)
                        for e in evs),
        f'an event "{reason_start}..."')
    return [e for e in events if e['reason'].startswith(reason_start)][-1]


def script_config(api: Any, project: str, **body: Any) -> dict:
    """A script config with OUTPUTS, unless ``body`` says otherwise."""
    body.setdefault('outputs', OUTPUTS)
    body.setdefault('config', '#!/bin/sh\necho hi\n')
    return helpers.create_config(api, project, **body)


def deploy_to(api: Any, project: str, server: str,
                             config_id: str, **body: Any) -> dict:
    """A deployment of ``config_id`` to ``server`` (derived by the API),
    signalled through HEAT_SIGNAL unless ``body`` says otherwise."""
    body.setdefault('signal_transport', 'HEAT_SIGNAL')
    return helpers.create_deployment(api, project, server_id=server,
                                     config_id=config_id, **body)


def get_config(api: Any, project: str, config_id: str) -> dict:
    reply = api.get(helpers.url(project, 'software_configs', '/' + config_id))
    assert reply.status == 200, reply.text
    return reply.json['software_config']


def inputs_by_name(config: dict) -> dict:
    return {item['name']: item for item in config['inputs']}


def create_component(api: Any, project: str,
                     entries: list = COMPONENT_ENTRIES,
                     name: str = 'db') -> dict:
    return helpers.create_config(
        api, project, name=name, group='component',
        config={'configs': entries},
        inputs=[{'name': 'target', 'default': '/srv'}],
        outputs=[{'name': 'result'}])


def signal_deployment(api: Any, project: str, deployment_id: str,
                      **payload: Any) -> None:
    """What an agent reports, through the authenticated route."""
    reply = api.post(deployments_url(project, f'/{deployment_id}/signal'),
                     json=payload)
    assert reply.status == 200, reply.text


def complete(api: Any, project: str, deployment_id: str,
                        **outputs: Any) -> dict:
    """Signal success and wait until the deployment is COMPLETE."""
    signal_deployment(api, project, deployment_id, deploy_status_code=0,
                      **outputs)
    done = wait_finished(api, project, deployment_id)
    assert done['status'] == 'COMPLETE', done
    return done


def post_trigger(api: Any, project: str, deployment_id: str,
                       key: str | None = None, **body: Any) -> Any:
    headers = {'Idempotency-Key': key} if key is not None else None
    return api.post(deployments_url(project, f'/{deployment_id}/trigger'),
                    json=body, headers=headers)


def own_client(api: Any) -> Any:
    """A client a thread may use alone (requests sessions are not
    thread-safe; the in-process app is)."""
    if isinstance(api, api_client.HttpClient):
        return api_client.HttpClient(api.base_url, api.backend)
    return api
