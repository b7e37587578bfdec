"""The engine's RPC endpoint: a switchboard onto the workflow modules.

Domain errors (``SwconfigException``) are declared as expected, so the
engine does not log them as crashes and the API re-raises them as-is.
"""

from typing import Any

import oslo_messaging as messaging

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.common.deployment_request import DeploymentRequest
from swconfig.engine import configs
from swconfig.engine import deployments
from swconfig.engine import rpcapi
from swconfig.engine import servers
from swconfig.engine import signals

expected = messaging.expected_exceptions(exception.SwconfigException)


class EngineManager:
    RPC_API_VERSION = rpcapi.RPC_API_VERSION
    target = messaging.Target(version=RPC_API_VERSION)

    @expected
    def create_software_config(self, context: RequestContext, name: str | None,
                               group: str | None, config: Any, inputs: Any,
                               outputs: Any, options: Any) -> dict:
        return configs.create(context, name, group, config, inputs,
                              outputs, options)

    @expected
    def delete_software_config(self, context: RequestContext,
                               config_id: str) -> None:
        configs.delete(context, config_id)

    @expected
    def create_software_deployment(self, context: RequestContext,
                                   request: dict | None = None,
                                   **fields: Any) -> dict:
        # ``fields``: the keyword arguments of RPC API 1.1 and 1.2.
        return deployments.create(context, DeploymentRequest.from_dict(
            request if request is not None else fields))

    @expected
    def update_software_deployment(self, context: RequestContext,
                                   deployment_id: str,
                                   values: dict) -> dict:
        return deployments.update(context, deployment_id, values)

    @expected
    def delete_software_deployment(self, context: RequestContext,
                                   deployment_id: str) -> None:
        deployments.delete(context, deployment_id)

    @expected
    def get_agent_config(self, context: RequestContext, server_id: str,
                         **legacy: Any) -> dict:
        # ``legacy``: base_url, sent by older APIs and ignored (agent URLs
        # come from configuration, never from a request).
        return servers.agent_config(context, server_id)

    @expected
    def register_server(self, context: RequestContext, server_id: str,
                        **legacy: Any) -> dict:
        return servers.register(context, server_id)

    @expected
    def unregister_server(self, context: RequestContext,
                          server_id: str) -> None:
        servers.unregister(context, server_id)

    def process_signal(self, context: RequestContext, inbox_id: int) -> None:
        signals.process(inbox_id)
