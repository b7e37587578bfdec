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

"""Column types that behave the same on SQLite, MariaDB and PostgreSQL."""

import json
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import mysql


class Json(sa.types.TypeDecorator):
    """Any JSON value, stored as text (LONGTEXT on MySQL).

    ``None`` is stored as SQL NULL, so "no value" and JSON null are the
    same thing; swconfig never needs to tell them apart.
    """

    impl = sa.Text
    cache_ok = True

    def load_dialect_impl(self, dialect: sa.engine.Dialect) -> Any:
        if dialect.name == 'mysql':
            return dialect.type_descriptor(mysql.LONGTEXT())
        return dialect.type_descriptor(sa.Text())

    def process_bind_param(self, value: Any, dialect: Any) -> str | None:
        if value is None:
            return None
        return json.dumps(value, ensure_ascii=False, separators=(',', ':'))

    def process_result_value(self, value: str | None, dialect: Any) -> Any:
        if value is None:
            return None
        return json.loads(value)


def timestamp() -> sa.types.TypeEngine:
    """A naive UTC DateTime with microseconds on every backend.

    MySQL's DATETIME drops fractions unless asked, which would make the
    created_at ordering of Heat's listings ambiguous within one second.
    """
    return sa.DateTime().with_variant(mysql.DATETIME(fsp=6), 'mysql')


def long_text() -> sa.types.TypeEngine:
    """Text that may hold a whole pre-rendered document (LONGTEXT on
    MySQL, whose TEXT stops at 64 KiB)."""
    return sa.Text().with_variant(mysql.LONGTEXT(), 'mysql')


def exact_string(length: int) -> sa.types.TypeEngine:
    """A string compared byte for byte on every backend.

    MariaDB's default collation ignores case, so a unique key or an
    equality (a label selector, a group name) would hold ``Role`` and
    ``role`` for the same value there and not on SQLite or PostgreSQL;
    ``utf8mb4_bin`` compares code points. It still ignores trailing
    spaces (MariaDB pads), so values stored in such a column must not
    end with one: the API refuses them.
    """
    return sa.String(length).with_variant(
        mysql.VARCHAR(length, charset='utf8mb4', collation='utf8mb4_bin'),
        'mysql')
