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


"""What the derivation tests derive from: a source config row and a
signal transport of the tests' own."""

from typing import Any

from swconfig.transports import base as transport_base


def source_config(**overrides: Any) -> dict:
    """A source config row with inputs of three types."""
    row = {
        'id': 'src-1',
        'name': 'source',
        'group': 'script',
        'config': '#!/bin/sh\n',
        'inputs': [
            {'name': 'foo', 'type': 'String', 'description': 'Foo',
             'default': 'foo-default', 'replace_on_change': True},
            {'name': 'bar', 'type': 'Number', 'default': None},
            {'name': 'baz', 'type': 'Json', 'default': {'k': 'v'}},
        ],
        'outputs': [{'name': 'result', 'type': 'String',
                     'error_output': False}],
        'options': {'opt': 1},
        'tenant': 'project-1',
    }
    row.update(overrides)
    return row


class RecordingTransport(transport_base.SignalTransport):
    """A transport of the test's own: its inputs name what it was given."""

    name = 'RECORDING'

    def signal_inputs(self, server, deployment_id, action_revision):
        return [transport_base.string_input(
            'deploy_recorded', f'{server["id"]}/{deployment_id}/'
                               f'{action_revision}', 'recorded')]
