"""Pushing documents to servers that poll Swift or Zaqar.

A render of a POLL_TEMP_URL or ZAQAR_MESSAGE server marks it
(``push_pending``, in the render's transaction); an engine pushes the
document it then reads and clears the mark only if the document did not
change meanwhile, so the last document is always pushed, by whichever
engine owns the server (``coordination``), even after a crash or an
outage of Swift or Zaqar.
"""

from oslo_log import log

from swconfig import transports
from swconfig.common import context as swconfig_context
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import background
from swconfig.engine import coordination

LOG = log.getLogger(__name__)
PAGE = 200


class DocumentPusher(background.Worker):
    name = 'document-push'

    def interval(self) -> float:
        return CONF.agent.document_push_interval

    def max_interval(self) -> float:
        return 60.0

    def run_once(self) -> None:
        coordinator = coordination.get()
        coordinator.refresh()
        admin = swconfig_context.get_admin_context()
        after = ''
        while True:
            page = db_api.server_push_pending(admin, PAGE, after=after)
            for server in page:
                if coordinator.owns(server['id']):
                    push(server)
            if len(page) < PAGE:
                return
            after = page[-1]['id']


def push(server: dict) -> None:
    """Push one server's document (raises BackendUnavailable while its
    service is down; the mark stays, so a later round pushes it)."""
    transport = transports.get_metadata(server['config_transport'])
    transport.push(server, server['document'])
    admin = swconfig_context.get_admin_context()
    if db_api.server_push_done(admin, server['id'],
                               server['document_revision']):
        LOG.info('Pushed document revision %d of server %s (%s)',
                 server['document_revision'], server['id'], transport.name)
