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

"""POLL_TEMP_URL: the agent polls a Swift TempURL of its document.

An engine PUTs the document to ``<prefix>-metadata/<server id>`` in
swconfig's account whenever it changes; the agent's request collector
GETs it through a TempURL, so polls never reach swconfig (TripleO's
reason for polling Swift). The URL is signed locally and stays the same
for the server's life (``[swift] temp_url_expiry``).

A server cut over from Heat keeps reading the object Heat made for it:
the engine PUTs its document to the TempURL Heat kept, needing no Swift
settings of swconfig's.
"""


from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.transports import base
from swconfig.transports.swift import client
from swconfig.transports.swift import mixins


class PollTempUrlTransport(mixins.SwiftOptionsAndHealth,
                           base.MetadataTransport):
    name = 'POLL_TEMP_URL'
    pushes_document = True

    def collector_settings(self, server: dict) -> dict:
        url = client.temp_url(client.metadata_container(), server['id'],
                             'GET')
        return {'collectors': ['request'],
                'request': {'metadata_url': url},
                'polling_interval': CONF.agent.polling_interval}

    def push(self, server: dict, document: str) -> None:
        container = client.metadata_container()
        client.ensure_container(container)
        try:
            client.call('put_object', container, server['id'],
                       document.encode('utf-8'),
                       content_type='application/json')
        except exception.NotFound:
            # The container went away under us: make it again next time.
            client.forget_container(container)
            raise exception.BackendUnavailable(
                service=client.SERVICE,
                reason=f'container {container} vanished')

    def forget(self, server_id: str) -> None:
        try:
            client.call('delete_object', client.metadata_container(),
                       server_id)
        except exception.NotFound:
            pass

    def heat_channel(self, block: dict, put_url: str | None) -> dict:
        if not put_url:
            raise ValueError('Heat keeps no metadata_put_url for the '
                             'server\'s object')
        return {'put_url': put_url}

    def push_to_heat_channel(self, channel: dict, document: str) -> None:
        client.put_to_temp_url(channel['put_url'], document.encode('utf-8'),
                               service='Swift (the object Heat set up)')
