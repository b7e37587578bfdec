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

"""The engine applies signals later, in the background: its log names
the request that stored each signal, so an operator can follow an agent's
call from the API's log to its outcome."""

import json
import logging

from tests.functional.api.agent_helpers import local_path
from tests.functional.api.agent_helpers import signal_url_of
from tests.functional.api.deployment_helpers import deploy_to
from tests.functional.api.deployment_helpers import deployments_url
from tests.functional.api.deployment_helpers import poll_until
from tests.functional.api.deployment_helpers import script_config


def _stored_by(caplog, request_id: str) -> list[str]:
    return [record.getMessage() for record in caplog.records
            if f'(stored by request {request_id})' in record.getMessage()]


def _logged(caplog, request_id: str) -> list[str]:
    # The engine logs after its transaction commits, so the deployment
    # can read finished a moment before the line is written: wait for the
    # line itself, inside caplog.at_level, which must still be in force.
    return poll_until(lambda: _stored_by(caplog, request_id), bool,
                      f'the log line of request {request_id}')


def test_agent_signal_is_logged_with_its_request_id(inprocess_stack,
                                                    project, caplog):
    api = inprocess_stack
    source = script_config(api, project)
    deployment = deploy_to(api, project, f'{project}-srv',
                           source['id'])
    url = local_path(signal_url_of(api, project, deployment))
    with caplog.at_level(logging.INFO, logger='swconfig.engine.signals'):
        reply = api.put(url, data=json.dumps({'deploy_status_code': 0}))
        assert reply.status == 200, reply.text
        request_id = reply.headers['x-openstack-request-id']
        [line] = _logged(caplog, request_id)
    assert f'applied to deployment {deployment["id"]}' in line


def test_user_signal_is_logged_with_its_request_id(inprocess_stack,
                                                   project, caplog):
    api = inprocess_stack
    source = script_config(api, project)
    deployment = deploy_to(api, project, f'{project}-srv',
                           source['id'])
    with caplog.at_level(logging.INFO, logger='swconfig.engine.signals'):
        reply = api.post(deployments_url(
            project, f'/{deployment["id"]}/signal'),
            json={'deploy_status_code': 0})
        assert reply.status == 200, reply.text
        request_id = reply.headers['x-openstack-request-id']
        [line] = _logged(caplog, request_id)
    assert f'applied to deployment {deployment["id"]}' in line
