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

"""Software components (group ``component``, Heat's
``OS::Heat::SoftwareComponent``): one config per lifecycle or custom
action.

The one check of a component's entries, for both the config create and
the template check (``POST /validate``), the choice of the entry that
serves an action, for the engine's derivation, and the check that an
action asked of a component is one it defines.
"""

import difflib
import re
from typing import Any

from swconfig.common import exception
from swconfig.common import states

GROUP = 'component'
#: An entry without ``actions`` serves these (Heat's default).
DEFAULT_ACTIONS = ('CREATE', 'UPDATE')


def check(name: str | None, config: Any) -> None:
    """Raise InvalidParameterValue unless ``config`` is a valid component
    config, ``{"configs": [{"actions": [...], "config": "...", "tool":
    "..."}, ...]}``: at least one entry, ``tool`` required, each action in
    at most one entry (Heat's message)."""
    entries = config.get('configs') if isinstance(config, dict) else None
    if not isinstance(entries, list) or not entries:
        raise exception.InvalidParameterValue(
            reason='A component config must be {"configs": [...]} with at '
                   'least one entry.')
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise exception.InvalidParameterValue(
                reason=f'configs[{index}] of a component must be an '
                       f'object.')
        tool = entry.get('tool')
        if not isinstance(tool, str) or not tool:
            raise exception.InvalidParameterValue(
                reason=f'configs[{index}] of a component needs "tool", '
                       f'the hook that runs it.')
        if 'config' in entry and not isinstance(entry['config'], str):
            raise exception.InvalidParameterValue(
                reason=f'configs[{index}].config of a component must be '
                       f'a string.')
        actions = entry.get('actions', list(DEFAULT_ACTIONS))
        if (not isinstance(actions, list) or not actions
                or not all(isinstance(a, str) and a for a in actions)):
            raise exception.InvalidParameterValue(
                reason=f'configs[{index}].actions of a component must be '
                       f'a list of at least one action name.')
        for action in actions:
            if not re.match(states.ACTION_NAME_PATTERN, action):
                raise exception.InvalidParameterValue(
                    reason=f'configs[{index}].actions of a component: '
                           f'"{action}" is not an action name (letters, '
                           f'digits and "_", not starting with a digit), '
                           f'so no deployment could run it.')
            if action in seen:
                raise exception.InvalidParameterValue(
                    reason=f'Defining more than one configuration for the '
                           f'same action in SoftwareComponent "{name}" is '
                           f'not allowed.')
            seen.add(action)


def is_component(config: dict) -> bool:
    return config.get('group') == GROUP


def entry_for(config: dict, action: str) -> dict | None:
    """The entry of component ``config`` that serves ``action``, or None
    when none does."""
    for entry in (config.get('config') or {}).get('configs') or []:
        if action in entry.get('actions', DEFAULT_ACTIONS):
            return entry
    return None


def defined_actions(config: dict) -> list[str]:
    """The actions the entries of component ``config`` serve, in the
    order they are listed."""
    defined: list[str] = []
    for entry in (config.get('config') or {}).get('configs') or []:
        for action in entry.get('actions', DEFAULT_ACTIONS):
            if action not in defined:
                defined.append(action)
    return defined


def _hint(action: str, known: list[str]) -> str:
    """`` (did you mean X?)`` for a name that differs from a known one
    only by case (names compare case-sensitively, as in Heat) or by a
    small typo; empty when none is close."""
    for name in known:
        if name.upper() == action.upper():
            return f' (did you mean {name}?)'
    close = difflib.get_close_matches(action, known, n=1, cutoff=0.75)
    return f' (did you mean {close[0]}?)' if close else ''


def check_action(config: dict, action: str) -> None:
    """Raise UndefinedAction (400) for a custom action that component
    ``config`` has no entry for.

    Without this check a typo such as ``BAKUP`` or ``backup`` would
    "complete" with nothing to run, which looks like success. Heat's
    lifecycle actions stay accepted without an entry (they run nothing,
    Heat's behaviour); a config that is not a component accepts any
    action (its script reads ``deploy_action``).
    """
    if not is_component(config) or action in states.LIFECYCLE_ACTIONS:
        return
    defined = defined_actions(config)
    if action in defined:
        return
    known = defined + [name for name in states.LIFECYCLE_ACTIONS
                       if name not in defined]
    raise exception.UndefinedAction(
        component=config.get('name') or config.get('id'), action=action,
        hint=_hint(action, known), defined=', '.join(defined),
        lifecycle=', '.join(states.LIFECYCLE_ACTIONS))


def unserved_reason(config: dict, action: str) -> str:
    """The status reason of an action no entry serves."""
    return (f'No configuration for action {action} in component '
            f'{config.get("name")}; nothing to run.')
