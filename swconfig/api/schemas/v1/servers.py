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
