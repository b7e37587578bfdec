"""Turning DB/engine dicts into Heat's response representations."""

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
        value = timeutils.normalize_time(value)
    return value.strftime(TIME_FORMAT)


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


def deployment(row: dict) -> dict:
    item = {
        'id': row['id'],
        'config_id': row['config_id'],
        'server_id': row['server_id'],
        'input_values': row['input_values'],
        'output_values': row['output_values'],
        'action': row['action'],
        'status': row['status'],
        'status_reason': row['status_reason'],
        'creation_time': format_time(row['created_at']),
    }
    if row.get('updated_at') is not None:
        item['updated_time'] = format_time(row['updated_at'])
    return item


def event(row: dict) -> dict:
    return {'id': row['id'], 'deployment_id': row['deployment_id'],
            'time': format_time(row['created_at']), 'action': row['action'],
            'old_status': row['old_status'],
            'new_status': row['new_status'], 'reason': row['reason']}


def metadata(config_rows: list[dict]) -> list[dict]:
    """Heat's order (config name, then deployment age), except that configs
    without a name sort first instead of failing the request."""
    ordered = sorted(config_rows,
                     key=lambda c: (c['name'] is not None, c['name'] or ''))
    return [config(row) for row in ordered]
