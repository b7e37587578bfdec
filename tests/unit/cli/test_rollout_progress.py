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

"""``swconfig rollout create --wait``: the progress it reports, plain
lines when not on a terminal (one per change), a bar redrawn in place on
one."""

import io

from swconfig.cli import rollouts


def rollout(status='IN_PROGRESS', finished=None, **counts):
    targets = {'NOT_STARTED': 0, 'IN_PROGRESS': 0, 'COMPLETE': 0,
               'FAILED': 0, 'CANCELLED': 0, **counts}
    return {'id': 'r1', 'status': status, 'targets': targets,
            'finished_time': finished}


class Answers:
    """What successive GETs of the rollout answer."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.waits = []

    def rollout_show(self, rollout_id, wait=None):
        self.waits.append(wait)
        return self.answers.pop(0)


def test_progress_line_counts_and_estimates():
    line = rollouts.progress(rollout(COMPLETE=10, FAILED=2,
                                     IN_PROGRESS=3, NOT_STARTED=15),
                             24.0, bar=False)
    assert line == ('IN_PROGRESS 10/30 done, 2 failed, 3 in progress, '
                    '15 not started, 24 s elapsed, ETA 36 s')


def test_progress_bar_fills_with_finished_targets():
    line = rollouts.progress(rollout(COMPLETE=15, NOT_STARTED=15), 1.0,
                             bar=True)
    assert line.startswith('IN_PROGRESS [' + '#' * 15 + '.' * 15 + '] ')


def test_plain_lines_only_when_something_changed():
    first = rollout(IN_PROGRESS=2, NOT_STARTED=2)
    client = Answers(rollout(IN_PROGRESS=2, NOT_STARTED=2),
                     rollout(COMPLETE=2, IN_PROGRESS=2),
                     rollout('COMPLETE', 'now', COMPLETE=4))
    out = io.StringIO()
    ended = rollouts.follow(client, first, out, tty=False)
    assert ended['status'] == 'COMPLETE'
    lines = out.getvalue().splitlines()
    assert [line.split(' s elapsed')[0] for line in lines] == [
        'IN_PROGRESS 0/4 done, 0 failed, 2 in progress, 2 not started, 0',
        'IN_PROGRESS 2/4 done, 0 failed, 2 in progress, 0 not started, 0',
        'COMPLETE 4/4 done, 0 failed, 0 in progress, 0 not started, 0']
    assert client.waits == [rollouts.POLL_SECONDS] * 3


def test_a_terminal_gets_one_line_redrawn():
    client = Answers(rollout('FAILED', 'now', FAILED=1, NOT_STARTED=1))
    out = io.StringIO()
    rollouts.follow(client, rollout(IN_PROGRESS=1, NOT_STARTED=1), out,
                    tty=True)
    text = out.getvalue()
    assert text.count('\r') == 2 and text.endswith('\n')
    assert '\n' not in text[:-1]
