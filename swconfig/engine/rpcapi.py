"""Client side of the engine RPC API: what the API (and tools) call.

API version history:

    1.0 - Initial version: create/delete software configs; create, update
          and delete software deployments.
    1.1 - create_software_deployment: server-side derivation
          (signal_transport, name, timeout, base_url); get_agent_config;
          process_signal (cast).
    1.2 - register_server, unregister_server.
    1.3 - create_software_deployment takes one ``request`` (a
          DeploymentRequest as a dict) instead of its fields as keyword
          arguments; engines still accept the 1.1 keywords.
          Clients no longer send ``base_url`` (agent URLs come from the
          engine's configuration); engines ignore it when an older API
          sends it.
    1.4 - run_deployment_action, trigger_deployment, cancel_deployment;
          delete_software_deployment returns the deployment when its
          component's DELETE entry runs first (None when it is gone).
    1.5 - apply_signal: apply a stored signal and answer with what became
          of it (a GET of a client-derived TEMP_URL deployment).
    1.6 - create_software_deployment takes an ``idempotency_key``; sent
          (and 1.6 asked for) only when the client gave one.
"""

import time
from typing import Any

from oslo_log import log
import oslo_messaging as messaging

from swconfig.common import deployment_request
from swconfig.common import exception
from swconfig.common import rpc
from swconfig.common.context import RequestContext
from swconfig.conf import CONF

RPC_API_VERSION = '1.6'
LOG = log.getLogger(__name__)
AT_LEAST_ONCE = messaging.TransportOptions(at_least_once=True)


class EngineAPI:
    """Every state change goes through here to an engine."""

    RPC_API_VERSION = RPC_API_VERSION

    def __init__(self, topic: str | None = None) -> None:
        target = messaging.Target(topic=topic or CONF.engine.topic,
                                  version=self.RPC_API_VERSION)
        # retry: a call gives up reconnecting to a broker that is down
        # (oslo.messaging's default retries forever).
        self.client = rpc.get_client(
            target, timeout=CONF.engine.rpc_response_timeout,
            retry=CONF.engine.rpc_send_retries)
        # At most one helper per request thread of an API worker.
        self.runner = rpc.CallRunner(CONF.api.threads)

    def _call(self, context: RequestContext, method: str, version: str,
              **kwargs: Any) -> Any:
        """The engine's answer, or 503 within rpc_response_timeout.

        The client's timeout bounds only the wait for the reply; the
        runner also bounds handing the call to the message bus, which
        otherwise may wait for as long as the broker is down.
        """
        # at_least_once: when no engine queue is bound (no engine running,
        # or just after a broker restart) fail at once with 503 instead of
        # waiting for the reply timeout on a message nobody will read.
        prepared = self.client.prepare(version=version,
                                       transport_options=AT_LEAST_ONCE)
        timeout = CONF.engine.rpc_response_timeout
        context.rpc_deadline = time.time() + timeout

        def call() -> Any:
            context.update_store()  # the helper thread logs the request id
            try:
                return prepared.call(context, method, **kwargs)
            except Exception as exc:
                if not rpc.is_transport_error(exc):
                    raise
                raise exception.MessagingUnavailable(
                    reason=f'{type(exc).__name__}: {exc}') from exc

        return self.runner.run(timeout, call)

    def create_software_config(self, context: RequestContext, name: str | None,
                               group: str | None, config: Any,
                               inputs: Any, outputs: Any,
                               options: Any) -> dict:
        return self._call(context, 'create_software_config', '1.0',
                          name=name, group=group, config=config,
                          inputs=inputs, outputs=outputs, options=options)

    def delete_software_config(self, context: RequestContext,
                               config_id: str) -> None:
        return self._call(context, 'delete_software_config', '1.0',
                          config_id=config_id)

    def create_software_deployment(
            self, context: RequestContext,
            request: deployment_request.DeploymentRequest,
            idempotency_key: str | None = None) -> dict:
        if idempotency_key is None:
            return self._call(context, 'create_software_deployment', '1.3',
                              request=request.to_dict())
        return self._call(context, 'create_software_deployment', '1.6',
                          request=request.to_dict(),
                          idempotency_key=idempotency_key)

    def update_software_deployment(self, context: RequestContext,
                                   deployment_id: str,
                                   values: dict) -> dict:
        return self._call(context, 'update_software_deployment', '1.0',
                          deployment_id=deployment_id, values=values)

    def delete_software_deployment(self, context: RequestContext,
                                   deployment_id: str) -> dict | None:
        """None once deleted; the deployment (IN_PROGRESS) while its
        component's DELETE entry runs first (engines of 1.4)."""
        return self._call(context, 'delete_software_deployment', '1.0',
                          deployment_id=deployment_id)

    def run_deployment_action(self, context: RequestContext,
                              deployment_id: str,
                              action: str) -> dict | None:
        return self._call(context, 'run_deployment_action', '1.4',
                          deployment_id=deployment_id, action=action)

    def trigger_deployment(self, context: RequestContext,
                           deployment_id: str, request: dict,
                           idempotency_key: str | None = None) -> dict:
        """``{"software_deployment": ..., "created": bool}``."""
        return self._call(context, 'trigger_deployment', '1.4',
                          deployment_id=deployment_id, request=request,
                          idempotency_key=idempotency_key)

    def cancel_deployment(self, context: RequestContext,
                          deployment_id: str) -> dict:
        return self._call(context, 'cancel_deployment', '1.4',
                          deployment_id=deployment_id)

    def get_agent_config(self, context: RequestContext,
                         server_id: str) -> dict:
        return self._call(context, 'get_agent_config', '1.1',
                          server_id=server_id)

    def register_server(self, context: RequestContext,
                        server_id: str) -> dict:
        return self._call(context, 'register_server', '1.2',
                          server_id=server_id)

    def unregister_server(self, context: RequestContext,
                          server_id: str) -> None:
        return self._call(context, 'unregister_server', '1.2',
                          server_id=server_id)

    def apply_signal(self, context: RequestContext,
                     inbox_id: int) -> str | None:
        """Apply a stored signal now; what became of it (a call: the
        caller answers with the result)."""
        return self._call(context, 'apply_signal', '1.5',
                          inbox_id=inbox_id)

    def process_signal(self, context: RequestContext, inbox_id: int) -> None:
        """Ask an engine to apply a stored signal, without waiting.

        The signal is already durable: if no engine can be reached the
        cast is dropped (with a warning) and the engines' sweep applies it.
        Applying it late is harmless, so the cast carries no deadline.
        """
        context.rpc_deadline = None
        try:
            self.client.prepare(version='1.1', retry=0).cast(
                context, 'process_signal', inbox_id=inbox_id)
        except Exception as exc:
            LOG.warning('Could not hand stored signal %s to an engine (%s); '
                        'the signal sweep will apply it', inbox_id, exc)
