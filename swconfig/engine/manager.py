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

"""The engine's RPC endpoint: a switchboard onto the workflow modules.

Domain errors (``SwconfigException``) are declared as expected, so the
engine does not log them as crashes and the API re-raises them as-is.
A database outage in the engine becomes ``DatabaseUnavailable`` first:
only swconfig's exceptions cross RPC with their class, anything else
would reach the API as a RemoteError, a 500.
"""

from collections.abc import Callable
import functools
import time
from typing import Any

from oslo_log import log
import oslo_messaging as messaging

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.common.deployment_request import DeploymentRequest
from swconfig.db import api as db_api
from swconfig.engine import actions
from swconfig.engine import configs
from swconfig.engine import deployment_batches
from swconfig.engine import deployments
from swconfig.engine import rollouts
from swconfig.engine import rpcapi
from swconfig.engine import server_groups
from swconfig.engine import servers
from swconfig.engine import signals

LOG = log.getLogger(__name__)


def database_outage_unavailable(function: Callable) -> Callable:
    """Raise a database outage met by ``function`` as DatabaseUnavailable,
    so the API answers 503 with Retry-After (the client retries) instead
    of a RemoteError's 500."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except Exception as exc:
            if not db_api.is_outage(exc):
                raise
            LOG.error('%s failed, the database is unavailable: %s',
                      function.__name__, exc)
            raise exception.DatabaseUnavailable(
                reason=type(exc).__name__) from exc

    return wrapper


def refuse_late_calls(function: Callable) -> Callable:
    """Leave a call alone when it arrives after its caller stopped
    waiting (``RequestContext.rpc_deadline``): the message bus held it,
    the client was answered 503 and may have retried, so applying it now
    would apply the request twice. A call being applied when the caller
    gives up still completes."""

    @functools.wraps(function)
    def wrapper(self: Any, context: RequestContext, *args: Any,
                **kwargs: Any) -> Any:
        deadline = context.rpc_deadline
        late = time.time() - deadline if deadline is not None else 0
        if late > 0:
            LOG.warning('%s of request %s arrived %.1f s after its caller '
                        'stopped waiting; not applied', function.__name__,
                        context.request_id, late)
            raise exception.ServiceUnavailable(
                reason='the call arrived after its caller gave up')
        return function(self, context, *args, **kwargs)

    return wrapper


def expected(function: Callable) -> Callable:
    """An RPC endpoint: late calls are refused, database outages become
    DatabaseUnavailable, and swconfig's exceptions are expected
    (re-raised in the API as such, not logged by the engine as
    crashes)."""
    return messaging.expected_exceptions(exception.SwconfigException)(
        refuse_late_calls(database_outage_unavailable(function)))


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
                                   idempotency_key: str | None = None,
                                   **fields: Any) -> dict:
        # ``fields``: the keyword arguments of RPC API 1.1 and 1.2;
        # ``idempotency_key`` since 1.6; the request's ``input_key`` and
        # ``input_values_validate`` since 1.8.
        return deployments.create(context, DeploymentRequest.from_dict(
            request if request is not None else fields), idempotency_key)

    @expected
    def create_software_deployments(self, context: RequestContext,
                                    requests: list[dict],
                                    idempotency_key: str | None = None
                                    ) -> list[dict]:
        # Since 1.9.
        return deployment_batches.create_many(
            context, [DeploymentRequest.from_dict(request)
                      for request in requests], idempotency_key)

    @expected
    def update_software_deployment(self, context: RequestContext,
                                   deployment_id: str,
                                   values: dict) -> dict:
        return deployments.update(context, deployment_id, values)

    @expected
    def delete_software_deployment(self, context: RequestContext,
                                   deployment_id: str) -> dict | None:
        # Since 1.4: the deployment when its DELETE entry runs first.
        return actions.delete(context, deployment_id)

    @expected
    def run_deployment_action(self, context: RequestContext,
                              deployment_id: str,
                              action: str) -> dict | None:
        return actions.run_action(context, deployment_id, action)

    @expected
    def trigger_deployment(self, context: RequestContext,
                           deployment_id: str, request: dict,
                           idempotency_key: str | None = None,
                           allow_concurrent: bool = False) -> dict:
        # ``allow_concurrent`` since 1.7.
        return actions.trigger(context, deployment_id, request,
                               idempotency_key, allow_concurrent)

    @expected
    def cancel_deployment(self, context: RequestContext,
                          deployment_id: str) -> dict:
        return actions.cancel(context, deployment_id)

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

    @expected
    def set_server_labels(self, context: RequestContext, server_id: str,
                          labels: dict[str, str]) -> dict:
        return servers.set_labels(context, server_id, labels)

    @expected
    def create_server_group(self, context: RequestContext, name: str,
                            servers: list[str],
                            selector: dict[str, str] | None) -> dict:
        return server_groups.create(context, name, servers, selector)

    @expected
    def update_server_group(self, context: RequestContext, group_id: str,
                            values: dict) -> dict:
        return server_groups.update(context, group_id, values)

    @expected
    def delete_server_group(self, context: RequestContext,
                            group_id: str) -> None:
        server_groups.delete(context, group_id)

    @expected
    def create_rollout(self, context: RequestContext, target: dict,
                       work: dict, max_concurrency: str | None,
                       max_errors: str | None,
                       idempotency_key: str | None = None) -> dict:
        # Since 1.11.
        return rollouts.create(context, target, work, max_concurrency,
                               max_errors, idempotency_key)

    @expected
    def cancel_rollout(self, context: RequestContext,
                       rollout_id: str) -> dict:
        # Since 1.11.
        return rollouts.cancel(context, rollout_id)

    @database_outage_unavailable
    def process_signal(self, context: RequestContext, inbox_id: int) -> None:
        signals.process(inbox_id)

    @expected
    def apply_signal(self, context: RequestContext,
                     inbox_id: int) -> str | None:
        result = signals.process(inbox_id)
        return None if isinstance(result, Exception) else result
