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

"""``signals.interpret``: Heat's rules for turning a signal into deployment
values (doc/source/reference/signals.rst), plus swconfig's progress signals.
"""

import copy

import pytest

from swconfig.engine import signals

OUTPUTS = [
    {'name': 'result', 'type': 'String', 'error_output': False},
    {'name': 'err', 'type': 'String', 'error_output': True},
    {'name': 'err2', 'type': 'String', 'error_output': True},
]
NULL_DEPLOY = {'deploy_stdout': None, 'deploy_stderr': None,
               'deploy_status_code': None}
SUCCESS = 'Outputs received'


def code_reason(value):
    return ('deploy_status_code : Deployment exited with non-zero status '
            f'code: {value}')


# -- deploy_status_code (step 5) ----------------------------------------------

@pytest.mark.parametrize('details', [
    {'deploy_status_code': 0},
    {'deploy_status_code': '0'},
    {'deploy_status_code': None},
    {'deploy_status_code': ''},
    {'deploy_status_code': False},
    {'deploy_status_code': 0.0},
    {},
], ids=['0', '"0"', 'null', '""', 'false', '0.0', 'missing'])
def test_status_codes_counting_as_success(details):
    values, reason = signals.interpret(details, OUTPUTS, None)
    assert values == {'output_values': dict(NULL_DEPLOY, **details),
                      'status': 'COMPLETE', 'status_reason': SUCCESS}
    assert reason == SUCCESS


@pytest.mark.parametrize('code, shown', [
    (1, '1'), (-1, '-1'), (3, '3'), ('00', '00'), ('1', '1'),
    (True, 'True'), ('error', 'error'), (255, '255'),
], ids=['1', '-1', '3', '"00"', '"1"', 'true', '"error"', '255'])
def test_status_codes_counting_as_failure(code, shown):
    values, reason = signals.interpret({'deploy_status_code': code},
                                       OUTPUTS, None)
    assert values['status'] == 'FAILED'
    assert values['status_reason'] == code_reason(shown)
    assert reason == values['status_reason']
    assert values['output_values'] == dict(NULL_DEPLOY,
                                           deploy_status_code=code)


# -- declared outputs and error_output (step 6) -------------------------------

@pytest.mark.parametrize('value, shown', [
    ('disk full', 'disk full'), (None, 'None'), ('', ''), (False, 'False'),
    (0, '0'), ({'a': 1}, "{'a': 1}"),
], ids=['text', 'null', 'empty', 'false', '0', 'object'])
def test_an_error_output_fails_by_its_presence(value, shown):
    values, reason = signals.interpret({'err': value, 'result': 'r'},
                                       OUTPUTS, None)
    assert values['status'] == 'FAILED'
    assert values['status_reason'] == f'err : {shown}'
    assert reason == values['status_reason']
    assert values['output_values'] == dict(NULL_DEPLOY, err=value,
                                           result='r')


def test_an_absent_error_output_does_not_fail():
    values, _ = signals.interpret({'result': None}, OUTPUTS, None)
    assert values['status'] == 'COMPLETE'
    assert values['output_values'] == dict(NULL_DEPLOY, result=None)


def test_error_output_false_never_fails():
    outputs = [{'name': 'result', 'error_output': False}]
    values, _ = signals.interpret({'result': 'x'}, outputs, None)
    assert values['status'] == 'COMPLETE'


def test_failure_reasons_order_status_code_then_declaration_order():
    details = {'err2': 'second', 'err': 'first', 'deploy_status_code': 5,
               'result': 'r'}
    values, reason = signals.interpret(details, OUTPUTS, None)
    assert reason == (code_reason(5) + ', err : first, err2 : second')
    assert values['status_reason'] == reason
    # The same outputs declared the other way round change the order.
    values, reason = signals.interpret(details, list(reversed(OUTPUTS)),
                                       None)
    assert reason == (code_reason(5) + ', err2 : second, err : first')


def test_only_error_outputs_fail_with_status_code_zero():
    values, reason = signals.interpret(
        {'deploy_status_code': 0, 'err2': 'x'}, OUTPUTS, None)
    assert (values['status'], reason) == ('FAILED', 'err2 : x')


# -- what is stored (steps 4, 7, 8) -------------------------------------------

