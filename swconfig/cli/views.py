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

"""How the command shows the API's objects: column names in a fixed order,
and nested values (inputs, outputs, options) as indented JSON in a table
but as data for ``-f json``/``-f yaml``."""

from collections.abc import Iterable
import json
from typing import Any

from cliff import columns


class StructuredColumn(columns.FormattableColumn):
    """A dict or list: JSON text in a table, itself for machine formats."""

    def human_readable(self) -> str:
        return json.dumps(self._value, indent=2, sort_keys=True)

    def machine_readable(self) -> Any:
        return self._value


def cell(value: Any) -> Any:
    return StructuredColumn(value) if isinstance(value, dict | list) \
        else value


CONFIG = ('id', 'name', 'group', 'creation_time', 'config', 'inputs',
          'outputs', 'options')
CONFIG_LIST = ('id', 'name', 'group', 'creation_time')
DEPLOYMENT = ('id', 'name', 'server_id', 'action', 'status',
              'status_reason', 'source_config_id', 'signal_transport',
              'triggered_from', 'config_id', 'input_values', 'input_key',
              'input_values_validate', 'output_values', 'creation_time',
              'updated_time')
#: What tells deployments apart and where each came from; the id of the
#: config the service derived (``config_id``) is in ``deployment show``.
DEPLOYMENT_LIST = ('id', 'name', 'server_id', 'action', 'status',
                   'source_config_id', 'signal_transport', 'triggered_from',
                   'creation_time')
EVENT = ('time', 'action', 'old_status', 'new_status', 'reason')
SERVER = ('server_id', 'project_id', 'labels', 'creation_time',
          'metadata_updated_time', 'last_poll_time')
SERVER_GROUP = ('id', 'name', 'selector', 'servers', 'members',
                'project_id', 'creation_time', 'updated_time')
SERVER_GROUP_LIST = ('id', 'name', 'selector', 'creation_time',
                     'updated_time')
METADATA = ('id', 'name', 'group', 'creation_time', 'inputs', 'outputs',
            'options', 'config')


def one(item: dict, names: Iterable[str]) -> tuple[tuple, tuple]:
    """``(columns, values)`` for a ShowOne: the known names first, then
    any key a newer service adds."""
    names = list(names)
    names += sorted(key for key in item if key not in names)
    return tuple(names), tuple(cell(item.get(name)) for name in names)


def many(items: list[dict], names: Iterable[str]) -> tuple[tuple, list]:
    """``(columns, rows)`` for a Lister."""
    names = tuple(names)
    return names, [tuple(cell(item.get(name)) for name in names)
                   for item in items]
