"""POLL_TEMP_URL: the agent polls a Swift TempURL of its document.

An engine PUTs the document to ``<prefix>-metadata/<server id>`` in
swconfig's account whenever it changes; the agent's request collector
GETs it through a TempURL, so polls never reach swconfig (TripleO's
reason for polling Swift). The URL is signed locally and stays the same
for the server's life (``[swift] temp_url_expiry``).
"""

from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.transports import base
from swconfig.transports import swift


class PollTempUrlTransport(base.MetadataTransport):
    name = 'POLL_TEMP_URL'
    pushes_document = True

    def missing_configuration(self) -> str | None:
        return swift.missing_configuration()

    def service_problem(self) -> str | None:
        return swift.service_problem()

    def collector_settings(self, server: dict) -> dict:
        url = swift.temp_url(swift.metadata_container(), server['id'],
                             'GET')
        return {'collectors': ['request'],
                'request': {'metadata_url': url},
                'polling_interval': CONF.agent.polling_interval}

    def push(self, server: dict, document: str) -> None:
        container = swift.metadata_container()
        swift.ensure_container(container)
        try:
            swift.call('put_object', container, server['id'],
                       document.encode('utf-8'),
                       content_type='application/json')
        except exception.NotFound:
            # The container went away under us: make it again next time.
            swift.forget_container(container)
            raise exception.BackendUnavailable(
                service=swift.SERVICE,
                reason=f'container {container} vanished')

    def forget(self, server_id: str) -> None:
        try:
            swift.call('delete_object', swift.metadata_container(),
                       server_id)
        except exception.NotFound:
            pass
