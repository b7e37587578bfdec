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

"""Server-side derivation: the config an agent really receives.

Heat builds the derived config in its template resource or in the client;
swconfig builds it here, once, for every client. The derived config is the
source config with each input given its ``value`` and the ``deploy_*`` inputs
of the chosen signal transport appended (doc/source/reference/derivation.rst).
For a component (group ``component``) the entry serving the action is
chosen here, not by the agent: the derived config's group is the entry's
``tool`` and its config the entry's ``config``. A deployment with an
``input_key`` also has the input values written into that config
(``input_substitution``).
"""

from typing import Any

from oslo_utils import uuidutils

from swconfig.common import components
from swconfig.engine import input_substitution
from swconfig.transports import base as transport_base

DEPLOY_SERVER_ID = 'deploy_server_id'
DEPLOY_ACTION = 'deploy_action'
DEPLOY_SIGNAL_TRANSPORT = 'deploy_signal_transport'


def _input_values(source: dict, input_values: dict) -> list[dict]:
    inputs = []
    declared = set()
    for item in source['inputs']:
        declared.add(item['name'])
        value = input_values.get(item['name'], item.get('default'))
        inputs.append(dict(item, value=value))
    for name, value in input_values.items():
        if name not in declared:
            inputs.append({'name': name, 'type': 'String', 'value': value})
    return inputs


def derive(source: dict, server: dict, deployment_id: str,
           action_revision: int, action: str, input_values: dict,
           transport: Any, name: str | None = None,
           input_key: str | None = None,
           input_values_validate: str | None = None) -> dict:
    """Values of the new derived config row (a new id every time, because
    agents run each config id at most once). With ``input_key`` (the
    deployment's), every ``{input_key: "<name>"}`` in the config is
    replaced by the value of input ``<name>``, ``input_values_validate``
    deciding what a missing one becomes.

    :raises UndefinedAction: ``source`` is a component with no entry for
        the custom ``action`` (every way of running an action derives
        here first, before anything is written).
    :raises InputValueMissing: ``input_values_validate`` is STRICT and
        the config refers to an input that is not there.
    """
    components.check_action(source, action)
    inputs = _input_values(source, input_values)
    inputs += [
        transport_base.string_input(DEPLOY_SERVER_ID, server['id'],
                                    'ID of the server being deployed to'),
        transport_base.string_input(DEPLOY_ACTION, action,
                                    'Name of the current action being '
                                    'deployed'),
        transport_base.string_input(DEPLOY_SIGNAL_TRANSPORT, transport.name,
                                    'How the server should signal to '
                                    'swconfig with the deployment output '
                                    'values.'),
    ]
    inputs += transport.signal_inputs(server, deployment_id,
                                      action_revision)
    group, config = source['group'] or 'Heat::Ungrouped', source['config']
    entry = (components.entry_for(source, action)
             if components.is_component(source) else None)
    if entry is not None:
        # A lifecycle action no entry serves keeps the component as it
        # is: the deployment completes at once, and an agent skips it.
        group, config = entry['tool'], entry.get('config', '')
    if input_key is not None:
        # The inputs the agent receives, deploy_* ones included; a later
        # one of the same name wins, as in Heat.
        values = {item['name']: item.get('value') for item in inputs}
        config = input_substitution.substitute(
            config, values, input_key,
            strict=input_values_validate == input_substitution.STRICT)
    return {
        'id': uuidutils.generate_uuid(),
        'name': name or source['name'],
        'group': group,
        'config': '' if config is None else config,
        'inputs': inputs,
        'outputs': source['outputs'],
        'options': source['options'] or {},
        'tenant': source['tenant'],
    }


def describe(source: dict, action: str) -> str:
    """What the agent runs for ``action`` of ``source``, in words for the
    user (a trigger's first event; the CLI shows it)."""
    name = source['name'] or source['id']
    if not components.is_component(source):
        return (f'{source["group"] or "Heat::Ungrouped"} config {name} '
                f'again with deploy_action={action} (not a component: the '
                f'config decides what {action} does)')
    entries = (source.get('config') or {}).get('configs') or []
    for index, entry in enumerate(entries):
        if action in entry.get('actions', components.DEFAULT_ACTIONS):
            return (f'{action} of component {name}, its entry '
                    f'configs[{index}] (tool {entry["tool"]})')
    return f'nothing (component {name} has no entry for {action})'


def serves(source: dict, action: str) -> bool:
    """Whether deriving ``source`` for ``action`` gives the agent
    something to run: always, but for a component with no entry for
    ``action``."""
    return (not components.is_component(source)
            or components.entry_for(source, action) is not None)
