"""POST /v1/{tenant_id}/validate: the template check OSC sends first.

Only the subset ``openstack software config create`` produces is accepted:
resources of type OS::Heat::SoftwareConfig, StructuredConfig or
SoftwareComponent whose properties are a valid config.
"""

import pecan

from swconfig.api import body
from swconfig.api.controllers.v1 import access
from swconfig.api.schemas.v1 import software_configs as schemas
from swconfig.common import components
from swconfig.common import config_io
from swconfig.common import exception


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
            try:
                components.check(name, properties)
            except exception.InvalidParameterValue as exc:
                raise exception.InvalidTemplate(reason=exc.kwargs['reason'])
        try:
            config_io.normalise_inputs(properties.get('inputs'))
            config_io.normalise_outputs(properties.get('outputs'))
        except exception.InvalidParameterValue as exc:
            raise exception.InvalidTemplate(
                reason=f'resource {name}: {exc.message}')
    return {'Description': template.get('description',
                                        'No description'),
            'Parameters': {}}
