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


"""Claimed signals and the deployments they are for, as
``signals._decide`` receives them, and the call that decides a batch of
them in memory."""

from typing import Any

from swconfig.engine import signals

OUTPUTS = [
    {'name': 'result', 'type': 'String', 'error_output': False},
    {'name': 'err', 'type': 'String', 'error_output': True},
]
DONE = {'result': 'ok', 'deploy_stdout': 'out', 'deploy_stderr': '',
        'deploy_status_code': 0}


def deployment(deployment_id: str = 'd-1', **values: Any) -> dict:
    """An IN_PROGRESS deployment at action revision 1, version 3."""
    return {'id': deployment_id, 'action': 'CREATE',
            'status': 'IN_PROGRESS', 'action_revision': 1, 'version': 3,
            'output_values': None, 'outputs': OUTPUTS,
            'config_id': f'c-{deployment_id}',
            'server_id': f's-{deployment_id}', **values}


def signal(inbox_id: int, deployment_id: str = 'd-1',
           payload: dict | None = None, action_revision: int = 1) -> dict:
    """A claimed inbox row (DONE unless ``payload`` says otherwise)."""
    return {'id': inbox_id, 'deployment_id': deployment_id,
            'action_revision': action_revision,
            'payload': DONE if payload is None else payload}


def decide(signal_list: list[dict], deployment_list: list[dict],
           first_pending: dict | None = None) -> Any:
    return signals._decide(signal_list,
                           {d['id']: d for d in deployment_list},
                           first_pending or {})
