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

"""The command's plain messages: a config file that is not UTF-8, a
deployment with no outputs to show, and what Ctrl-C during a wait
says."""

import io

import pytest

from swconfig.cli import configs
from swconfig.cli import deployments
from swconfig.cli import waiting
from swconfig.client import rest as client


def test_a_file_that_is_not_utf8_is_named_with_its_line(tmp_path):
    path = tmp_path / 'latin1.sh'
    # Past the decoder's first buffer, so its offset would mislead.
    path.write_bytes(b'#!/bin/sh\n' + b'echo ok\n' * 2000
                     + b'echo caf\xe9\n')
    with pytest.raises(client.SwconfigError) as error:
        configs._read(str(path))
    assert str(error.value) == (
        f'{path} is not UTF-8 text (line 2002 is not valid UTF-8); save it '
        'as UTF-8.')


@pytest.mark.parametrize('deployment, message', [
    ({'id': 'd-1', 'action': 'CREATE', 'status': 'IN_PROGRESS',
      'status_reason': 'Deploy data available'},
     'Deployment d-1 has no outputs (CREATE IN_PROGRESS: Deploy data '
     'available).'),
    ({'id': 'd-2', 'action': 'CREATE', 'status': 'COMPLETE',
      'status_reason': 'Not waiting for outputs signal'},
     'Deployment d-2 has no outputs (CREATE COMPLETE: Not waiting for '
     'outputs signal).'),
    ({'id': 'd-3', 'action': None, 'status': None, 'status_reason': None},
     'Deployment d-3 has no outputs.'),
])
def test_no_outputs_says_why(deployment, message):
    assert deployments._no_outputs(deployment) == message


class _Interrupted:
    """A client whose long poll the user interrupts."""

    def deployment_events(self, deployment_id):
        return []

    def deployment_show(self, deployment_id, wait=None):
        raise KeyboardInterrupt


def test_ctrl_c_names_the_command_that_follows_again():
    stream = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        waiting.wait(_Interrupted(), {'id': 'd-1', 'status': 'IN_PROGRESS'},
                     stream)
    assert stream.getvalue().splitlines()[-1] == (
        'Stopped waiting; deployment d-1 goes on: swconfig deployment wait '
        'd-1 follows it again, swconfig deployment cancel d-1 stops it.')
