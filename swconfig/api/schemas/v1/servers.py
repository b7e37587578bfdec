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

"""Request schemas for /servers."""

SERVER_ID = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    # Agents and heatclient put the id in URL paths, unescaped: a "/"
    # would split it, and control characters have no place in an id.
    'pattern': r'^[^/\x00-\x1f\x7f-\x9f]+$',
    'description': 'a server id: 1 to 255 characters, without "/" or '
                   'control characters',
}

CREATE = {
    'title': 'ServerRegister',
    'description': 'Register (claim) a server id for the project. Any '
                   'other key is refused with 400 naming it.',
    'type': 'object',
    'properties': {
        'server_id': SERVER_ID,
    },
    'required': ['server_id'],
    'additionalProperties': False,
}
