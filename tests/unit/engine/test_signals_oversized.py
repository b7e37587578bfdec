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

"""The API's stand-in for a signal over ``[agent] max_signal_size``: the
engine applies it like any signal, as a failure whose reason names the
size and the limit, exactly once and in order with the real signals."""

from swconfig.common import states
from swconfig.engine import signals
from tests.unit.engine.claimed_signals import decide
from tests.unit.engine.claimed_signals import deployment
from tests.unit.engine.claimed_signals import signal

STAND_IN = states.oversized_signal(5242880, True, 4194304)
REASON = ('Signal too large: 5242880 bytes, over the limit of 4194304 '
          'bytes ([agent] max_signal_size); its outputs were not recorded')


def test_interpret_fails_and_keeps_the_outputs_as_they_were():
    values, reason = signals.interpret(STAND_IN, [{'name': 'result'}],
                                       {'result': 'earlier'})
    assert values == {'status': 'FAILED', 'status_reason': REASON}
    assert reason == REASON


def test_stand_in_fails_the_deployment_with_an_event():
    row = deployment(output_values={'kept': 1})
    batch = decide([signal(7, payload=STAND_IN)], [row])
    assert batch.finished == {7: 'FAILED'}
    assert batch.updates['d-1']['values'] == {'status': 'FAILED',
                                              'status_reason': REASON}
    assert batch.events == [{
        'deployment_id': 'd-1', 'action': 'CREATE',
        'old_status': 'IN_PROGRESS', 'new_status': 'FAILED',
        'reason': REASON}]


def test_stand_in_fails_even_without_the_config():
    """The outputs are not needed to fail: a missing config does not hold
    the stand-in back."""
    batch = decide([signal(7, payload=STAND_IN)], [deployment(outputs=None)])
    assert batch.finished == {7: 'FAILED'}


def test_after_a_real_signal_the_stand_in_is_a_recorded_duplicate():
    batch = decide([signal(7), signal(8, payload=STAND_IN)], [deployment()])
    assert batch.finished == {7: 'COMPLETE', 8: 'DUPLICATE'}
    assert batch.updates['d-1']['values']['status'] == 'COMPLETE'
    assert batch.events[1]['reason'] == (
        'Duplicate signal ignored: the action already finished '
        f'(COMPLETE): {REASON}')


def test_stale_stand_in_names_its_size_too():
    batch = decide([signal(7, payload=STAND_IN, action_revision=1)],
                   [deployment(action_revision=2)])
    assert batch.finished == {7: 'STALE'}
    assert batch.updates == {}
    assert batch.events[0]['reason'].endswith(REASON)
    assert batch.events[0]['reason'].startswith('Stale signal for action '
                                                'revision 1 ignored')
