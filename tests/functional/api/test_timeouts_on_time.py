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


"""A deployment's timeout fires on time: within 2 s of its deadline, with
``[agent] timeout_check_interval`` at its default (10 s: a 5 s timeout
used to end at 16 s), on every backend."""

import time

from tests.functional.api.deployment_helpers import deploy_to
from tests.functional.api.deployment_helpers import deployments_url
from tests.functional.api.deployment_helpers import events_of
from tests.functional.api.deployment_helpers import script_config

TIMEOUT = 3
#: The promise: failed within this long after the deadline.
LATE_AT_MOST = 2.0


def _wait_for_change(api, project: str, deployment_id: str) -> dict:
    """The deployment once its status changed (the service's long poll
    answers as soon as it does)."""
    deadline = time.monotonic() + TIMEOUT + 30
    while time.monotonic() < deadline:
        reply = api.get(deployments_url(project, f'/{deployment_id}?wait=20'))
        assert reply.status == 200, reply.text
        deployment = reply.json['software_deployment']
        if deployment['status'] != 'IN_PROGRESS':
            return deployment
    raise AssertionError(f'deployment {deployment_id} never timed out')


def test_a_timeout_fires_within_2_s_of_its_deadline(api, project):
    server = f'{project}-srv'
    source = script_config(api, project)
    for attempt in range(2):  # the second is not right after a wake-up
        before = time.monotonic()
        deployment = deploy_to(api, project, server, source['id'],
                               timeout=TIMEOUT)
        created = time.monotonic()
        done = _wait_for_change(api, project, deployment['id'])
        seen = time.monotonic()
        assert (done['status'], done['status_reason']) == (
            'FAILED', f'Deployment timed out: no signal within {TIMEOUT} '
                      f'seconds'), done
        # The deadline is between before + TIMEOUT and created + TIMEOUT.
        assert seen - before >= TIMEOUT, (attempt, seen - before)
        assert seen - created <= TIMEOUT + LATE_AT_MOST, (
            attempt, seen - created)
        assert events_of(api, project, deployment['id'])[-1]['reason'] == (
            done['status_reason'])
