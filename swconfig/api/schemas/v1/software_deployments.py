"""Request schemas for /software_deployments."""

_TEXT = {'type': ['string', 'null'], 'maxLength': 255}

CREATE = {
    'title': 'SoftwareDeploymentCreate',
    'type': 'object',
    'properties': {
        'config_id': {'type': ['string', 'null'], 'maxLength': 36},
        'server_id': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'input_values': {'type': ['object', 'null']},
        'action': _TEXT,
        'status': _TEXT,
        'status_reason': {'type': ['string', 'null']},
        'stack_user_project_id': {'type': ['string', 'null']},
    },
    'required': ['server_id'],
}

UPDATE = {
    'title': 'SoftwareDeploymentUpdate',
    'type': 'object',
    'properties': {
        'config_id': {'type': ['string', 'null'], 'maxLength': 36},
        'input_values': {'type': ['object', 'null']},
        'output_values': {'type': ['object', 'null']},
        'action': _TEXT,
        'status': _TEXT,
        'status_reason': {'type': ['string', 'null']},
    },
}
