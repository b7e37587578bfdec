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

"""The command's plain messages: what Ctrl-C during a wait says."""

import io

import pytest

from swconfig.cli import waiting


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
