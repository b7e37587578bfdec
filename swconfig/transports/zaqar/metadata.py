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

"""ZAQAR_MESSAGE: the agent reads its document from a Zaqar queue.

An engine posts the whole document to the server's queue
(``<prefix>-m-<server id>``) whenever it changes, as the queue's only
message (older ones are popped first): os-collect-config's ``zaqar``
collector pops one message per collection, so it always gets the newest
document. That collector authenticates with Keystone as a user of its
own (``user_id``/``password``), which swconfig does not create: the
agent settings carry the queue, the project and Keystone's URL, and the
operator or user adds the credentials.

A server cut over from Heat keeps reading the queue Heat made for it:
the engine posts its document there as the stack user whose
credentials Heat gave the agent (kept sealed), needing no Zaqar
settings of swconfig's.
"""

import json

from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.transports import base
from swconfig.transports.zaqar import client
from swconfig.transports.zaqar import mixins

#: What a ZAQAR_MESSAGE agent's settings from Heat must hold.
_HEAT_SETTINGS = ('auth_url', 'user_id', 'password', 'project_id',
                  'queue_id')


def queue_for(server_id: str) -> str:
    return client.queue_name('m', server_id)


class ZaqarMessageTransport(mixins.ZaqarOptionsAndHealth,
                            base.MetadataTransport):
    name = 'ZAQAR_MESSAGE'
    pushes_document = True

    def collector_settings(self, server: dict) -> dict:
        settings = {'queue_id': queue_for(server['id']),
                    'project_id': client.project_id()}
        auth_url = client.keystone_url()
        if auth_url:
            settings['auth_url'] = auth_url
        return {'collectors': ['zaqar'], 'zaqar': settings,
                'polling_interval': CONF.agent.polling_interval}

    def push(self, server: dict, document: str) -> None:
        queue = queue_for(server['id'])
        try:
            client.replace(queue, json.loads(document),
                           CONF.zaqar.message_ttl)
        except exception.NotFound:
            client.create_queue(queue)
            client.replace(queue, json.loads(document),
                           CONF.zaqar.message_ttl)

    def forget(self, server_id: str) -> None:
        client.delete_queue(queue_for(server_id))

    def heat_channel(self, block: dict, put_url: str | None) -> dict:
        settings = block.get('zaqar') or {}
        missing = [key for key in _HEAT_SETTINGS if not settings.get(key)]
        if missing:
            raise ValueError(f'the agent\'s zaqar settings lack '
                             f'{", ".join(missing)}')
        return {key: settings.get(key)
                for key in (*_HEAT_SETTINGS, 'region_name')}

    def push_to_heat_channel(self, channel: dict, document: str) -> None:
        client.post_as_user(channel, json.loads(document),
                            CONF.zaqar.message_ttl,
                            service='Zaqar (the queue Heat set up)')
