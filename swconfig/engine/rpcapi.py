"""Client side of the engine RPC API: what the API (and tools) call.

API version history:

    1.0 - Initial version: create/delete software configs; create, update
          and delete software deployments.
"""

from typing import Any

import oslo_messaging as messaging

from swconfig.common import rpc
from swconfig.conf import CONF

RPC_API_VERSION = '1.0'


class EngineAPI:
    """Every state change goes through here to an engine."""

    RPC_API_VERSION = RPC_API_VERSION

    def __init__(self, topic: str | None = None) -> None:
        target = messaging.Target(topic=topic or CONF.engine.topic,
                                  version=self.RPC_API_VERSION)
        self.client = rpc.get_client(
            target, timeout=CONF.engine.rpc_response_timeout)

    def _call(self, context: Any, method: str, version: str,
              **kwargs: Any) -> Any:
        return self.client.prepare(version=version).call(
            context, method, **kwargs)

    def create_software_config(self, context: Any, name: str | None,
                               group: str | None, config: Any,
                               inputs: Any, outputs: Any,
                               options: Any) -> dict:
        return self._call(context, 'create_software_config', '1.0',
                          name=name, group=group, config=config,
                          inputs=inputs, outputs=outputs, options=options)

    def delete_software_config(self, context: Any, config_id: str) -> None:
        return self._call(context, 'delete_software_config', '1.0',
                          config_id=config_id)

    def create_software_deployment(self, context: Any, server_id: str,
                                   config_id: str,
                                   input_values: dict | None = None,
                                   action: str | None = None,
                                   status: str | None = None,
                                   status_reason: str | None = None,
                                   stack_user_project_id: str | None = None
                                   ) -> dict:
        return self._call(context, 'create_software_deployment', '1.0',
                          server_id=server_id, config_id=config_id,
                          input_values=input_values, action=action,
                          status=status, status_reason=status_reason,
                          stack_user_project_id=stack_user_project_id)

    def update_software_deployment(self, context: Any, deployment_id: str,
                                   values: dict) -> dict:
        return self._call(context, 'update_software_deployment', '1.0',
                          deployment_id=deployment_id, values=values)

    def delete_software_deployment(self, context: Any,
                                   deployment_id: str) -> None:
        return self._call(context, 'delete_software_deployment', '1.0',
                          deployment_id=deployment_id)
