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

"""What ``deployment signal`` sends, and how it tells from the event a
signal made whether it counted."""

import argparse

import pytest

from swconfig.cli import signalling


def _args(**given):
    values = {'outputs': [], 'status_code': None, 'stdout': None,
              'stderr': None, 'progress': None}
    values.update(given)
    return argparse.Namespace(**values)


def test_a_result_has_the_keys_heat_agents_send():
    body = signalling.payload(_args(outputs=[('greeting', 'hi')],
                                    status_code=0, stdout='out',
                                    stderr=''))
    assert body == {'greeting': 'hi', 'deploy_status_code': 0,
                    'deploy_stdout': 'out', 'deploy_stderr': ''}
    # Nothing given: an empty result, as an agent with nothing to say.
    assert signalling.payload(_args()) == {}


def test_progress_is_an_in_progress_status_with_a_reason():
    assert signalling.payload(_args(progress='half way')) == {
        'deploy_status': 'IN_PROGRESS', 'deploy_status_reason': 'half way'}


@pytest.mark.parametrize('text, message', [
    ('novalue', 'is not NAME=VALUE'),
    ('=x', 'is not NAME=VALUE'),
    ('deploy_stdout=x', 'deploy_stdout is not an output: use --stdout'),
])
def test_outputs_are_name_value_pairs_of_real_outputs(text, message):
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        signalling._output(text)


def test_an_output_value_keeps_its_equals_signs():
    assert signalling._output('url=http://x/?a=b') == ('url', 'http://x/?a=b')


RESULT = {'deploy_status_code': 0}
PROGRESS = {'deploy_status': 'IN_PROGRESS',
            'deploy_status_reason': 'half way'}


@pytest.mark.parametrize('body, event, counted', [
    (RESULT, {'old_status': 'IN_PROGRESS', 'new_status': 'COMPLETE',
              'reason': 'Outputs received'}, True),
    (RESULT, {'old_status': 'IN_PROGRESS', 'new_status': 'FAILED',
              'reason': 'deploy_status_code : ...'}, True),
    (RESULT, {'old_status': 'COMPLETE', 'new_status': 'COMPLETE',
              'reason': 'Duplicate signal ignored: ...'}, False),
    (PROGRESS, {'old_status': 'IN_PROGRESS', 'new_status': 'IN_PROGRESS',
                'reason': 'half way'}, True),
    # A stale signal while a newer action runs: same status, its reason.
    (PROGRESS, {'old_status': 'IN_PROGRESS', 'new_status': 'IN_PROGRESS',
                'reason': 'Stale signal for action revision 1 ignored '
                          '(current revision 2)'}, False),
    (PROGRESS, {'old_status': 'FAILED', 'new_status': 'FAILED',
                'reason': 'half way'}, False),
])
def test_whether_the_signal_counted(body, event, counted):
    assert signalling.applied(event, body) is counted
