"""ZAQAR_MESSAGE: the agent reads its document from a Zaqar queue.

An engine posts the whole document to the server's queue
(``<prefix>-m-<server id>``) whenever it changes; os-collect-config's
``zaqar`` collector reads it. That collector authenticates with Keystone
as a user of its own (``user_id``/``password``), which swconfig does not
create: the agent settings carry the queue, the project and Keystone's
URL, and the operator or user adds the credentials.
"""

import json

from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.transports import base
from swconfig.transports import zaqar


def queue_for(server_id: str) -> str:
    return zaqar.queue_name('m', server_id)


class ZaqarMessageTransport(base.MetadataTransport):
    name = 'ZAQAR_MESSAGE'
    pushes_document = True

    def missing_configuration(self) -> str | None:
        return zaqar.missing_configuration()

    def service_problem(self) -> str | None:
        return zaqar.service_problem()

    def collector_settings(self, server: dict) -> dict:
        settings = {'queue_id': queue_for(server['id']),
                    'project_id': zaqar.project_id()}
        auth_url = zaqar.keystone_url()
        if auth_url:
            settings['auth_url'] = auth_url
        return {'collectors': ['zaqar'], 'zaqar': settings,
                'polling_interval': CONF.agent.polling_interval}

    def push(self, server: dict, document: str) -> None:
        queue = queue_for(server['id'])
        try:
            zaqar.post(queue, json.loads(document), CONF.zaqar.message_ttl)
        except exception.NotFound:
            zaqar.create_queue(queue)
            zaqar.post(queue, json.loads(document), CONF.zaqar.message_ttl)

    def forget(self, server_id: str) -> None:
        zaqar.delete_queue(queue_for(server_id))
