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

"""Parsing query parameters (with Heat's messages for bad values) and
the ``Idempotency-Key`` header."""

import re

import pecan

from swconfig.api.openapi import spec
from swconfig.common import exception

# Larger limits mean "everything"; the cap keeps the value inside every
# database's LIMIT range.
MAX_LIMIT = 2 ** 31 - 1
#: The request header that makes a creation or a trigger safe to retry.
IDEMPOTENCY_KEY = 'Idempotency-Key'
MAX_KEY_LENGTH = 255


def non_negative_int(name: str, value: str | None) -> int | None:
    """Digits only (``int`` would also take " 5", "+5" and "5_0", which
    the API reference does not describe); empty is absent, as in Heat."""
    if value is None or value == '':
        return None
    if value.startswith('-') and value[1:].isascii() and value[1:].isdigit():
        number = -int(value[1:])
    elif value.isascii() and value.isdigit():
        number = int(value)
    else:
        raise exception.InvalidParameterValue(
            reason=f"Only integer is acceptable by '{name}'.")
    if number < 0:
        raise exception.InvalidParameterValue(
            reason=f"Value '{value}' is invalid for '{name}' which only "
                   f"accepts non-negative integer.")
    return min(number, MAX_LIMIT)


def boolean(name: str, value: str | None) -> bool:
    if value is None:
        return False
    if value.lower() not in ('true', 'false'):
        raise exception.InvalidParameterValue(
            reason=f'Unrecognized value "{value}" for "{name}", acceptable '
                   f'values are: true, false.')
    return value.lower() == 'true'


def optional_boolean(name: str, value: str | None) -> bool | None:
    """``boolean``, but None when the parameter is absent (a filter that
    is off by default)."""
    return None if value is None else boolean(name, value)


def get(name: str) -> str | None:
    """The query parameter ``name``, given at most once: Heat takes the
    last of a repeated one, which the API reference could not describe
    (a parameter is one value or a list), so it is refused."""
    values = pecan.request.GET.getall(name)
    if len(values) > 1:
        raise exception.InvalidParameterValue(
            reason=f"The query parameter '{name}' is given {len(values)} "
                   f"times; give it once.")
    return values[0] if values else None


def idempotency_key() -> str | None:
    """The request's ``Idempotency-Key`` (None without one)."""
    key = pecan.request.headers.get(IDEMPOTENCY_KEY)
    if key is None:
        return None
    if not re.fullmatch(spec.IDEMPOTENCY_KEY['schema']['pattern'], key):
        raise exception.InvalidParameterValue(
            reason=f'The {IDEMPOTENCY_KEY} header must be 1 to '
                   f'{MAX_KEY_LENGTH} printable characters.')
    return key
