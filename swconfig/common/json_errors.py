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


"""What a client whose JSON text cannot be parsed is told.

Python's parser words its failures for programmers: "'utf-8' codec can't
decode byte 0xff in position 15: invalid start byte", "maximum recursion
depth exceeded while decoding a JSON array from a unicode string". The
API answers plain sentences instead, the same for request bodies and
agent signals.
"""

from swconfig.common import exception
from swconfig.common import json_depth


def unparsable(exc: Exception, what: str) -> exception.SwconfigException:
    """The 400 for ``exc``, raised by ``json.loads`` on ``what`` (e.g.
    "The request body")."""
    if isinstance(exc, RecursionError):
        return json_depth.too_deep()
    if isinstance(exc, UnicodeDecodeError):
        return exception.InvalidParameterValue(
            reason=f'{what} is not valid JSON: JSON text must be UTF-8, '
                   f'and byte {exc.start + 1} is not part of a UTF-8 '
                   f'character.')
    return exception.InvalidParameterValue(
        reason=f'{what} is not valid JSON: {exc}')
