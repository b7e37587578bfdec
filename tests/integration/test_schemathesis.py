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

"""Property-based fuzzing of the live API from its own OpenAPI document.

schemathesis sends every documented operation of a spawned
``swconfig-all`` (the ``embedded_service`` fixture: noauth, SQLite,
in-process RPC, a free port of 127.0.0.1) generated valid and invalid
requests, plus its coverage cases (boundary values, wrong types,
undeclared methods and content types), and then chains operations along
the document's links. The properties checked: the server never answers
5xx (a server bug, never a flaky test), every answer has a status, a
content type and a body the document gives for the operation, and the
document is exact: a request it allows is accepted (2xx, or 404/409 for
what does not exist or conflicts) and one it forbids is refused. The seed
is fixed, so a failure reproduces exactly.

The schema is built at import time from swconfig.api.routes (pytest must
know the operations when it collects the tests, before the server runs);
test_served_document_is_the_tested_one checks the server serves exactly
that document. ``{tenant_id}`` is pinned to one project of these tests: in
noauth the caller is a member of the project in the path, so requests pass
the tenant check and reach the controllers.
"""

import json
import uuid

import hypothesis
import pytest
import requests
import schemathesis
from schemathesis.checks import content_type_conformance
from schemathesis.checks import negative_data_rejection
from schemathesis.checks import not_a_server_error
from schemathesis.checks import positive_data_acceptance
from schemathesis.checks import response_schema_conformance
from schemathesis.checks import status_code_conformance

from swconfig.api import routes

PROJECT = f'p-fuzz-{uuid.uuid4().hex[:8]}'
SEED = 20251122
MAX_EXAMPLES = 25
STATEFUL_SCENARIOS = 20
STATEFUL_STEPS = 10
MIN_STATEFUL_CALLS = 100
#: Never a 5xx; every answer as the document says (a documented status,
#: content type and body schema); what the document allows accepted and
#: what it forbids refused.
CHECKS = [not_a_server_error, status_code_conformance,
          content_type_conformance, response_schema_conformance,
          positive_data_acceptance, negative_data_rejection]

#: What the document says of a well-formed request's answer, plus 400
#: for the operations that refuse a well-formed request because of what
#: exists, which no document can state: a rollout whose selector matches
#: no server or whose servers lack the named deployment, a group of
#: servers nobody registered, a list of deployments of unknown configs
#: (one 404 would not name every item).
ACCEPTED = ['2xx', '3xx', '401', '403', '404', '409', '429']
REFUSED_BY_STATE = [('POST', '/v1/{tenant_id}/rollouts'),
                    ('POST', '/v1/{tenant_id}/server_groups'),
                    ('POST', '/v1/{tenant_id}/software_deployments')]

schema = schemathesis.openapi.from_dict(
    json.loads(routes.openapi_document_json()),
    config=schemathesis.Config.from_dict({
        'seed': SEED,
        'checks': {'positive_data_acceptance': {
            'expected-statuses': ACCEPTED}},
        'operations': [
            {'include-method': method, 'include-path': path,
             'checks': {'positive_data_acceptance': {
                 'expected-statuses': [*ACCEPTED, '400']}}}
            for method, path in REFUSED_BY_STATE],
        'parameters': {'path.tenant_id': PROJECT},
        'generation': {
            'max-examples': MAX_EXAMPLES,
            # NUL is refused in every string of every body, keys
            # included, which the document says once (its description)
            # rather than in every schema; the functional tests check
            # that refusal (tests/functional/api/test_bad_input.py).
            'allow-x00': False,
            # No example database: the same seed must mean the same run.
            'database': 'none',
        },
        'request-timeout': 30,
    }))


@pytest.fixture(scope='module')
def base_url(embedded_service) -> str:
    return embedded_service.base_url


@pytest.fixture(scope='module')
def session():
    with requests.Session() as http:
        yield http


def test_served_document_is_the_tested_one(base_url):
    reply = requests.get(base_url + '/v1/openapi.json', timeout=30)
    assert reply.status_code == 200
    assert reply.json() == schema.raw_schema
    schema.validate()
    documented = [(path, method) for path, item in schema.raw_schema[
        'paths'].items() for method in item if method != 'parameters']
    assert len(list(schema.get_all_operations())) == len(documented)


@schema.parametrize()
def test_no_server_errors(case, base_url, session):
    case.call_and_validate(base_url=base_url, session=session,
                           checks=CHECKS)


def test_no_server_errors_in_sequences(base_url, session):
    """Follows the document's links (create a config, deploy it, update
    and delete the deployment, delete the config, ...) so the fuzzing also
    reaches objects that exist."""
    answered: list[str] = []
    server_errors: list[str] = []

    class Machine(schema.as_state_machine()):  # type: ignore[misc]
        def before_call(self, case):
            # The config's parameter override does not reach the steps of
            # a state machine; pin the project here.
            if 'tenant_id' in (case.path_parameters or {}):
                case.path_parameters['tenant_id'] = PROJECT

        def get_call_kwargs(self, case):
            return {'base_url': base_url, 'session': session}

        def validate_response(self, response, case, additional_checks=None,
                              **kwargs):
            call = f'{case.method} {case.formatted_path}'
            answered.append(call)
            if response.status_code >= 500:
                server_errors.append(f'{call} -> {response.status_code}')
            case.validate_response(response, checks=CHECKS)

    try:
        Machine.run(settings=hypothesis.settings(
            max_examples=STATEFUL_SCENARIOS,
            stateful_step_count=STATEFUL_STEPS, derandomize=True,
            database=None, deadline=None,
            suppress_health_check=list(hypothesis.HealthCheck)))
    except hypothesis.errors.FlakyStrategyDefinition:
        # The server is live state: a sequence hypothesis replays meets the
        # objects and applied signals of the sequences before it, so the
        # rules it may pick differ and hypothesis stops the run. The
        # property is checked on every answer above, whatever hypothesis
        # concludes, and the run must have gone far enough to count.
        pass
    assert server_errors == []
    assert len(answered) >= MIN_STATEFUL_CALLS, answered