def test_undeclared_keys_are_dropped():
    values, _ = signals.interpret(
        {'result': 'r', 'undeclared': 1, 'deploy_status': 'COMPLETE',
         'deploy_status_reason': 'x', 'deploy_signal_id': 'y'},
        OUTPUTS, None)
    assert values['output_values'] == dict(NULL_DEPLOY, result='r')


def test_deploy_keys_are_always_set_and_overwritten():
    existing = {'deploy_stdout': 'old out', 'deploy_stderr': 'old err',
                'deploy_status_code': 7, 'result': 'kept', 'extra': 1}
    values, _ = signals.interpret({'deploy_stderr': 'new err'}, OUTPUTS,
                                  existing)
    assert values['output_values'] == {
        'deploy_stdout': None, 'deploy_stderr': 'new err',
        'deploy_status_code': None, 'result': 'kept', 'extra': 1}


def test_existing_output_values_are_merged_not_mutated():
    existing = {'result': 'old', 'err': 'earlier', 'other': [1]}
    before = copy.deepcopy(existing)
    values, _ = signals.interpret({'result': 'new', 'deploy_stdout': 'o'},
                                  OUTPUTS, existing)
    assert values['output_values'] == dict(
        NULL_DEPLOY, result='new', err='earlier', other=[1],
        deploy_stdout='o')
    # An error output kept from before does not fail this signal.
    assert values['status'] == 'COMPLETE'
    assert existing == before


@pytest.mark.parametrize('details', [None, [], ['x'], 'text', 3],
                         ids=['null', 'empty list', 'list', 'string', 'int'])
def test_details_that_are_not_an_object_count_as_empty(details):
    values, reason = signals.interpret(details, OUTPUTS, {'result': 'r'})
    assert values == {'output_values': dict(NULL_DEPLOY, result='r'),
                      'status': 'COMPLETE', 'status_reason': SUCCESS}
    assert reason == SUCCESS


def test_no_declared_outputs():
    values, _ = signals.interpret({'result': 'r', 'deploy_status_code': 0},
                                  [], None)
    assert values['output_values'] == dict(NULL_DEPLOY,
                                           deploy_status_code=0)


# -- progress (swconfig) ------------------------------------------------------

def test_progress_changes_only_the_reason():
    values, reason = signals.interpret(
        {'deploy_status': 'IN_PROGRESS', 'deploy_status_reason': 'step 2/5',
         'result': 'ignored', 'deploy_status_code': 1}, OUTPUTS,
        {'result': 'before'})
    assert values == {'status_reason': 'step 2/5'}
    assert reason == 'step 2/5'


@pytest.mark.parametrize('message', [None, '', 0])
def test_progress_without_a_message(message):
    details = {'deploy_status': 'IN_PROGRESS'}
    if message is not None:
        details['deploy_status_reason'] = message
    values, reason = signals.interpret(details, OUTPUTS, None)
    assert values == {'status_reason': 'Deployment in progress'}
    assert reason == 'Deployment in progress'


def test_progress_reason_is_text():
    values, reason = signals.interpret(
        {'deploy_status': 'IN_PROGRESS', 'deploy_status_reason': 42},
        OUTPUTS, None)
    assert values == {'status_reason': '42'} and reason == '42'


@pytest.mark.parametrize('given, stored', [
    ({'step': 2, 'of': 5, 'file': 'ü.tar'},
     '{"file": "ü.tar", "of": 5, "step": 2}'),
    (['copy', None, True], '["copy", null, true]'),
    (True, 'true'),
    (2.5, '2.5'),
])
def test_a_progress_reason_that_is_not_text_is_stored_as_json(given,
                                                               stored):
    """As the agent sent it, never a Python repr ({'step': 2}, None)."""
    values, reason = signals.interpret(
        {'deploy_status': 'IN_PROGRESS', 'deploy_status_reason': given},
        OUTPUTS, None)
    assert values == {'status_reason': stored} and reason == stored


@pytest.mark.parametrize('status', ['COMPLETE', 'FAILED', 'in_progress', ''])
def test_other_deploy_status_values_are_ordinary_signals(status):
    values, _ = signals.interpret({'deploy_status': status}, OUTPUTS, None)
    assert values['status'] == 'COMPLETE'
    assert values['output_values'] == NULL_DEPLOY
