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

"""Pushing documents to servers whose metadata transport pushes them.

A render of such a server marks it (``push_pending``, in the render's
transaction); an engine pushes the document it then reads and clears the
mark only if the document did not change meanwhile, so the last document
is always pushed, by whichever engine owns the server (the ``periodics``
task), even after a crash or an outage of the transport's service.
"""

from collections.abc import Iterator

from oslo_log import log

from swconfig import transports
from swconfig.common import context as swconfig_context
from swconfig.common import sealed_document
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)
PAGE = 200


def pending_servers() -> Iterator[dict]:
    """Every server marked for a push, a page at a time."""
    admin = swconfig_context.get_admin_context()
    after = ''
    while True:
        page = db_api.server_push_pending(admin, PAGE, after=after)
        yield from page
        if len(page) < PAGE:
            return
        after = page[-1]['id']


def push(server: dict) -> None:
    """Push one server's document (raises BackendUnavailable while its
    service is down; the mark stays, so a later round pushes it): into
    the channel Heat set up for it when it was cut over from Heat, else
    through its transport."""
    document = sealed_document.opened(server['document'])
    transport = transports.get_metadata(server['config_transport'])
    if server.get('heat_channel'):
        # Only then: cryptography costs ~70 ms of every process's start.
        from swconfig.common import sealing
        transport.push_to_heat_channel(
            sealing.unseal(server['heat_channel']), document)
        where = f'{transport.name}, into the channel Heat set up'
    else:
        transport.push(server, document)
        where = transport.name
    admin = swconfig_context.get_admin_context()
    if db_api.server_push_done(admin, server['id'],
                               server['document_revision']):
        LOG.info('Pushed document revision %d of server %s (%s)',
                 server['document_revision'], server['id'], where)
