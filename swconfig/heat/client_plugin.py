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

"""The ``swconfig`` client of Heat (entry point ``heat.clients``):
swconfig's REST API for the stack's project, authenticated with the
keystoneauth session of Heat's request context (the user's token, or the
stack's trust when Heat acts later on its own)."""

from heat.engine.clients import client_plugin
from oslo_config import cfg

from swconfig.client import rest
from swconfig.heat import options

CLIENT_NAME = 'swconfig'
SERVICE_TYPE = 'software-config'

options.register_opts(cfg.CONF)


def endpoint_override(project_id: str, conf: cfg.ConfigOpts = cfg.CONF
                      ) -> str | None:
    """heat.conf ``[swconfig] endpoint`` for ``project_id``, if set."""
    template = conf.swconfig.endpoint
    if not template:
        return None
    return template % {'tenant_id': project_id, 'project_id': project_id}


class SwconfigClientPlugin(client_plugin.ClientPlugin):
    """Makes the REST client of ``swconfig.client.rest`` for a stack."""

    service_types = [SERVICE_TYPE]

    def _create(self, version: str | None = None) -> rest.Client:
        endpoint = endpoint_override(self.context.project_id)
        if endpoint is None:
            endpoint = self.url_for(
                service_type=SERVICE_TYPE,
                endpoint_type=self._get_client_option(CLIENT_NAME,
                                                      'endpoint_type'))
        return rest.Client(self.context.keystone_session, endpoint,
                           timeout=cfg.CONF.swconfig.timeout)

    @staticmethod
    def _status(ex: Exception) -> int | None:
        return ex.status if isinstance(ex, rest.SwconfigError) else None

    def is_client_exception(self, ex: Exception) -> bool:
        return isinstance(ex, rest.SwconfigError)

    def is_not_found(self, ex: Exception) -> bool:
        return self._status(ex) == 404

    def is_conflict(self, ex: Exception) -> bool:
        return self._status(ex) == 409

    def is_over_limit(self, ex: Exception) -> bool:
        return self._status(ex) == 413
