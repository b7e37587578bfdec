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

"""The contracts between transports and the rest of swconfig.

A transport plugin implements ``SignalTransport`` or ``MetadataTransport``
and owns everything it does: its client, its options, what it issues, how
its signals come back and the background work that takes. swconfig hands
it two things it cannot make itself:

``SignalSink``
    Where a transport hands the raw signals it fetched (a Swift object, a
    Zaqar message): stored in the inbox once per source key, then applied
    with every rule of the signed-URL path. The arrival sequence (size
    limit, body checks, storing once) is written here, once; the engine
    and the API provide the last step, ``apply``.
``Partition``
    Which items of shared background work (a container, a queue) this
    engine owns among the live engines; the engine's coordinator is one.

A transport's background work is a list of ``PeriodicTask`` (or
``SharedTask``: ``swconfig.common.background``); the engine runs every
configured transport's tasks with its own, from one table
(``swconfig.engine.periodics``).
"""

import abc
from typing import Any

from oslo_config import cfg
from oslo_log import log

from swconfig.common import background
from swconfig.common import exception
from swconfig.common import signal_body
from swconfig.common import states
from swconfig.common.context import RequestContext
from swconfig.conf import CONF
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)


#: The background work contracts (``swconfig.common.background``), named
#: here too, so that a transport needs only this module.
Partition = background.Partition
PeriodicTask = background.PeriodicTask
SharedTask = background.SharedTask


class SignalSink(abc.ABC):
    """Stores the signals a transport fetched, once each, and applies
    them."""

    def __init__(self, context: RequestContext) -> None:
        self.context = context

    def receive(self, deployment_id: str, action_revision: int,
                source_key: str, body: bytes | None = None,
                size: int | None = None, where: str = '') -> bool:
        """Store ``body`` as the signal of one action of a deployment,
        unless a signal with ``source_key`` (where it came from and what
        it holds, e.g. an object's ETag) was stored before, and apply it.

        ``size`` alone (no ``body``) stands for content the transport did
        not fetch because it is over ``[agent] max_signal_size``: the
        stand-in stored fails the deployment with a reason naming both.
        Returns whether this call stored the signal; an unusable body is
        logged and not stored.
        """
        where = where or source_key
        limit = CONF.agent.max_signal_size
        received = len(body) if body is not None else size or 0
        if body is None or received > limit:
            payload: Any = states.oversized_signal(received, True, limit)
        else:
            try:
                payload, notes = signal_body.load(body)
            except exception.SwconfigException as exc:
                LOG.warning('Signal %s of deployment %s cannot be used: %s',
                            where, deployment_id, exc)
                return False
            if notes:
                LOG.info('Signal %s of deployment %s: %s', where,
                         deployment_id, '; '.join(notes))
        inbox_id = db_api.signal_inbox_add_once(
            self.context, deployment_id, action_revision, payload,
            source_key)
        if inbox_id is None:
            LOG.info('Signal %s of deployment %s was stored before; not '
                     'stored again', source_key, deployment_id)
            return False
        LOG.info('Stored signal %s of deployment %s (action revision %d) '
                 'from %s', inbox_id, deployment_id, action_revision, where)
        self.apply(inbox_id)
        return True

    @abc.abstractmethod
    def apply(self, inbox_id: int) -> None:
        """Apply stored signal ``inbox_id`` now; one that cannot be
        applied now stays stored, and the engines' sweep applies it."""


class _Plugin:
    """What signal and metadata transports have in common."""

    #: The name clients and the configuration use; the entry point's name.
    name: str

    @classmethod
    def list_opts(cls) -> list[tuple[cfg.OptGroup, list[cfg.Opt]]]:
        """The transport's options, for oslo-config-generator; registered
        when its package is imported."""
        return []

    def missing_configuration(self) -> str | None:
        """Why this transport cannot work with the service's
        configuration (an option group not set), or None."""
        return None

    def service_problem(self) -> str | None:
        """What is wrong with the service the transport uses (Swift,
        Zaqar) right now, or None: for /healthcheck."""
        return None

    def periodic_tasks(self, sink: SignalSink) -> list[PeriodicTask]:
        """The background work this transport needs from the engines
        while it is configured (tasks of the same name run once)."""
        return []


