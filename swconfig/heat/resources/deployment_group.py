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

"""``OS::Swconfig::SoftwareDeploymentGroup`` and
``StructuredDeploymentGroup``: one config deployed to a map of servers.

Heat's group types are resource groups whose members are deployments; so
are these, with ``OS::Swconfig::`` members. Heat's ``batch_create`` and
``rolling_update`` policies apply unchanged, and each member is one
request to swconfig (one request for the whole group waits for swconfig's
batch creation). A failed member fails the group, its name (the key in
``servers``) in the reason.
"""

import copy

from heat.engine import rsrc_defn
from heat.engine.resources.openstack.heat import software_deployment
from heat.engine.resources.openstack.heat import structured_config

from swconfig.heat.resources import software_deployment as deployments

HEAT_GROUP = software_deployment.SoftwareDeploymentGroup
HEAT_STRUCTURED_GROUP = structured_config.StructuredDeploymentGroup
#: signal_transport defaults to swconfig's operator default, as for a member.
SIGNAL_TRANSPORT = deployments.SIGNAL_TRANSPORT_SCHEMA


class SoftwareDeploymentGroup(HEAT_GROUP):
    """A config deployed by swconfig to each server of ``servers`` (name
    -> server id); the attributes ``deploy_stdouts``, ``deploy_stderrs``,
    ``deploy_status_codes`` and any member attribute are maps by name."""

    MEMBER_TYPE = 'OS::Swconfig::SoftwareDeployment'

    properties_schema = dict(HEAT_GROUP.properties_schema,
                             signal_transport=SIGNAL_TRANSPORT)
    attributes_schema = dict(HEAT_GROUP.attributes_schema)

    def build_resource_definition(self, res_name: str, res_defn: dict
                                  ) -> rsrc_defn.ResourceDefinition:
        props = copy.deepcopy(res_defn)
        servers = props.pop(self.SERVERS)
        props[deployments.SoftwareDeployment.SERVER] = servers.get(res_name)
        return rsrc_defn.ResourceDefinition(res_name, self.MEMBER_TYPE,
                                            props, None)


class StructuredDeploymentGroup(SoftwareDeploymentGroup):
    """A structured config deployed to each server of ``servers``, its
    ``get_input`` references substituted by swconfig."""

    MEMBER_TYPE = 'OS::Swconfig::StructuredDeployment'

    PROPERTIES = HEAT_STRUCTURED_GROUP.PROPERTIES
    properties_schema = dict(HEAT_STRUCTURED_GROUP.properties_schema,
                             signal_transport=SIGNAL_TRANSPORT)
    attributes_schema = dict(HEAT_STRUCTURED_GROUP.attributes_schema)


def resource_mapping() -> dict[str, type]:
    return {
        'OS::Swconfig::SoftwareDeploymentGroup': SoftwareDeploymentGroup,
        'OS::Swconfig::StructuredDeploymentGroup': StructuredDeploymentGroup,
    }
