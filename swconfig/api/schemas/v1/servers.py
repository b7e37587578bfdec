"""Request schemas for /servers."""

SERVER_ID = {'type': 'string', 'minLength': 1, 'maxLength': 255}

CREATE = {
    'title': 'ServerRegister',
    'type': 'object',
    'properties': {
        'server_id': SERVER_ID,
    },
    'required': ['server_id'],
}