class SignalTransport(_Plugin, abc.ABC):
    """Issues what an agent needs to signal one action of a deployment."""

    #: False when the deployment is complete as soon as it is created.
    waits_for_signal: bool = True

    @abc.abstractmethod
    def signal_inputs(self, server: dict, deployment_id: str,
                      action_revision: int) -> list[dict]:
        """The transport's ``deploy_*`` inputs of the derived config,
        beyond ``deploy_server_id``, ``deploy_action`` and
        ``deploy_signal_transport``."""

    def forget(self, deployment: dict) -> None:
        """Remove what the transport made for a deleted deployment (an
        object, a queue); called with its last row after the deletion
        committed."""
        return None

    def forget_action(self, deployment_id: str, action_revision: int
                      ) -> None:
        """Remove what the transport made for one action of a deployment
        (its queue); called once the next action committed, so a failed
        change leaves the former action able to signal. Best effort: an
        outage is logged, not raised (the action's signals are refused
        as stale anyway)."""
        return None

    def poll_on_show(self, context: RequestContext, deployment: dict,
                     config_inputs: dict[str, Any], headers: Any,
                     sink: SignalSink) -> bool:
        """Called when a user shows a deployment whose derived config
        names this transport in ``deploy_signal_transport`` but that no
        engine watches (a config the client derived, as Heat's clients
        do): fetch its signal with the caller's credentials and hand it
        to ``sink``. Returns whether a signal was applied. Never raises
        for the transport's service being down: the GET still answers.
        Called whether or not the operator configured the transport."""
        return False


class MetadataTransport(_Plugin, abc.ABC):
    """How a server's agent gets its document (``software_config_transport``
    in Heat's words)."""

    #: True when an engine must push each new document somewhere.
    pushes_document: bool = False

    @abc.abstractmethod
    def collector_settings(self, server: dict) -> dict:
        """The document's ``os-collect-config`` block: the collectors the
        agent runs and each one's settings, plus ``polling_interval``."""

    def push(self, server: dict, document: str) -> None:
        """Put the server's newly rendered document where its agent
        reads it (when ``pushes_document``)."""
        return None

    def forget(self, server_id: str) -> None:
        """Remove what the transport made for an unregistered server."""
        return None

    def heat_channel(self, block: dict, put_url: str | None) -> dict:
        """Where Heat writes the document of an agent that reads this
        transport as Heat set it up (``block``: the os-collect-config
        block Heat gave the agent; ``put_url``: the object's TempURL that
        Heat keeps), so that swconfig writes there instead once the
        server is cut over (``swconfig-manage heat-cutover``).
        ValueError says what is missing."""
        raise ValueError(f'Heat writes nothing that an agent reading '
                         f'{self.name} reads')

    def push_to_heat_channel(self, channel: dict, document: str) -> None:
        """Write ``document`` where ``heat_channel`` said, as Heat does
        (BackendUnavailable when refused or unreachable)."""
        raise NotImplementedError(self.name)


def string_input(name: str, value: str, description: str) -> dict:
    return {'name': name, 'type': 'String', 'value': value,
            'description': description}


def signal_url_inputs(url: str, verb: str = 'PUT') -> list[dict]:
    """``deploy_signal_id`` and ``deploy_signal_verb``: where and how
    heat-config-notify sends the signal (PUT makes it retry on 5xx)."""
    return [
        string_input('deploy_signal_id', url,
                     'ID of signal to use for signalling output values'),
        string_input('deploy_signal_verb', verb,
                     'HTTP verb to use for signaling output values'),
    ]
