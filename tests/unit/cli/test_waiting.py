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

"""What ``--wait`` writes on stderr, off a terminal."""

import io

from swconfig.cli import waiting

STARTED = {'action': 'BACKUP', 'old_status': None,
           'new_status': 'IN_PROGRESS', 'reason': 'Deploy data available'}
NOTE = {'action': 'BACKUP', 'old_status': 'IN_PROGRESS',
        'new_status': 'IN_PROGRESS', 'reason': 'copied 3 of 5 tables'}
DONE = {'action': 'BACKUP', 'old_status': 'IN_PROGRESS',
        'new_status': 'COMPLETE', 'reason': 'Outputs received'}


def test_an_event_in_a_few_words():
    assert waiting.describe_event(None) == ''
    assert waiting.describe_event(STARTED) == (
        'BACKUP IN_PROGRESS: Deploy data available')
    # A progress note keeps the status: only its text counts.
    assert waiting.describe_event(NOTE) == 'copied 3 of 5 tables'
    assert waiting.describe_event(dict(DONE, reason=None)) == (
        'BACKUP COMPLETE')


def test_each_new_event_gets_one_plain_line():
    stream = io.StringIO()
    progress = waiting.Progress(stream, 'd-1')
    assert not progress.tty
    progress.update('IN_PROGRESS', [STARTED])
    progress.update('IN_PROGRESS', [STARTED])  # nothing new: no line
    # Two events between two looks: both are shown, in order.
    progress.update('COMPLETE', [STARTED, NOTE, DONE])
    progress.finish('COMPLETE after 0s: Outputs received')
    assert stream.getvalue().splitlines() == [
        'd-1 IN_PROGRESS 0s BACKUP IN_PROGRESS: Deploy data available',
        'd-1 IN_PROGRESS 0s copied 3 of 5 tables',
        'd-1 COMPLETE 0s BACKUP COMPLETE: Outputs received',
        'COMPLETE after 0s: Outputs received',
    ]


def test_a_quiet_wait_still_reports():
    stream = io.StringIO()
    progress = waiting.Progress(stream, 'd-2')
    progress.update('IN_PROGRESS', [STARTED])
    progress.started -= 95
    progress._last_line -= waiting.QUIET_LINE_SECONDS
    progress.update('IN_PROGRESS', [STARTED])
    assert stream.getvalue().splitlines()[-1] == (
        'd-2 IN_PROGRESS 1m35s BACKUP IN_PROGRESS: Deploy data available')
