"""POLL_SERVER_URL: the agent polls its server's signed URL on swconfig."""

from swconfig.common import urls
from swconfig.conf import CONF
from swconfig.transports import base


class PollServerUrlTransport(base.MetadataTransport):
    name = 'POLL_SERVER_URL'

    def collector_settings(self, server: dict) -> dict:
        url = urls.agent_metadata_url(server['id'], server['token_revision'])
        return {'collectors': ['request'],
                'request': {'metadata_url': url},
                'polling_interval': CONF.agent.polling_interval}
