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

"""Agent signals that are large or carry unstorable characters, on every
backend: a verbose deployment is applied with the tail of its logs, one
over ``[agent] max_signal_size`` answers 413 and FAILs its deployment
with a reason (it used to be refused with nothing recorded, and the
deployment waited for its timeout), and lone surrogates or NUL become
U+FFFD instead of a 500 that heat-config-notify retries.
"""

import io
import json
from typing import Any

import pytest
import requests

from swconfig.conf import CONF
from tests.functional.api.agent_helpers import local_path
from tests.functional.api.agent_helpers import signal_url_of
from tests.functional.api.deployment_helpers import deploy_to
from tests.functional.api.deployment_helpers import deployments_url
from tests.functional.api.deployment_helpers import script_config
from tests.functional.api.deployment_helpers import show_deployment
from tests.functional.api.deployment_helpers import wait_event
from tests.functional.api.deployment_helpers import wait_finished
from tests.functional.api.helpers import assert_error

MAX_SIGNAL = 4194304  # [agent] max_signal_size's default
MAX_OUTPUT = 1048576  # [agent] max_signal_output_size's default
MARKER = '[... {} bytes truncated ...]\n'


def _deployment(api: Any, project: str) -> tuple[dict, str]:
    source = script_config(api, project)
    deployment = deploy_to(api, project, f'{project}-srv',
                           source['id'])
    url = local_path(signal_url_of(api, project, deployment))
    return deployment, url


def _put_chunked(api: Any, path: str, data: bytes) -> tuple[int, dict]:
    """PUT ``data`` with chunked transfer encoding (no Content-Length);
    the status and the JSON body of the answer."""
    if hasattr(api, 'base_url'):
        chunks = (data[i:i + 65536] for i in range(0, len(data), 65536))
        reply = requests.put(api.base_url + path, data=chunks, timeout=60)
        return reply.status_code, reply.json()
    # In process: the WSGI app itself, as a server hands it a chunked body.
    request_path, _, query = path.partition('?')
    environ = {'REQUEST_METHOD': 'PUT', 'PATH_INFO': request_path,
               'QUERY_STRING': query, 'SERVER_NAME': 'localhost',
               'SERVER_PORT': '80', 'SERVER_PROTOCOL': 'HTTP/1.1',
               'HTTP_TRANSFER_ENCODING': 'chunked',
               'wsgi.input': io.BytesIO(data), 'wsgi.url_scheme': 'http',
               'wsgi.errors': io.StringIO()}
    answer = {}

    def start_response(status, headers, exc_info=None):
        answer['status'] = int(status.split()[0])

    content = b''.join(api.app.app(environ, start_response))
    return answer['status'], json.loads(content)


def _check_tail(value: str, original: str) -> None:
    """``value`` is ``original``'s tail under the truncation marker, in at
    most MAX_OUTPUT bytes (a few less where a character did not fit)."""
    kept = value.split('\n', 1)[1]
    cut = len(original.encode()) - len(kept.encode())
    assert value == MARKER.format(cut) + kept
    assert original.endswith(kept)
    assert MAX_OUTPUT - 4 < len(value.encode()) <= MAX_OUTPUT


def test_verbose_signal_keeps_the_tail_of_its_logs(api, project):
    deployment, url = _deployment(api, project)
    stdout = ''.join(f'line {n}\n' for n in range(200000))  # 2.2 MB
    stderr = 'é' * 600000  # 1.2 MB of UTF-8, sent unescaped
    data = json.dumps({'deploy_stdout': stdout, 'deploy_stderr': stderr,
                       'result': 'fine', 'deploy_status_code': 0},
                      ensure_ascii=False).encode()
    assert 3 * MAX_OUTPUT < len(data) < MAX_SIGNAL
    reply = api.put(url, data=data,
                    headers={'Content-Type': 'application/json'})
    assert reply.status == 200, reply.text
    done = wait_finished(api, project, deployment['id'])
    assert (done['status'], done['status_reason']) == ('COMPLETE',
                                                       'Outputs received')
    values = done['output_values']
    assert (values['result'], values['deploy_status_code']) == ('fine', 0)
    _check_tail(values['deploy_stdout'], stdout)
    assert values['deploy_stdout'].endswith('line 199999\n')
    _check_tail(values['deploy_stderr'], stderr)


def test_signal_over_the_hard_limit_fails_the_deployment(api, project):
    deployment, url = _deployment(api, project)
    envelope = len(json.dumps({'deploy_stdout': ''}))
    data = json.dumps({'deploy_stdout': 'x' * (MAX_SIGNAL + 1 - envelope)})
    assert len(data) == MAX_SIGNAL + 1
    error = assert_error(api.put(url, data=data), 413, 'SignalTooLarge')
    reason = (f'Signal too large: {MAX_SIGNAL + 1} bytes, over the limit '
              f'of {MAX_SIGNAL} bytes ([agent] max_signal_size); its '
              f'outputs were not recorded')
    assert error['message'] == (f'Signal refused: {reason}; the '
                                f'deployment fails')
    done = wait_finished(api, project, deployment['id'])
    assert (done['status'], done['status_reason']) == ('FAILED', reason)
    assert done['output_values'] is None
    event = wait_event(api, project, deployment['id'],
                       'Signal too large')
    assert (event['old_status'], event['new_status'], event['reason']) == (
        'IN_PROGRESS', 'FAILED', reason)

    # The agent's later signal finds the action finished, as any would.
    assert_error(api.put(url, data='{"deploy_status_code": 0}'), 403,
                 'SignalRefused')
    wait_event(api, project, deployment['id'],
               'Duplicate signal ignored')
    assert show_deployment(api, project, deployment['id']) == done


