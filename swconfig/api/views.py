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

"""Turning DB/engine dicts into Heat's response representations."""

from swconfig.common import representations

format_time = representations.format_time
config_summary = representations.config_summary
config = representations.config
metadata = representations.metadata


def deployment(row: dict, name: str | None) -> dict:
    """Heat's keys, then swconfig's: ``name``, the name of the config the
    deployment runs (read apart, by the caller), where the config and the
    action came from, and its input substitution. Clients of Heat's API
    ignore keys they do not know. ``row.get``: rows of an engine
    older than a column lack it."""
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
        'name': name,
        'source_config_id': row.get('source_config_id'),
        'signal_transport': row.get('signal_transport'),
        'triggered_from': row.get('triggered_from'),
        'input_key': row.get('input_key'),
        'input_values_validate': row.get('input_values_validate'),
    }
    if row.get('updated_at') is not None:
        item['updated_time'] = format_time(row['updated_at'])
    return item


def event(row: dict) -> dict:
    return {'id': row['id'], 'deployment_id': row['deployment_id'],
            'time': format_time(row['created_at']), 'action': row['action'],
            'old_status': row['old_status'],
            'new_status': row['new_status'], 'reason': row['reason']}


def server(row: dict, labels: dict[str, str] | None = None) -> dict:
    return {'server_id': row['id'], 'project_id': row['tenant'],
            'creation_time': format_time(row['created_at']),
            'metadata_updated_time': format_time(row['updated_at']),
            'metadata_etag': row['etag'],
            'last_poll_time': format_time(row['last_poll_at']),
            'labels': labels or {}}


def server_group_summary(row: dict) -> dict:
    """A group as lists show it: without its servers."""
    return {'id': row['id'], 'name': row['name'],
            'project_id': row['tenant'], 'selector': row['selector'],
            'creation_time': format_time(row['created_at']),
            'updated_time': format_time(row['updated_at'])}


def server_group(row: dict, members: list[str]) -> dict:
    """A group with its explicit ``servers`` and its ``members`` now."""
    return {**server_group_summary(row), 'servers': row['servers'],
            'members': members}


def rollout(row: dict) -> dict:
    """A rollout: its target and work as requested, its limits, its
    status and (when read one by one) its targets counted by state."""
    shown = {'id': row['id'], 'project_id': row['tenant'],
             'status': row['status'], 'status_reason': row['status_reason'],
             **row['target'], **row['work'],
             'max_concurrency': row['max_concurrency'],
             'max_errors': row['max_errors'],
             'creation_time': format_time(row['created_at']),
             'started_time': format_time(row['started_at']),
             'finished_time': format_time(row['finished_at'])}
    if 'counts' in row:
        shown['targets'] = row['counts']
    return shown


def rollout_target(row: dict) -> dict:
    return {'position': row['position'], 'server_id': row['server_id'],
            'deployment_id': row['deployment_id'], 'state': row['state'],
            'started_time': format_time(row['started_at']),
            'finished_time': format_time(row['finished_at'])}


def rollout_event(row: dict) -> dict:
    return {'id': row['id'], 'event': row['event'],
            'reason': row['reason'],
            'creation_time': format_time(row['created_at'])}
