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

"""Normalising the inputs/outputs schema of a software config, as Heat does.

Heat stores inputs and outputs in a normal form (every item has a ``type``;
``default`` coerced to that type; ``replace_on_change`` only when true;
``error_output`` always on outputs). Agents and clients depend on that form,
so swconfig produces exactly the same one. The API's JSON schema already
rejected structurally wrong bodies; this module checks the values.
"""

import json
from typing import Any

from swconfig.common import exception

TYPES = ('String', 'Number', 'CommaDelimitedList', 'Json', 'Boolean')
INPUT_KEYS = frozenset(
    ('name', 'description', 'type', 'default', 'replace_on_change', 'value'))
OUTPUT_KEYS = frozenset(('name', 'description', 'type', 'error_output'))


def _invalid(reason: str) -> exception.InvalidParameterValue:
    return exception.InvalidParameterValue(reason=reason)


def to_bool(value: Any, field: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ('true', 'false'):
        return value.lower() == 'true'
    raise _invalid(f'"{field}" must be a boolean, not {value!r}.')


def _to_number(value: Any) -> int | float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        for convert in (int, float):
            try:
                return convert(value)
            except ValueError:
                pass
    raise ValueError(value)


def _to_list(value: Any) -> list:
    if isinstance(value, str):
        return value.split(',') if value else []
    if isinstance(value, list):
        return [str(item) for item in value]
    raise ValueError(value)


def _to_json(value: Any) -> Any:
    if isinstance(value, dict) or isinstance(value, str):
        return value
    if isinstance(value, list):
        return json.dumps(value)
    raise ValueError(value)


def _to_string(value: Any) -> str:
    if isinstance(value, (dict, list)):
        raise ValueError(value)
    return str(value)


_COERCE = {
    'Number': _to_number,
    'Boolean': lambda value: to_bool(value, 'default'),
    'CommaDelimitedList': _to_list,
    'Json': _to_json,
    'String': _to_string,
}
_NULL_DEFAULT = {'Number': 0, 'Boolean': False, 'CommaDelimitedList': [],
                 'Json': {}, 'String': ''}


def coerce_default(value: Any, type_: str) -> Any:
    """Coerce ``default`` to ``type_`` (Heat's rules, incl. the legacy ``""``
    that any type accepts)."""
    if value is None:
        return _NULL_DEFAULT[type_]
    if value == '' and type_ != 'String':
        return ''
    try:
        return _COERCE[type_](value)
    except (ValueError, exception.InvalidParameterValue):
        raise _invalid(f'Default {value!r} is not a valid {type_}.')


def _common(item: Any, allowed: frozenset, kind: str) -> dict:
    if not isinstance(item, dict):
        raise _invalid(f'Each {kind} must be an object.')
    unknown = sorted(set(item) - allowed)
    if unknown:
        raise _invalid(f'Unknown {kind} key(s): {", ".join(unknown)}.')
    if 'name' not in item:
        raise _invalid(f'Every {kind} needs a "name".')
    name = item['name']
    if isinstance(name, (dict, list)):
        raise _invalid(f'The {kind} name must be a string.')
    result = {'name': '' if name is None else _to_string(name)}
    if 'description' in item:
        description = item['description']
        if isinstance(description, (dict, list)):
            raise _invalid(f'The {kind} description must be a string.')
        result['description'] = ('' if description is None
                                  else _to_string(description))
    type_ = item.get('type') or 'String'
    if type_ not in TYPES:
        raise _invalid(f'The {kind} type {type_!r} is not one of '
                       f'{", ".join(TYPES)}.')
    result['type'] = type_
    return result


def normalise_input(item: Any) -> dict:
    result = _common(item, INPUT_KEYS, 'input')
    if 'default' in item:
        if item.get('type') is not None:
            result['default'] = coerce_default(item['default'],
                                               result['type'])
        elif item['default'] is not None:
            result['default'] = item['default']
    if item.get('replace_on_change') is not None and to_bool(
            item['replace_on_change'], 'replace_on_change'):
        result['replace_on_change'] = True
    if 'value' in item:
        result['value'] = item['value']
    return result


def normalise_output(item: Any) -> dict:
    result = _common(item, OUTPUT_KEYS, 'output')
    error_output = item.get('error_output')
    result['error_output'] = (False if error_output is None
                              else to_bool(error_output, 'error_output'))
    return result


def normalise_inputs(items: Any) -> list[dict]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise _invalid('"inputs" must be a list.')
    return [normalise_input(item) for item in items]


def normalise_outputs(items: Any) -> list[dict]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise _invalid('"outputs" must be a list.')
    return [normalise_output(item) for item in items]
