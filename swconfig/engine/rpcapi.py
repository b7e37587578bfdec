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
    1.7 - trigger_deployment takes ``allow_concurrent`` (engines of 1.7
          refuse a trigger of an action still running unless it is
          true); sent (and 1.7 asked for) only when it is true.
    1.8 - create_software_deployment's request takes ``input_key`` and
          ``input_values_validate`` (structured-config input
          substitution); sent (and 1.8 asked for) only when one is set:
          older engines would ignore them and derive without it.
    1.9 - create_software_deployments: a list of deployments in one
          call, all or none (``requests``, each a DeploymentRequest as a
          dict; ``idempotency_key`` sent only when the client gave one).
    1.10 - set_server_labels; create_server_group, update_server_group,
           delete_server_group.
    1.11 - create_rollout (``idempotency_key`` sent only when the client
           gave one), cancel_rollout.

Rolling upgrades: ``[upgrade_levels] engine`` caps the version this client
sends (oslo.messaging's ``version_cap``), so API servers of a new release
can work with engines of an older one. Every call above 1.0 (a cap is
never lower) first asks ``can_send_version``: it is sent in an older
version when one means the same to the engine, and is otherwise refused
with EngineUpgradeRequired (409) before anything is sent. Without that, an
engine below the version fails the call (500), and a creation whose
Idempotency-Key were dropped would no longer be idempotent. A method
added here needs its entry in tests/unit/engine/test_rpc_upgrade.py.
"""

import re
import time
from typing import Any

from oslo_log import log
import oslo_messaging as messaging

from swconfig.common import deployment_request
from swconfig.common import exception
from swconfig.common import rpc
from swconfig.common.context import RequestContext
from swconfig.conf import CONF
from swconfig.engine import availability

RPC_API_VERSION = '1.11'
LOG = log.getLogger(__name__)
AT_LEAST_ONCE = messaging.TransportOptions(at_least_once=True)
#: Fields of a deployment creation that RPC API 1.1 added; a creation
#: that sets none of them can still be sent as 1.0.
_CREATE_FIELDS_SINCE_1_1 = ('signal_transport', 'name', 'timeout')
#: Fields of a deployment creation that RPC API 1.8 added: the dict form
#: leaves them out while unset (DeploymentRequest.LATER_FIELDS).
_CREATE_FIELDS_SINCE_1_8 = deployment_request.LATER_FIELDS


def _version_tuple(version: str) -> tuple[int, int] | None:
    match = re.fullmatch(r'(\d+)\.(\d+)', version)
    return (int(match[1]), int(match[2])) if match else None


def version_cap() -> str | None:
    """``[upgrade_levels] engine``, checked: None when unset or empty.

    oslo.messaging would take any string as a cap and fail (or send
    nothing) only at the first call; the API builds its EngineAPI before
    it serves, so a bad value stops it at start-up, on one line.

    :raises ConfigurationError: the value is not MAJOR.MINOR, or not a
        version of the engine RPC API this code speaks (a newer one would
        let calls through that no engine of this release understands).
    """
    value = (CONF.upgrade_levels.engine or '').strip()
    if not value:
        return None
    option = f'[upgrade_levels] engine = {value!r}'
    wanted = _version_tuple(value)
    if wanted is None:
        raise exception.ConfigurationError(
            reason=f'{option} is not an RPC API version; give the '
                   f'MAJOR.MINOR version of the oldest engine still '
                   f'running (e.g. 1.5), or leave it unset for no pin')
    current = _version_tuple(RPC_API_VERSION) or (0, 0)
    if wanted[0] != current[0] or wanted > current:
        raise exception.ConfigurationError(
            reason=f'{option} is not a version this release can pin to: '
                   f'it speaks engine RPC API {current[0]}.0 to '
                   f'{RPC_API_VERSION}; give the version of the oldest '
                   f'engine still running, or leave it unset for no pin')
    return value


class EngineAPI:
    """Every state change goes through here to an engine."""

    RPC_API_VERSION = RPC_API_VERSION

    def __init__(self, topic: str | None = None) -> None:
        target = messaging.Target(topic=topic or CONF.engine.topic,
                                  version=self.RPC_API_VERSION)
        #: The rolling-upgrade pin; None: send what this release speaks.
        self.version_cap = version_cap()
        if self.version_cap is not None:
            LOG.info('Engine RPC API pinned to %s ([upgrade_levels] '
                     'engine): requests that need a newer engine are '
                     'refused with 409 until the pin is lifted',
                     self.version_cap)
        # retry: a call gives up reconnecting to a broker that is down
        # (oslo.messaging's default retries forever).
        self.client = rpc.get_client(
            target, version_cap=self.version_cap,
            timeout=CONF.engine.rpc_response_timeout,
            retry=CONF.engine.rpc_send_retries)
        # At most one helper per request thread of an API worker.
        self.runner = rpc.CallRunner(CONF.api.threads)
        # Older engines record no heartbeats: under a pin, none counts.
        self.availability = availability.Availability(
            target.topic, check_engines=self.version_cap is None)

    def _version(self, feature: str, *versions: str) -> str:
        """The first of ``versions`` (newest first, each a form of the
        call that means the same to the engine) that the pin allows.

        :raises EngineUpgradeRequired: none is allowed; nothing was sent.
        """
        for version in versions:
            if self.client.can_send_version(version):
                return version
        raise exception.EngineUpgradeRequired(
            feature=feature, version=versions[-1], cap=self.version_cap)

    def _call(self, context: RequestContext, method: str, version: str,
              **kwargs: Any) -> Any:
        """The engine's answer, or 503 within rpc_response_timeout: at
        once when no engine runs or the bus is known down
        (``availability``).

        The client's timeout bounds only the wait for the reply; the
        runner also bounds handing the call to the message bus, which
        otherwise may wait for as long as the broker is down.
        """
        self.availability.check()
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

        try:
            return self.runner.run(timeout, call,
                                   interrupt=self.availability.interrupt)
        except exception.MessagingUnavailable:
            self.availability.bus_failed()
            raise

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
        """Under a pin below 1.6 an Idempotency-Key is refused (409), not
        dropped: its client retries on the promise that a retry creates
        nothing twice; so is an ``input_key`` under a pin below 1.8 (an
        older engine would deploy the config without substituting).
        Without either the request goes as 1.3's dict, or as the same
        fields in keyword arguments to engines of 1.1 and 1.2 (their
        ``base_url`` was optional), or of 1.0 when it sets none of the
        fields 1.1 added."""
        fields = request.to_dict()
        if any(name in fields for name in _CREATE_FIELDS_SINCE_1_8):
            version = self._version(
                'A deployment creation with input_key or '
                'input_values_validate', '1.8')
            keyed = ({} if idempotency_key is None
                     else {'idempotency_key': idempotency_key})
            return self._call(context, 'create_software_deployment',
                              version, request=fields, **keyed)
        if idempotency_key is not None:
            version = self._version(
                'A deployment creation with an Idempotency-Key', '1.6')
            return self._call(context, 'create_software_deployment',
                              version, request=fields,
                              idempotency_key=idempotency_key)
        if self.client.can_send_version('1.3'):
            return self._call(context, 'create_software_deployment', '1.3',
                              request=fields)
        uses_1_1 = any(fields[name] is not None
                       for name in _CREATE_FIELDS_SINCE_1_1)
        version = self._version(
            'A deployment creation with signal_transport, name or timeout',
            *(('1.1',) if uses_1_1 else ('1.1', '1.0')))
        if version == '1.0':
            fields = {name: value for name, value in fields.items()
                      if name not in _CREATE_FIELDS_SINCE_1_1}
        return self._call(context, 'create_software_deployment', version,
                          **fields)

    def create_software_deployments(
            self, context: RequestContext,
            requests: list[deployment_request.DeploymentRequest],
            idempotency_key: str | None = None) -> list[dict]:
        """The deployments, in request order. No older call means the
        same (one creation per call would be neither all or nothing nor
        one transaction per chunk): under a pin below 1.9 it is refused
        (409) before anything is sent."""
        version = self._version('Creating deployments from a list', '1.9')
        keyed = ({} if idempotency_key is None
                 else {'idempotency_key': idempotency_key})
        return self._call(context, 'create_software_deployments', version,
                          requests=[request.to_dict()
                                    for request in requests], **keyed)

    def update_software_deployment(self, context: RequestContext,
                                   deployment_id: str,
                                   values: dict) -> dict:
        return self._call(context, 'update_software_deployment', '1.0',
                          deployment_id=deployment_id, values=values)

    def delete_software_deployment(self, context: RequestContext,
                                   deployment_id: str) -> dict | None:
        """None once deleted; the deployment (IN_PROGRESS) while its
        component's DELETE entry runs first (engines of 1.4). 1.0 under
        any pin: older engines delete at once and answer None."""
        return self._call(context, 'delete_software_deployment', '1.0',
                          deployment_id=deployment_id)

    def run_deployment_action(self, context: RequestContext,
                              deployment_id: str,
                              action: str) -> dict | None:
        version = self._version('Running a deployment action', '1.4')
        return self._call(context, 'run_deployment_action', version,
                          deployment_id=deployment_id, action=action)

    def trigger_deployment(self, context: RequestContext,
                           deployment_id: str, request: dict,
                           idempotency_key: str | None = None,
                           allow_concurrent: bool = False) -> dict:
        """``{"software_deployment": ..., "created": bool}``. The
        Idempotency-Key came with triggers in 1.4. ``allow_concurrent``
        needs 1.7: under an older pin such a request is refused (409),
        since an engine of 1.7 would take the 1.4 form as "not allowed";
        without it the 1.4 form is sent."""
        if allow_concurrent:
            version = self._version(
                'A trigger with "allow_concurrent": true', '1.7')
            return self._call(context, 'trigger_deployment', version,
                              deployment_id=deployment_id, request=request,
                              idempotency_key=idempotency_key,
                              allow_concurrent=True)
        version = self._version('Triggering a deployment', '1.4')
        return self._call(context, 'trigger_deployment', version,
                          deployment_id=deployment_id, request=request,
                          idempotency_key=idempotency_key)

    def cancel_deployment(self, context: RequestContext,
                          deployment_id: str) -> dict:
        version = self._version('Cancelling a deployment', '1.4')
        return self._call(context, 'cancel_deployment', version,
                          deployment_id=deployment_id)

    def get_agent_config(self, context: RequestContext,
                         server_id: str) -> dict:
        version = self._version('The agent configuration of a server',
                                '1.1')
        return self._call(context, 'get_agent_config', version,
                          server_id=server_id)

    def register_server(self, context: RequestContext,
                        server_id: str) -> dict:
        version = self._version('Registering a server', '1.2')
        return self._call(context, 'register_server', version,
                          server_id=server_id)

    def unregister_server(self, context: RequestContext,
                          server_id: str) -> None:
        version = self._version('Unregistering a server', '1.2')
        return self._call(context, 'unregister_server', version,
                          server_id=server_id)

    def set_server_labels(self, context: RequestContext, server_id: str,
                          labels: dict[str, str]) -> dict:
        version = self._version('Setting the labels of a server', '1.10')
        return self._call(context, 'set_server_labels', version,
                          server_id=server_id, labels=labels)

    def create_server_group(self, context: RequestContext, name: str,
                            servers: list[str],
                            selector: dict[str, str] | None) -> dict:
        version = self._version('Creating a server group', '1.10')
        return self._call(context, 'create_server_group', version,
                          name=name, servers=servers, selector=selector)

    def update_server_group(self, context: RequestContext, group_id: str,
                            values: dict) -> dict:
        version = self._version('Updating a server group', '1.10')
        return self._call(context, 'update_server_group', version,
                          group_id=group_id, values=values)

    def delete_server_group(self, context: RequestContext,
                            group_id: str) -> None:
        version = self._version('Deleting a server group', '1.10')
        return self._call(context, 'delete_server_group', version,
                          group_id=group_id)

    def create_rollout(self, context: RequestContext, target: dict,
                       work: dict, max_concurrency: str | None,
                       max_errors: str | None,
                       idempotency_key: str | None = None) -> dict:
        version = self._version('Creating a rollout', '1.11')
        keyed = ({'idempotency_key': idempotency_key}
                 if idempotency_key is not None else {})
        return self._call(context, 'create_rollout', version,
                          target=target, work=work,
                          max_concurrency=max_concurrency,
                          max_errors=max_errors, **keyed)

    def cancel_rollout(self, context: RequestContext,
                       rollout_id: str) -> dict:
        version = self._version('Cancelling a rollout', '1.11')
        return self._call(context, 'cancel_rollout', version,
                          rollout_id=rollout_id)

    def apply_signal(self, context: RequestContext,
                     inbox_id: int) -> str | None:
        """Apply a stored signal now; what became of it (a call: the
        caller answers with the result).

        Under a pin below 1.5, 1.1's ``process_signal`` is *called*
        instead of cast: the engine applies the signal before it answers,
        as with 1.5, but does not report the outcome (None).
        """
        version = self._version('Applying a signal', '1.5', '1.1')
        if version != '1.5':
            self._call(context, 'process_signal', version,
                       inbox_id=inbox_id)
            return None
        return self._call(context, 'apply_signal', version,
                          inbox_id=inbox_id)

    def process_signal(self, context: RequestContext, inbox_id: int) -> None:
        """Ask an engine to apply a stored signal, without waiting.

        The signal is already durable: if no engine can be reached the
        cast is dropped (with a warning) and the engines' sweep applies it.
        Applying it late is harmless, so the cast carries no deadline.
        Under a pin below 1.1 nothing is sent (logged the same way).
        """
        context.rpc_deadline = None
        try:
            version = self._version('Applying a signal', '1.1')
            self.client.prepare(version=version, retry=0).cast(
                context, 'process_signal', inbox_id=inbox_id)
        except Exception as exc:
            LOG.warning('Could not hand stored signal %s to an engine (%s); '
                        'the signal sweep will apply it', inbox_id, exc)
