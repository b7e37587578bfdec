"""The interfaces of signal transports and metadata transports."""

import abc


class SignalTransport(abc.ABC):
    """Issues what an agent needs to signal one action of a deployment."""

    #: The name clients use (``signal_transport`` in a deployment request).
    name: str
    #: False when the deployment is complete as soon as it is created.
    waits_for_signal: bool = True

    def missing_configuration(self) -> str | None:
        """Why this transport cannot work with the service's
        configuration (an option group not set), or None."""
        return None

    def service_problem(self) -> str | None:
        """What is wrong with the service the transport uses (Swift,
        Zaqar) right now, or None: for /healthcheck."""
        return None

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


class MetadataTransport(abc.ABC):
    """How a server's agent gets its document (``software_config_transport``
    in Heat's words)."""

    name: str
    #: True when an engine must push each new document somewhere.
    pushes_document: bool = False

    def missing_configuration(self) -> str | None:
        """As ``SignalTransport.missing_configuration``."""
        return None

    def service_problem(self) -> str | None:
        """As ``SignalTransport.service_problem``."""
        return None

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
