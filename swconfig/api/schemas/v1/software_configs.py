"""Request schemas for /software_configs (and the /validate template)."""

IO_TYPES = ['String', 'Number', 'CommaDelimitedList', 'Json', 'Boolean',
            None]
_BOOLEAN = {'type': ['boolean', 'string', 'null']}
_NAME = {'type': ['string', 'number', 'null'], 'maxLength': 255}
_DESCRIPTION = {'type': ['string', 'number', 'null']}

INPUT = {
    'type': 'object',
    'properties': {
        'name': _NAME,
        'description': _DESCRIPTION,
        'type': {'enum': IO_TYPES},
        'default': {},
        'replace_on_change': _BOOLEAN,
        'value': {},
    },
    'required': ['name'],
    'additionalProperties': False,
}

OUTPUT = {
    'type': 'object',
    'properties': {
        'name': _NAME,
        'description': _DESCRIPTION,
        'type': {'enum': IO_TYPES},
        'error_output': _BOOLEAN,
    },
    'required': ['name'],
    'additionalProperties': False,
}

# Heat ignores unknown top-level keys, and so does swconfig.
CREATE = {
    'title': 'SoftwareConfigCreate',
    'type': 'object',
    'properties': {
        'name': {'type': ['string', 'null'], 'maxLength': 255},
        'group': {'type': ['string', 'null'], 'maxLength': 255},
        'config': {},
        'inputs': {'type': ['array', 'null'], 'items': INPUT},
        'outputs': {'type': ['array', 'null'], 'items': OUTPUT},
        'options': {},
    },
}

COMPONENT_ENTRY = {
    'type': 'object',
    'properties': {
        'actions': {'type': 'array', 'items': {'type': 'string'},
                    'minItems': 1},
        'config': {'type': 'string'},
        'tool': {'type': 'string', 'minLength': 1},
    },
    'required': ['tool'],
    'additionalProperties': False,
}

CONFIG_PROPERTIES = {
    'type': 'object',
    'properties': {
        'group': {'type': ['string', 'null'], 'maxLength': 255},
        'config': {},
        'inputs': {'type': ['array', 'null'], 'items': INPUT},
        'outputs': {'type': ['array', 'null'], 'items': OUTPUT},
        'options': {'type': ['object', 'null']},
    },
    'additionalProperties': False,
}

COMPONENT_PROPERTIES = {
    'type': 'object',
    'properties': {
        'configs': {'type': 'array', 'items': COMPONENT_ENTRY,
                    'minItems': 1},
        'inputs': {'type': ['array', 'null'], 'items': INPUT},
        'outputs': {'type': ['array', 'null'], 'items': OUTPUT},
        'options': {'type': ['object', 'null']},
    },
    'required': ['configs'],
    'additionalProperties': False,
}

VALIDATE = {
    'title': 'TemplateValidate',
    'type': 'object',
    'properties': {
        'template': {
            'type': 'object',
            'properties': {
                'heat_template_version': {'type': ['string', 'number']},
                'description': {'type': 'string'},
                'resources': {
                    'type': 'object',
                    'additionalProperties': {
                        'type': 'object',
                        'properties': {
                            'type': {'enum': ['OS::Heat::SoftwareConfig',
                                              'OS::Heat::StructuredConfig',
                                              'OS::Heat::SoftwareComponent']},
                            'properties': {'type': 'object'},
                        },
                        'required': ['type'],
                    },
                },
            },
            'required': ['heat_template_version', 'resources'],
        },
    },
    'required': ['template'],
}
