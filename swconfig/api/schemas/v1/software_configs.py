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

"""Request schemas for /software_configs (and the /validate template)."""

IO_TYPES = ['String', 'Number', 'CommaDelimitedList', 'Json', 'Boolean',
            None]
# Heat takes "true" and "false" as strings too, in any case.
_BOOLEAN = {'type': ['boolean', 'string', 'null'],
            'pattern': '^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$',
            'x-must-be': 'true, false or null (or "true" or "false" in any '
                         'case)'}
_NAME = {'type': ['string', 'number', 'null'], 'maxLength': 255}
_DESCRIPTION = {'type': ['string', 'number', 'null'],
                'description': 'For people; null is stored as ``""``.'}

# The descriptions below are the API reference's words
# (doc/source/api-ref), which must contain each of them verbatim:
# tests/unit/api/test_openapi.py and the docs build check it.
INPUT = {
    'description': 'One value the config takes; for the script hook, an '
                   'environment variable. No other keys are allowed.',
    'type': 'object',
    'properties': {
        'name': {**_NAME, 'description': "Required. The input's name; a "
                                         'number is stored as a string.'},
        'description': _DESCRIPTION,
        'type': {'enum': IO_TYPES,
                 'description': '``String`` (the default), ``Number``, '
                                '``CommaDelimitedList``, ``Json`` or '
                                '``Boolean``. A ``default`` is converted '
                                'to this type.'},
        'default': {'description': 'The value when a deployment gives '
                                   'none, converted to ``type`` (``"3"`` '
                                   'becomes ``3`` for ``Number``, '
                                   '``"a,b"`` becomes ``["a", "b"]`` for '
                                   '``CommaDelimitedList``); a value that '
                                   'cannot be converted is 400.'},
        'replace_on_change': {
            **_BOOLEAN,
            'description': "Heat's hint that a change of this input should "
                           'replace the deployment rather than update it; '
                           'stored only when true.'},
        'value': {'description': 'The value itself, carried as given. '
                                 'Derived configs use it; a client that '
                                 'derives its own config (as ``openstack '
                                 'software deployment create`` does) sets '
                                 'it.'},
    },
    'required': ['name'],
    'additionalProperties': False,
}

OUTPUT = {
    'description': 'One value the agent reports back. No other keys are '
                   'allowed.',
    'type': 'object',
    'properties': {
        'name': {**_NAME,
                 'description': 'Required. The key of the value in the '
                                'signal and in ``output_values``. The '
                                'script hook reads it from the file '
                                '``$heat_outputs_path.<name>``.'},
        'description': _DESCRIPTION,
        'type': {'enum': IO_TYPES,
                 'description': 'As for inputs; default ``String``.'},
        'error_output': {
            **_BOOLEAN,
            'description': 'When true, the presence of this output in a '
                           'signal fails the deployment, with its value in '
                           'the reason. Always stored (default false).'},
    },
    'required': ['name'],
    'additionalProperties': False,
}

