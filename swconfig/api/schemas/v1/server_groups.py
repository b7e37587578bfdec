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

"""Request schemas for /server_groups."""

from swconfig.api.schemas.v1 import servers

#: The most servers a group names explicitly; a selector has no limit.
MAX_SERVERS = 10000
_TEXT = r'[^\x00-\x1f\x7f-\x9f]'
_EDGE = r'[^\x00-\x1f\x7f-\x9f\s]'

NAME = {
    'type': 'string',
    'pattern': f'^{_EDGE}(?:{_TEXT}{{0,253}}{_EDGE})?$',
    'description': 'The name, unique in the project: 1 to 255 '
                   'characters, without control characters and without '
                   'white space at either end.',
    'x-must-be': '1 to 255 characters, without control characters and '
                 'without white space at either end',
}

SERVERS = {
    'type': 'array',
    'items': servers.SERVER_ID,
    'uniqueItems': True,
    'maxItems': MAX_SERVERS,
    'description': f'Servers that are members whatever their labels, each '
                   f"a server registered to the project (at most "
                   f"{MAX_SERVERS}; each once). On update the list "
                   f"replaces the group's explicit members; ``[]`` "
                   f'removes them all.',
}

SELECTOR = {
    'type': ['object', 'null'],
    'propertyNames': servers.LABEL_KEY,
    'additionalProperties': servers.LABEL_VALUE,
    'minProperties': 1,
    'maxProperties': servers.MAX_LABELS,
    'description': 'Labels as ``{"key": "value"}``: every server of the '
                   'project that carries all of them, with exactly these '
                   'values, is a member, including servers labelled after '
                   'the group was made. At least one label; null (on '
                   'update) removes the selector.',
}

CREATE = {
    'title': 'ServerGroupCreate',
    'description': 'A named group of servers: explicit ``servers``, a '
                   'label ``selector``, or both (at least one of the two). '
                   'Any other key is refused with 400 naming it.',
    'type': 'object',
    'properties': {
        'name': NAME,
        'servers': SERVERS,
        'selector': SELECTOR,
    },
    'required': ['name'],
    'additionalProperties': False,
}

UPDATE = {
    'title': 'ServerGroupUpdate',
    'description': 'Change a group: the fields given replace their '
                   'values, the others are kept; the group must keep '
                   'servers, a selector or both. Any other key is refused '
                   'with 400 naming it.',
    'type': 'object',
    'properties': {
        'name': NAME,
        'servers': SERVERS,
        'selector': SELECTOR,
    },
    'additionalProperties': False,
}
