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

"""``OS::Swconfig::SoftwareConfig``, ``StructuredConfig`` and
``SoftwareComponent``: configs stored in swconfig.

Their properties and attributes are Heat's own schemas for the
``OS::Heat::`` type of the same name, taken from the installed Heat, so a
template written for Heat validates the same way. A config is immutable:
any change of a property replaces the resource (a new config is created,
then the old one deleted), as in Heat.
"""

from heat.common import exception
from heat.engine import resource
from heat.engine.resources.openstack.heat import software_component
from heat.engine.resources.openstack.heat import software_config
from heat.engine.resources.openstack.heat import structured_config

from swconfig.heat import client_plugin

HEAT_CONFIG = software_config.SoftwareConfig
HEAT_COMPONENT = software_component.SoftwareComponent


class SoftwareConfig(resource.Resource):
    """A software config (a script, a manifest, a playbook...) with its
    inputs and outputs, stored by swconfig's REST API.

    Deployments (``OS::Swconfig::SoftwareDeployment``, or any other
    client of swconfig, in this stack or another) name it by its id.
    """

    default_client_name = client_plugin.CLIENT_NAME

    PROPERTIES = (GROUP, CONFIG, OPTIONS, INPUTS, OUTPUTS) = (
        HEAT_CONFIG.PROPERTIES)
    ATTRIBUTES = (CONFIG_ATTR,) = HEAT_CONFIG.ATTRIBUTES

    # Copies: Heat adds its base attributes to a class's schema in place.
    properties_schema = dict(HEAT_CONFIG.properties_schema)
    attributes_schema = dict(HEAT_CONFIG.attributes_schema)

    def _config_body(self) -> dict:
        """What the config holds, in the body of swconfig's
        ``POST software_configs``."""
        return {key: self.properties[key] for key in self.PROPERTIES}

    def handle_create(self) -> None:
        body = {'name': self.physical_resource_name(),
                **self._config_body()}
        created = self.client().config_create(body)
        self.resource_id_set(created['id'])

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        with self.client_plugin().ignore_not_found:
            self.client().config_delete(self.resource_id)

    def handle_adopt(self, resource_data: dict | None = None) -> None:
        """Take back a config an abandoned stack left in swconfig: it must
        still be there (nothing is created)."""
        super().handle_adopt(resource_data)
        self.client().config_show(self.resource_id)

    def _show_resource(self) -> dict | None:
        if self.resource_id is None:
            return None
        return self.client().config_show(self.resource_id)

    def _resolve_attribute(self, name: str):
        if name == self.CONFIG_ATTR and self.resource_id:
            with self.client_plugin().ignore_not_found:
                return self.client().config_show(self.resource_id)['config']
        return None


class StructuredConfig(SoftwareConfig):
    """A config whose ``config`` is a map, stored as JSON; an
    ``OS::Swconfig::StructuredDeployment`` has swconfig substitute its
    ``get_input`` references."""

    properties_schema = dict(
        structured_config.StructuredConfig.properties_schema)
    attributes_schema = dict(
        structured_config.StructuredConfig.attributes_schema)


class SoftwareComponent(SoftwareConfig):
    """A config of group ``component``: one entry per set of actions,
    each with its own config and tool. The agent runs the entry whose
    ``actions`` list the deployment's action (CREATE, DELETE, or a
    custom one such as BACKUP that swconfig can trigger)."""

    PROPERTIES = (CONFIGS, INPUTS, OUTPUTS, OPTIONS) = (
        HEAT_COMPONENT.PROPERTIES)
    ATTRIBUTES = (CONFIGS_ATTR,) = HEAT_COMPONENT.ATTRIBUTES

    properties_schema = dict(HEAT_COMPONENT.properties_schema)
    attributes_schema = dict(HEAT_COMPONENT.attributes_schema)

    def _config_body(self) -> dict:
        return {'group': 'component',
                'config': {self.CONFIGS: self.properties[self.CONFIGS]},
                self.INPUTS: self.properties[self.INPUTS],
                self.OUTPUTS: self.properties[self.OUTPUTS],
                self.OPTIONS: self.properties[self.OPTIONS]}

    def _resolve_attribute(self, name: str):
        if name == self.CONFIGS_ATTR and self.resource_id:
            with self.client_plugin().ignore_not_found:
                config = self.client().config_show(self.resource_id)
                return (config.get('config') or {}).get(self.CONFIGS)
        return None

    def validate(self) -> None:
        """Heat's rule: an action has one entry at most (the agent could
        not choose between two)."""
        super().validate()
        seen: set[str] = set()
        for entry in self.properties[self.CONFIGS]:
            actions = set(entry.get('actions') or ())
            if actions & seen:
                twice = ', '.join(sorted(actions & seen))
                raise exception.StackValidationFailed(
                    message=f'SoftwareComponent "{self.name}" has more '
                            f'than one entry for {twice}: an action may '
                            f'have one entry only.')
            seen |= actions


def resource_mapping() -> dict[str, type]:
    return {
        'OS::Swconfig::SoftwareConfig': SoftwareConfig,
        'OS::Swconfig::StructuredConfig': StructuredConfig,
        'OS::Swconfig::SoftwareComponent': SoftwareComponent,
    }
