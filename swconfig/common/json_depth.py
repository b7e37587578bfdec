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

"""How deeply a JSON document from a client may nest."""

from typing import Any

from swconfig.common import exception
from swconfig.conf import CONF


def check_depth(document: Any) -> None:
    """Refuse bodies nested deeper than ``[api] max_json_depth``: deep
    nesting only costs memory and stack in every later step."""
    limit = CONF.api.max_json_depth
    level = [document] if isinstance(document, (dict, list)) else []
    for _depth in range(limit):
        level = [child for value in level
                 for child in (value.values() if isinstance(value, dict)
                               else value)
                 if isinstance(child, (dict, list))]
        if not level:
            return
    raise too_deep()


def too_deep() -> exception.RequestLimitExceeded:
    """The 400 for a document nested deeper than the limit, whether the
    check above or the parser (running out of stack) found it."""
    return exception.RequestLimitExceeded(
        detail=f'JSON body is nested deeper than '
               f'{CONF.api.max_json_depth} levels.')
