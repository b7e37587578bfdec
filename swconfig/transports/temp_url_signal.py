"""TEMP_URL_SIGNAL: the agent PUTs its signal to a Swift TempURL.

The object lives in swconfig's own Swift account ([swift]), named
``<deployment id>/<action revision>`` in the deployment's signal
container, so a new action gets a new object and a late signal of an old
one is never mistaken for the new one. The URL is signed locally: making
it costs no request to Swift. Engines list the containers and fetch what
changed (``swconfig.engine.swift_signals``).
"""

from oslo_log import log

from swconfig.common import exception
from swconfig.transports import base
from swconfig.transports import swift

LOG = log.getLogger(__name__)


def object_name(deployment_id: str, action_revision: int) -> str:
    return f'{deployment_id}/{action_revision}'


def parse_object_name(name: str) -> tuple[str, int] | None:
    """(deployment id, action revision) of a signal object, or None for
    a name swconfig did not make."""
    deployment_id, _, revision = name.rpartition('/')
    if not deployment_id or not revision.isdigit():
        return None
    return deployment_id, int(revision)


class TempUrlSignalTransport(base.SignalTransport):
    name = 'TEMP_URL_SIGNAL'

    def missing_configuration(self) -> str | None:
        return swift.missing_configuration()

    def service_problem(self) -> str | None:
        return swift.service_problem()

    def signal_inputs(self, server: dict, deployment_id: str,
                      action_revision: int) -> list[dict]:
        container = swift.signal_container(deployment_id)
        swift.ensure_container(container)
        url = swift.temp_url(container,
                             object_name(deployment_id, action_revision),
                             'PUT')
        return base.signal_url_inputs(url)

    def forget(self, deployment: dict) -> None:
        deployment_id = deployment['id']
        container = swift.signal_container(deployment_id)
        try:
            _headers, objects = swift.call(
                'get_container', container, prefix=f'{deployment_id}/',
                full_listing=True)
            for item in objects:
                swift.call('delete_object', container, item['name'])
        except exception.NotFound:
            return
        except exception.BackendUnavailable as exc:
            # The engine's listing removes what a deleted deployment left.
            LOG.warning('Could not remove the signal objects of deleted '
                        'deployment %s now (%s); the signal poller will',
                        deployment_id, exc)