# Heat ignores unknown top-level keys; swconfig names them with a 400 (a
# typo would otherwise lose the field). These six are what heatclient and
# ``openstack software config create`` send.
CREATE = {
    'title': 'SoftwareConfigCreate',
    'description': 'A software config: what an agent hook runs on a '
                   'server, with the inputs it takes and the outputs it '
                   'reports. Every field is optional; any other key is '
                   'refused with 400 naming it.',
    'type': 'object',
    'properties': {
        'name': {'type': ['string', 'null'], 'maxLength': 255,
                 'description': "A name for people. It also orders a "
                                "server's deployments: agents run a "
                                "server's configs in name order."},
        'group': {'type': ['string', 'null'], 'maxLength': 255,
                  'description': 'Which agent hook runs the config: '
                                 '``script``, ``puppet``, ``ansible``, '
                                 '``salt``, ``chef``, ``docker-cmd``, '
                                 '``component`` and so on. The agent skips '
                                 'a group it has no hook for, and sends no '
                                 'signal. A derived config gets '
                                 '``Heat::Ungrouped`` when this is null.'},
        'config': {'description': 'What the hook runs, stored as given: a '
                                  'script as a string, or a JSON object '
                                  'for structured configs. For group '
                                  '``component``: ``{"configs": '
                                  '[{"actions": [...], "config": "...", '
                                  '"tool": "..."}]}``; the agent runs the '
                                  'entry whose ``actions`` contains the '
                                  "deployment's action, with the hook "
                                  'named by ``tool``.'},
        'inputs': {'type': ['array', 'null'], 'items': INPUT,
                   'description': 'The values the config takes.'},
        'outputs': {'type': ['array', 'null'], 'items': OUTPUT,
                    'description': 'The values the agent reports back.'},
        'options': {'description': 'Options for the hook (for example '
                                   '``enable_hiera`` for puppet), stored as '
                                   'given; ``{}`` when missing or null.'},
    },
    'additionalProperties': False,
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

_RESOURCE_TYPE = ('``OS::Heat::SoftwareConfig``, '
                  '``OS::Heat::StructuredConfig`` or '
                  '``OS::Heat::SoftwareComponent``.')
_RESOURCE_PROPERTIES = (
    "The config's properties. For the two config types: ``group``, "
    '``config``, ``inputs``, ``outputs`` and ``options``, with the meaning '
    'and rules of a software config create (``options`` must be an object '
    'or null; no other keys). For ``OS::Heat::SoftwareComponent``: '
    '``configs`` (required, at least one entry), ``inputs``, ``outputs`` '
    'and ``options``; each entry of ``configs`` has ``tool`` (required: '
    'the hook that runs the entry), ``config`` (a string) and ``actions`` '
    '(at least one action name; default ``CREATE`` and ``UPDATE``). One '
    'action may appear in only one entry.')

COMPONENT_TYPE = 'OS::Heat::SoftwareComponent'
CONFIG_TYPES = ('OS::Heat::SoftwareConfig', 'OS::Heat::StructuredConfig')

#: A resource's properties by its type: a component needs them (its
#: ``configs``), a config may leave them out.
_RESOURCE_BY_TYPE = [
    {'properties': {'type': {'const': COMPONENT_TYPE},
                    'properties': COMPONENT_PROPERTIES},
     'required': ['properties']},
    {'properties': {'type': {'enum': list(CONFIG_TYPES)},
                    'properties': CONFIG_PROPERTIES}},
]

# Left open, as Heat's: a template check stores nothing, and a template
# may carry other sections (parameters, outputs); the properties of each
# resource are checked closed (CONFIG_PROPERTIES, COMPONENT_PROPERTIES).
VALIDATE = {
    'title': 'TemplateValidate',
    'description': 'A Heat template of software configs, as ``openstack '
                   'software config create`` sends it before it creates '
                   'the config. Nothing is stored.',
    'type': 'object',
    'properties': {
        'template': {
            'description': 'The template; other sections (``parameters``, '
                           '``outputs``, ...) are allowed and not checked.',
            'type': 'object',
            'properties': {
                'heat_template_version': {
                    'type': ['string', 'number'],
                    'description': 'Any Heat template version; not '
                                   'interpreted.'},
                'description': {
                    'type': 'string',
                    'description': 'Echoed as ``Description`` (``No '
                                   'description`` when missing).'},
                'resources': {
                    'description': 'The resources by name.',
                    'type': 'object',
                    'additionalProperties': {
                        'description': 'One resource: a config or a '
                                       'component.',
                        'type': 'object',
                        'properties': {
                            'type': {'enum': [*CONFIG_TYPES,
                                              COMPONENT_TYPE],
                                     'description': _RESOURCE_TYPE},
                            'properties': {'type': 'object',
                                           'description':
                                               _RESOURCE_PROPERTIES},
                        },
                        'required': ['type'],
                        'oneOf': _RESOURCE_BY_TYPE,
                    },
                },
            },
            'required': ['heat_template_version', 'resources'],
        },
    },
    'required': ['template'],
}


INPUT_CHECK = {
    'title': 'InputCheck',
    'description': 'Input values to check against a config before a '
                   'deployment is created with them: nothing is stored.',
    'type': 'object',
    'properties': {
        'input_values': {
            'type': 'object',
            'description': 'The values, by input name (only the names '
                           'are checked).'},
        'input_key': {
            'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
            'description': "As a deployment's: the key with which a "
                           'structured config refers to an input '
                           '(``get_input``); the inputs it refers to '
                           'count as taken.'},
    },
    'required': ['input_values'],
    'additionalProperties': False,
}
