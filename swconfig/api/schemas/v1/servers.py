"""Request schemas for /servers."""

CREATE = {
    'title': 'ServerRegister',
    'type': 'object',
    'properties': {
        'server_id': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    },
    'required': ['server_id'],
}