def test_chunked_signal_over_the_hard_limit(api, project):
    deployment, url = _deployment(api, project)
    data = b'{"deploy_stdout": "' + b'z' * (MAX_SIGNAL + 10) + b'"}'
    status, answer = _put_chunked(api, url, data)
    assert status == 413, answer
    assert answer['error']['type'] == 'SignalTooLarge'
    reason = (f'Signal too large: {len(data)} bytes, over the limit of '
              f'{MAX_SIGNAL} bytes')
    assert reason in answer['error']['message']
    done = wait_finished(api, project, deployment['id'])
    assert done['status'] == 'FAILED'
    assert done['status_reason'].startswith(reason)

    # A chunked signal within the limit is applied as usual.
    other, other_url = _deployment(api, project)
    status, answer = _put_chunked(api, other_url,
                                  b'{"result": "chunked"}')
    assert status == 200, answer
    done = wait_finished(api, project, other['id'])
    assert done['output_values']['result'] == 'chunked'


def test_unstorable_characters_become_replacement_characters(api, project):
    """heat-config-notify sends JSON with ASCII escapes, so a lone
    surrogate arrives as ``\\udXXX``; the database cannot store it (nor
    NUL, on PostgreSQL) and the API answered 500, retried by the agent
    until it gave up."""
    progress, progress_url = _deployment(api, project)
    reply = api.put(progress_url, data=(
        rb'{"deploy_status": "IN_PROGRESS", '
        rb'"deploy_status_reason": "step\u0000one \udc80"}'))
    assert reply.status == 200, reply.text
    wait_event(api, project, progress['id'],
               'step\ufffdone \ufffd')

    failed, failed_url = _deployment(api, project)
    reply = api.put(failed_url, data=(
        rb'{"deploy_stdout": "out \ud800\ud83d\ude00", '
        rb'"err": "disk\u0000full \udfff", "\udbffkey": 1, '
        b'"deploy_stderr": "raw \xed\xa0\x80 bytes"}'))
    assert reply.status == 200, reply.text
    done = wait_finished(api, project, failed['id'])
    assert (done['status'], done['status_reason']) == (
        'FAILED', 'err : disk\ufffdfull \ufffd')
    assert done['output_values'] == {
        'err': 'disk\ufffdfull \ufffd', 'deploy_stdout': 'out \ufffd😀',
        'deploy_stderr': 'raw \ufffd bytes', 'deploy_status_code': None}


@pytest.mark.parametrize('number', [b'NaN', b'-Infinity', b'1e400'])
def test_numbers_json_cannot_carry_are_stored_as_null(api, project, number):
    """NaN and Infinity were stored and served back as invalid JSON."""
    deployment, url = _deployment(api, project)
    reply = api.put(url, data=b'{"deploy_status_code": 0, "result": %s}'
                    % number)
    assert reply.status == 200, reply.text
    done = wait_finished(api, project, deployment['id'])
    assert done['status'] == 'COMPLETE'
    assert done['output_values']['result'] is None


def test_the_rest_signal_cannot_forge_an_oversized_signal(api, project):
    """Only the agent path may store the stand-in of an oversized
    signal; through the REST route the key is dropped."""
    deployment, _url = _deployment(api, project)
    reply = api.post(deployments_url(
        project, f'/{deployment["id"]}/signal'), json={
            'swconfig:oversized_signal': {'received': 9, 'complete': True,
                                          'limit': 1, 'reason': 'forged'},
            'deploy_status_code': 0})
    assert reply.status == 200, reply.text
    done = wait_finished(api, project, deployment['id'])
    assert (done['status'], done['status_reason']) == (
        'COMPLETE', 'Outputs received')


@pytest.fixture
def small_limits(inprocess_stack):
    CONF.set_override('max_signal_size', 4096, group='agent')
    CONF.set_override('max_signal_output_size', 1024, group='agent')
    yield inprocess_stack
    CONF.clear_override('max_signal_size', group='agent')
    CONF.clear_override('max_signal_output_size', group='agent')


def test_limits_are_the_configured_ones(small_limits, project):
    api = small_limits
    at_limit, url = _deployment(api, project)
    envelope = len(json.dumps({'deploy_stdout': '', 'result': 'r'}))
    stdout = 'a' * (4096 - envelope)
    data = json.dumps({'deploy_stdout': stdout, 'result': 'r'})
    assert len(data) == 4096
    assert api.put(url, data=data).status == 200
    done = wait_finished(api, project, at_limit['id'])
    marker = MARKER.format(len(stdout) - (1024 - 31))  # 31 characters
    kept = marker + 'a' * (1024 - len(marker))
    assert len(marker) == 31 and len(kept) == 1024
    assert done['output_values']['deploy_stdout'] == kept
    assert done['output_values']['result'] == 'r'

    over, url = _deployment(api, project)
    error = assert_error(api.put(url, data=data + ' '), 413,
                         'SignalTooLarge')
    assert 'Signal too large: 4097 bytes, over the limit of 4096' in (
        error['message'])
    done = wait_finished(api, project, over['id'])
    assert done['status'] == 'FAILED'
