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

"""``signals._decide``: what one transaction does with a batch of claimed
signals, decided in memory before anything is written. Signals of the
same deployment see the effect of the earlier ones of the batch, and a
signal waits while an older one of its deployment is held elsewhere.
"""

from swconfig.common import exception
from tests.unit.engine.claimed_signals import decide
from tests.unit.engine.claimed_signals import deployment
from tests.unit.engine.claimed_signals import signal

DONE_VALUES = {'result': 'ok', 'deploy_stdout': 'out', 'deploy_stderr': '',
               'deploy_status_code': 0}
PROGRESS = {'deploy_status': 'IN_PROGRESS',
            'deploy_status_reason': 'step 1 of 2'}


def test_complete_signal_writes_values_and_bumps_the_version():
    """The update is conditional on the version read and carries the
    interpreted values; the event records the status change."""
    row = deployment()
    batch = decide([signal(7)], [row])
    assert batch.finished == {7: 'COMPLETE'}
    assert batch.results == {7: 'COMPLETE'}
    assert batch.updates == {'d-1': {
        'id': 'd-1', 'expected_version': 3, 'version': 4,
        'values': {'output_values': DONE_VALUES, 'status': 'COMPLETE',
                   'status_reason': 'Outputs received'}}}
    assert batch.before == {'d-1': row}
    assert batch.events == [{
        'deployment_id': 'd-1', 'action': 'CREATE',
        'old_status': 'IN_PROGRESS', 'new_status': 'COMPLETE',
        'reason': 'Outputs received'}]
    assert batch.deferred == []


def test_failing_signal_keeps_earlier_output_values():
    """An error output fails the deployment; values stored before stay."""
    row = deployment(output_values={'kept': 1})
    batch = decide([signal(7, payload={'err': 'disk full'})], [row])
    assert batch.finished == {7: 'FAILED'}
    update = batch.updates['d-1']
    assert update['values']['status'] == 'FAILED'
    assert update['values']['status_reason'] == 'err : disk full'
    assert update['values']['output_values'] == {
        'kept': 1, 'err': 'disk full', 'deploy_stdout': None,
        'deploy_stderr': None, 'deploy_status_code': None}
    assert batch.events[0]['new_status'] == 'FAILED'


def test_decide_does_not_change_the_rows_it_was_given():
    """The rows as read are kept in ``before`` to decide on renders."""
    row = deployment()
    copy = dict(row)
    decide([signal(7), signal(8)], [row])
    assert row == copy


def test_second_signal_of_a_deployment_sees_the_first():
    """Within one batch the second final signal is a duplicate: it must
    see the COMPLETE the first one wrote, not the row as read."""
    batch = decide([signal(7), signal(8, payload={'result': 'again'})],
                   [deployment()])
    assert batch.finished == {7: 'COMPLETE', 8: 'DUPLICATE'}
    assert batch.results == batch.finished
    assert list(batch.updates) == ['d-1']
    update = batch.updates['d-1']
    assert update['expected_version'] == 3
    assert update['version'] == 4
    assert update['values']['output_values'] == DONE_VALUES
    assert [(e['old_status'], e['new_status']) for e in batch.events] == [
        ('IN_PROGRESS', 'COMPLETE'), ('COMPLETE', 'COMPLETE')]
    assert batch.events[1]['reason'] == (
        'Duplicate signal ignored: the action already finished (COMPLETE)')


def test_progress_then_final_signal_make_one_update():
    """Both are applied (version +2) with one write, conditional on the
    version read before the first."""
    batch = decide([signal(7, payload=PROGRESS), signal(8)], [deployment()])
    assert batch.finished == {7: 'PROGRESS', 8: 'COMPLETE'}
    assert batch.updates == {'d-1': {
        'id': 'd-1', 'expected_version': 3, 'version': 5,
        'values': {'output_values': DONE_VALUES, 'status': 'COMPLETE',
                   'status_reason': 'Outputs received'}}}
    assert batch.events == [
        {'deployment_id': 'd-1', 'action': 'CREATE',
         'old_status': 'IN_PROGRESS', 'new_status': 'IN_PROGRESS',
         'reason': 'step 1 of 2'},
        {'deployment_id': 'd-1', 'action': 'CREATE',
         'old_status': 'IN_PROGRESS', 'new_status': 'COMPLETE',
         'reason': 'Outputs received'}]


