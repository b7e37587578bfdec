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

"""``OS::Swconfig::Agent``: a template's own server polls swconfig.

Heat gives an ``OS::Nova::Server`` a boot config whose agent polls Heat,
which never sees the deployments swconfig holds. This resource registers
a server id with swconfig before the server exists and gives the cloud-
init user data that points the server's os-collect-config at that
server's signed swconfig URL; deployments then name the same id::

    agent:
      type: OS::Swconfig::Agent
    server:
      type: OS::Nova::Server
      properties:
        user_data_format: RAW
        user_data: {get_attr: [agent, user_data]}
    deployment:
      type: OS::Swconfig::SoftwareDeployment
      properties:
        server: {get_attr: [agent, server_id]}

``etc/heat/swconfig-server.yaml`` is a whole example.
"""

from heat.engine import attributes
from heat.engine import constraints
from heat.engine import properties
from heat.engine import resource
import yaml

from swconfig.heat import client_plugin

#: Where the user data writes os-collect-config's settings (its default
#: configuration file on images built with its element).
CONFIG_PATH = '/etc/os-collect-config.conf'


def user_data(conf: str) -> str:
    """Cloud-init user data that installs ``conf`` as os-collect-config's
    configuration (readable by root only: the URL carries the server's
    token) and restarts the agent where it runs as a service."""
    return '#cloud-config\n' + yaml.safe_dump({
        'write_files': [{'path': CONFIG_PATH, 'owner': 'root:root',
                         'permissions': '0600', 'content': conf}],
        'runcmd': [['sh', '-c', 'systemctl restart os-collect-config '
                                '2>/dev/null || true']],
    }, default_flow_style=False, sort_keys=False)


class Agent(resource.Resource):
    """A server known to swconfig before it boots, and the user data that
    makes its agent poll swconfig.

    The server id is ``server_id`` when given, else one made for the
    resource (unique in the stack). Deleting the resource unregisters the
    server (after the deployments that name it are gone).
    """

    default_client_name = client_plugin.CLIENT_NAME

    PROPERTIES = (SERVER_ID, LABELS) = ('server_id', 'labels')
    ATTRIBUTES = (SERVER_ID_ATTR, USER_DATA, OS_COLLECT_CONFIG,
                  OS_COLLECT_CONFIG_CONF) = (
        'server_id', 'user_data', 'os_collect_config',
        'os_collect_config_conf')

    properties_schema = {
        SERVER_ID: properties.Schema(
            properties.Schema.STRING,
            ('The id the server is known by in swconfig: what deployments '
              'name as their server. By default one is made for this '
              'resource. Changing it replaces the resource.'),
            constraints=[constraints.Length(min=1, max=255),
                         constraints.AllowedPattern(r'[^/]+')]),
        LABELS: properties.Schema(
            properties.Schema.MAP,
            ('Labels of the server in swconfig ({key: value}), which '
              'server groups and rollouts select servers by.'),
            default={}, update_allowed=True),
    }
    attributes_schema = {
        SERVER_ID_ATTR: attributes.Schema(
            ('The server id to give deployments.'),
            type=attributes.Schema.STRING),
        USER_DATA: attributes.Schema(
            ('Cloud-init user data (cloud-config) that configures the '
              "server's os-collect-config to poll swconfig: give it to "
              'the server with user_data_format RAW.'),
            type=attributes.Schema.STRING),
        OS_COLLECT_CONFIG: attributes.Schema(
            ('The os-collect-config settings, as a map.'),
            type=attributes.Schema.MAP),
        OS_COLLECT_CONFIG_CONF: attributes.Schema(
            ('The same settings as an os-collect-config.conf file.'),
            type=attributes.Schema.STRING),
    }

    def handle_create(self) -> None:
        server_id = (self.properties[self.SERVER_ID]
                     or self.physical_resource_name())
        self.client().server_set_labels(server_id,
                                        self.properties[self.LABELS] or {})
        self.resource_id_set(server_id)

    def handle_update(self, json_snippet, tmpl_diff, prop_diff) -> None:
        if self.LABELS in prop_diff:
            self.client().server_set_labels(
                self.resource_id, prop_diff[self.LABELS] or {})

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        with self.client_plugin().ignore_not_found:
            self.client().server_delete(self.resource_id)

    def _show_resource(self) -> dict | None:
        if self.resource_id is None:
            return None
        return self.client().server_show(self.resource_id)

    def get_reference_id(self) -> str | None:
        return self.resource_id

    def _resolve_attribute(self, name: str):
        if self.resource_id is None:
            return None
        if name == self.SERVER_ID_ATTR:
            return self.resource_id
        settings = self.client().agent_config(self.resource_id)
        if name == self.OS_COLLECT_CONFIG:
            return settings['os-collect-config']
        if name == self.OS_COLLECT_CONFIG_CONF:
            return settings['os_collect_config_conf']
        if name == self.USER_DATA:
            return user_data(settings['os_collect_config_conf'])
        return None


def resource_mapping() -> dict[str, type]:
    return {'OS::Swconfig::Agent': Agent}
