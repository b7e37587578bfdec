"""POST /v1/{tenant_id}/validate: the template check OSC sends first.

Only the subset ``openstack software config create`` produces is accepted:
resources of type OS::Heat::SoftwareConfig, StructuredConfig or
SoftwareComponent whose properties are a valid config.
"""

import pecan

from swconfig.api import body
from swconfig.api.controllers.v1 import access
from swconfig.api.schemas.v1 import software_configs as schemas
from swconfig.common import config_io
from swconfig.common import exception


def _check_component(name: str, properties: dict) -> None:
    seen: set[str] = set()
    for entry in properties['configs']:
        for action in entry.get('actions', ['CREATE', 'UPDATE']):
            if action in seen:
                raise exception.InvalidTemplate(
                    reason=f'Defining more than one configuration for the '
                           f'same action in SoftwareComponent "{name}" is '
                           f'not allowed.')
            seen.add(action)


@pecan.expose('json')
def validate_template() -> dict:
    access.authorize('software_configs:validate')
    document = body.load(pecan.request, schemas.VALIDATE)
    template = document['template']
    for name, resource in template['resources'].items():
        properties = resource.get('properties') or {}
        component = resource['type'] == 'OS::Heat::SoftwareComponent'
        schema = (schemas.COMPONENT_PROPERTIES if component
                  else schemas.CONFIG_PROPERTIES)
        try:
            body.validate(schema, properties)
        except exception.InvalidParameterValue as exc:
            raise exception.InvalidTemplate(
                reason=f'resource {name}: {exc.message}')
        if component:
            _check_component(name, properties)
        try:
            config_io.normalise_inputs(properties.get('inputs'))
            config_io.normalise_outputs(properties.get('outputs'))
        except exception.InvalidParameterValue as exc:
            raise exception.InvalidTemplate(
                reason=f'resource {name}: {exc.message}')
    return {'Description': template.get('description',
                                        'No description'),
            'Parameters': {}}
