"""Heat's representation of a software config, shared by the API's views
and the engine's metadata renderer (agents read the very same shape)."""

import datetime
from typing import Any

from oslo_utils import timeutils

TIME_FORMAT = '%Y-%m-%dT%H:%M:%SZ'


def format_time(value: Any) -> str | None:
    """Heat's timestamp form: UTC, whole seconds, ``Z``. Engine results
    arrive over RPC with their datetimes already turned into strings."""
    if value is None:
        return None
    if not isinstance(value, datetime.datetime):
        value = timeutils.parse_isotime(value)
    return timeutils.normalize_time(value).strftime(TIME_FORMAT)


def config_summary(row: dict, with_project: bool = False) -> dict:
    item = {'id': row['id'], 'name': row['name'], 'group': row['group'],
            'creation_time': format_time(row['created_at'])}
    if with_project:
        item['project'] = row['tenant']
    return item


def config(row: dict) -> dict:
    item = config_summary(row)
    item.update(config=row['config'], inputs=row['inputs'],
                outputs=row['outputs'], options=row['options'])
    return item


def metadata(config_rows: list[dict]) -> list[dict]:
    """Heat's order (config name, then deployment age), except that configs
    without a name sort first instead of failing the request."""
    ordered = sorted(config_rows,
                     key=lambda c: (c['name'] is not None, c['name'] or ''))
    return [config(row) for row in ordered]
