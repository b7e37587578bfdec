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

"""Which input values a config does not take: Heat passes an undeclared
input on to the agent as an extra one, so a typo (``nme`` for ``name``)
goes through silently. The service answers the check
(``POST .../software_configs/{id}/input_check``); the ``swconfig``
command warns of it, or refuses it with ``--strict``, before it creates
anything.
"""

import collections
from collections.abc import Iterable
import difflib
from typing import Any

#: Inputs the engine adds to every derived config (``deploy_server_id``,
#: ``deploy_signal_id``, ...): never undeclared.
ENGINE_PREFIX = 'deploy_'


def reference(node: dict, input_key: str) -> str | None:
    """The input name ``node`` stands for, if it is a reference: exactly
    one key, ``input_key``, with a string value (any other map is data
    and is walked). The engine's substitution and this check share it."""
    if len(node) != 1:
        return None
    key, name = next(iter(node.items()))
    return name if key == input_key and isinstance(name, str) else None


def referenced(document: Any, input_key: str) -> list[str]:
    """The input names a structured config refers to as
    ``{input_key: NAME}`` (``{"get_input": "port"}``), in document
    order."""
    found: list[str] = []
    pending = collections.deque([document])
    while pending:
        node = pending.popleft()
        if isinstance(node, dict):
            name = reference(node, input_key)
            if name is None:
                pending.extend(node.values())
            else:
                found.append(name)
        elif isinstance(node, list):
            pending.extend(node)
    return list(dict.fromkeys(found))


def check(config: dict, names: Iterable[str],
          input_key: str | None = None) -> dict:
    """The check of ``names`` against ``config`` (its representation):
    the inputs it takes (declared, then referenced through
    ``input_key``), the names it does not take, each with the closest
    one it takes, and a sentence saying so (None when it takes them
    all)."""
    declared = [item['name'] for item in config.get('inputs') or []]
    if input_key:
        declared += [name for name in referenced(config.get('config'),
                                                 input_key)
                     if name not in declared]
    unknown = [{'name': name,
                'closest': next(iter(difflib.get_close_matches(
                    name, declared, n=1)), None)}
               for name in dict.fromkeys(names)
               if name not in declared and not name.startswith(
                   ENGINE_PREFIX)]
    return {'inputs': declared, 'unknown': unknown,
            'message': _sentence(config, declared, unknown, input_key)}


def _sentence(config: dict, declared: list[str], unknown: list[dict],
              input_key: str | None) -> str | None:
    if not unknown:
        return None
    hints = [f'{item["name"]} (did you mean {item["closest"]}?)'
             if item['closest'] else item['name'] for item in unknown]
    verb = 'declares or refers to' if input_key else 'declares'
    takes = (f'it {verb} {", ".join(declared)}' if declared
             else f'it {verb} no inputs')
    return (f'Config {config.get("name") or config["id"]} has no input '
            f'{", ".join(hints)}; {takes}.')