def test_progress_alone_writes_only_the_reason():
    batch = decide([signal(7, payload=PROGRESS)], [deployment()])
    assert batch.finished == {7: 'PROGRESS'}
    assert batch.updates['d-1']['values'] == {'status_reason': 'step 1 of 2'}
    assert batch.updates['d-1']['version'] == 4


def test_signal_for_a_deleted_deployment_is_gone_without_an_event():
    """There is no deployment to hang an event on."""
    batch = decide([signal(7, deployment_id='d-gone')], [deployment()])
    assert batch.finished == {7: 'GONE'}
    assert batch.results == {7: 'GONE'}
    assert batch.events == []
    assert batch.updates == {}
    assert batch.before == {}


def test_stale_signal_is_recorded_and_not_applied():
    batch = decide([signal(7, action_revision=1)],
                   [deployment(action_revision=2)])
    assert batch.finished == {7: 'STALE'}
    assert batch.updates == {}
    assert batch.events == [{
        'deployment_id': 'd-1', 'action': 'CREATE',
        'old_status': 'IN_PROGRESS', 'new_status': 'IN_PROGRESS',
        'reason': 'Stale signal for action revision 1 ignored (current '
                  'revision 2)'}]


def test_signal_for_a_finished_action_is_a_duplicate():
    batch = decide([signal(7)], [deployment(status='FAILED')])
    assert batch.finished == {7: 'DUPLICATE'}
    assert batch.updates == {}
    assert batch.events[0]['old_status'] == 'FAILED'
    assert batch.events[0]['new_status'] == 'FAILED'


def test_stale_takes_precedence_over_duplicate():
    """A finished action of an older revision: the signal is stale."""
    batch = decide([signal(7, action_revision=1)],
                   [deployment(status='COMPLETE', action_revision=2)])
    assert batch.finished == {7: 'STALE'}


def test_missing_config_is_an_error_and_leaves_the_signal_pending():
    """Not finished: the signal stays in the inbox for a later retry."""
    batch = decide([signal(7)], [deployment(outputs=None, config_id='c-x')])
    assert batch.finished == {}
    assert isinstance(batch.results[7], exception.ConfigNotFound)
    assert 'c-x' in str(batch.results[7])
    assert batch.updates == {}
    assert batch.events == []
    assert batch.deferred == []


def test_older_signal_held_elsewhere_defers_the_deployments_signals():
    """Signal 5 of d-1 is pending but not ours: 7 and 9 must wait for it,
    while d-2's signal goes ahead."""
    batch = decide(
        [signal(7), signal(8, deployment_id='d-2'), signal(9)],
        [deployment(), deployment('d-2')],
        first_pending={'d-1': 5, 'd-2': 8})
    assert batch.deferred == [7, 9]
    assert batch.finished == {8: 'COMPLETE'}
    assert set(batch.results) == {8}
    assert list(batch.updates) == ['d-2']
    assert [e['deployment_id'] for e in batch.events] == ['d-2']


def test_older_signal_claimed_in_this_batch_does_not_defer():
    batch = decide([signal(5, payload=PROGRESS), signal(7)], [deployment()],
                   first_pending={'d-1': 5})
    assert batch.deferred == []
    assert batch.finished == {5: 'PROGRESS', 7: 'COMPLETE'}
    assert batch.updates['d-1']['version'] == 5


def test_the_oldest_pending_signal_itself_is_not_deferred():
    batch = decide([signal(7)], [deployment()], first_pending={'d-1': 7})
    assert batch.deferred == []
    assert batch.finished == {7: 'COMPLETE'}


def test_gone_is_decided_before_deferral():
    """A deleted deployment has nothing to wait for."""
    batch = decide([signal(7, deployment_id='d-gone')], [],
                   first_pending={'d-gone': 5})
    assert batch.deferred == []
    assert batch.finished == {7: 'GONE'}


def test_many_deployments_in_one_batch():
    rows = [deployment(f'd-{n}', version=n) for n in range(1, 6)]
    batch = decide([signal(10 + n, deployment_id=f'd-{n}')
                    for n in range(1, 6)], rows)
    assert batch.finished == {10 + n: 'COMPLETE' for n in range(1, 6)}
    assert {d: (u['expected_version'], u['version'])
            for d, u in batch.updates.items()} == {
        f'd-{n}': (n, n + 1) for n in range(1, 6)}
    assert len(batch.events) == 5
