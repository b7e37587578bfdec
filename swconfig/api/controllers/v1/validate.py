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

"""POST /v1/{tenant_id}/validate: the template check OSC sends first.

Only the subset ``openstack software config create`` produces is accepted:
resources of type OS::Heat::SoftwareConfig, StructuredConfig or
SoftwareComponent whose properties are a valid config.
"""

import pecan

from swconfig.api import request_body
from swconfig.api.openapi import spec
from swconfig.api.schemas.v1 import software_configs as schemas
from swconfig.common import components
from swconfig.common import config_io
from swconfig.common import exception


@pecan.expose('json')
@spec.operation('validateTemplate',
                'Check a SoftwareConfig/SoftwareComponent template.',
                tag='software_configs',
                body=spec.Body('TemplateValidate', schemas.VALIDATE),
                responses={**spec.ok('TemplateValidateResult', 'Valid.'),
                           **spec.errors(400, 403)})
def validate_template() -> dict:
    # The schema checked each resource's properties by its type; what it
    # cannot say (an action in two entries, a default of the wrong type)
    # is checked here, naming the resource as Heat does.
    document = request_body.load(pecan.request, schemas.VALIDATE)
    template = document['template']
    for name, resource in template['resources'].items():
        properties = resource.get('properties') or {}
        if resource['type'] == schemas.COMPONENT_TYPE:
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
