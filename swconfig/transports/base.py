"""The interface every signal transport implements."""

import abc


class SignalTransport(abc.ABC):
    """Issues what an agent needs to signal one action of a deployment."""

    #: The name clients use (``signal_transport`` in a deployment request).
    name: str
    #: False when the deployment is complete as soon as it is created.
    waits_for_signal: bool = True

    @abc.abstractmethod
    def signal_inputs(self, server: dict, deployment_id: str,
                      action_revision: int) -> list[dict]:
        """The transport's ``deploy_*`` inputs of the derived config,
        beyond ``deploy_server_id``, ``deploy_action`` and
        ``deploy_signal_transport``."""


def string_input(name: str, value: str, description: str) -> dict:
    return {'name': name, 'type': 'String', 'value': value,
            'description': description}

