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
        # Server-side derivation (swconfig's extension); without
        # signal_transport the request keeps Heat's raw behaviour.
        'signal_transport': {'type': ['string', 'null'], 'minLength': 1,
                             'maxLength': 32},
        'name': {'type': ['string', 'null'], 'maxLength': 255},
        'timeout': {'type': ['integer', 'null'], 'minimum': 0,
                    'maximum': 31536000},
    },
    'required': ['server_id'],
}

SIGNAL = {
    'title': 'SoftwareDeploymentSignal',
    'description': 'What an agent reports: declared outputs plus '
                   'deploy_stdout, deploy_stderr, deploy_status_code; or '
                   'deploy_status IN_PROGRESS with deploy_status_reason.',
    'type': 'object',
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
