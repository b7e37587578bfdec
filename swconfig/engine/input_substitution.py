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

"""Input substitution in structured configs (Heat's StructuredDeployment).

Some tools read their configuration as one JSON document and know nothing
of inputs (cfn-init's metadata, os-apply-config's data): the values have
to be written into the document itself. A deployment with an
``input_key`` asks for that: in the derived config every map with that
one key and a string value, ``{"get_input": "port"}``, is replaced by the
value of input ``port`` among the derived config's inputs (the declared
ones, the extra ``input_values`` and the ``deploy_*`` inputs). Heat does
this in its template engine; swconfig does it while deriving, so every
client gets it and every later action derives with the same rule
(doc/source/reference/derivation.rst).
"""

from typing import Any

from swconfig.common import deployment_request
from swconfig.common import exception
from swconfig.common import input_check

LAX = deployment_request.LAX
STRICT = deployment_request.STRICT
MODES = deployment_request.INPUT_VALUES_VALIDATE
MAX_INPUT_KEY_LENGTH = 255


def settings(input_key: str | None,
             input_values_validate: str | None) -> tuple[str | None,
                                                         str | None]:
    """The substitution a new server-side deployment stores: ``(None,
    None)`` without an ``input_key``, else the key and its mode (LAX
    unless given).

    :raises InvalidParameterValue: a mode without a key, or a value the
        request schema would have refused (a caller over RPC).
    """
    if input_key is None:
        if input_values_validate is not None:
            raise exception.InvalidParameterValue(
                reason='"input_values_validate" applies only with '
                       '"input_key" (the key whose maps are replaced by '
                       'input values); give both, or neither.')
        return None, None
    if (not isinstance(input_key, str)
            or not 0 < len(input_key) <= MAX_INPUT_KEY_LENGTH):
        raise exception.InvalidParameterValue(
            reason=f'"input_key" must be a string of 1 to '
                   f'{MAX_INPUT_KEY_LENGTH} characters.')
    mode = LAX if input_values_validate is None else input_values_validate
    if mode not in MODES:
        raise exception.InvalidParameterValue(
            reason=f'"input_values_validate" must be {" or ".join(MODES)}, '
                   f'not {mode!r}.')
    return input_key, mode


def _where(path: tuple) -> str:
    return 'config' + ''.join(
        f'[{part}]' if isinstance(part, int) else f'.{part}'
        for part in path)


def substitute(config: Any, values: dict[str, Any], input_key: str,
               strict: bool) -> Any:
    """``config`` with every reference to an input replaced by its value
    in ``values``; maps and lists are walked, anything else (a string
    config such as a script included) is returned as it is. The value
    put in is not walked again. Nothing given is changed.

    :raises InputValueMissing: ``strict`` and a referenced name is not in
        ``values`` (a name that is there with the value null is not
        missing: it substitutes null, as in Heat).
    """

    def walk(node: Any, path: tuple) -> Any:
        if isinstance(node, dict):
            name = input_check.reference(node, input_key)
            if name is None:
                return {key: walk(child, path + (key,))
                        for key, child in node.items()}
            if strict and name not in values:
                raise exception.InputValueMissing(
                    name=name, where=_where(path), input_key=input_key)
            return values.get(name)
        if isinstance(node, list):
            return [walk(child, path + (index,))
                    for index, child in enumerate(node)]
        return node

    return walk(config, ())
