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

"""Request schemas for /servers, and the label rules server groups'
selectors share."""

# What a server id, a label key and a label value are: their
# descriptions, and the end of the 400 that refuses one ("It must be ...",
# the "x-must-be" of swconfig.api.request_body).
_SERVER_ID_WORDS = ('a server id: 1 to 255 characters, without "/" or '
                    'control characters')
_LABEL_KEY_WORDS = ('a label key: 1 to 63 ASCII letters, digits, "-", "_", '
                    '"." or "/"')
_LABEL_VALUE_WORDS = ('a label value: 0 to 255 characters, without control '
                      'characters and without white space at either end')

SERVER_ID = {
    'type': 'string', 'minLength': 1, 'maxLength': 255,
    # Agents and heatclient put the id in URL paths, unescaped: a "/"
    # would split it, and control characters have no place in an id.
    'pattern': r'^[^/\x00-\x1f\x7f-\x9f]+$',
    'description': _SERVER_ID_WORDS,
    'x-must-be': _SERVER_ID_WORDS,
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

#: The most labels one server may carry.
MAX_LABELS = 64
# MariaDB ignores a trailing space when it compares (swconfig.db.types.
# exact_string), so a value may not end, nor for symmetry begin, with
# white space.
_TEXT = r'[^\x00-\x1f\x7f-\x9f]'
_EDGE = r'[^\x00-\x1f\x7f-\x9f\s]'

LABEL_KEY = {
    'type': 'string',
    'pattern': r'^[A-Za-z0-9._/-]{1,63}$',
    'description': _LABEL_KEY_WORDS,
    'x-must-be': _LABEL_KEY_WORDS,
}

LABEL_VALUE = {
    'type': 'string',
    'pattern': f'^(?:{_EDGE}(?:{_TEXT}{{0,253}}{_EDGE})?)?$',
    'description': _LABEL_VALUE_WORDS,
    'x-must-be': _LABEL_VALUE_WORDS,
}

#: One ``?label=KEY=VALUE`` of a server list: a label key, "=", a label
#: value.
LABEL_TERM = {
    'type': 'string',
    'pattern': '^' + LABEL_KEY['pattern'].strip('^$') + '='
               + LABEL_VALUE['pattern'].strip('^$') + '$',
    'description': f'KEY=VALUE: {_LABEL_KEY_WORDS}, "=" and '
                   f'{_LABEL_VALUE_WORDS}',
}

LABELS = {
    'type': 'object',
    'propertyNames': LABEL_KEY,
    'additionalProperties': LABEL_VALUE,
    'maxProperties': MAX_LABELS,
    'description': f'All the labels of the server, as ``{{"key": '
                   f'"value"}}``, replacing those it had (``{{}}`` removes '
                   f'them all); at most {MAX_LABELS}. Keys and values '
                   f'compare exactly, case included.',
}

UPDATE = {
    'title': 'ServerUpdate',
    'description': "Set a server's labels, registering the server for the "
                   'project if it is new. Any other key is refused with '
                   '400 naming it.',
    'type': 'object',
    'properties': {
        'labels': LABELS,
    },
    'required': ['labels'],
    'additionalProperties': False,
}
