"""The database facade: ``<entity>_<verb>(context, ...)`` functions.

Readers and writers use oslo.db's enginefacade with the request context as
the transaction holder. Every query that returns project data is scoped to
the caller's project inside the query itself (admins are not scoped), so an
object of another project is simply "not found". Functions return plain
dicts, never live ORM objects.
"""

import sqlalchemy as sa

from swconfig.db import session
from swconfig.db.configs import software_config_count
from swconfig.db.configs import software_config_create
from swconfig.db.configs import software_config_delete
from swconfig.db.configs import software_config_get
from swconfig.db.configs import software_config_get_all
from swconfig.db.deployments import agent_signal_target
from swconfig.db.deployments import deployment_events_add
from swconfig.db.deployments import signal_deployments_lock
from swconfig.db.deployments import software_deployment_count
from swconfig.db.deployments import software_deployment_create
from swconfig.db.deployments import software_deployment_delete
from swconfig.db.deployments import software_deployment_event_get_all
from swconfig.db.deployments import software_deployment_get
from swconfig.db.deployments import software_deployment_get_all
from swconfig.db.deployments import software_deployment_time_out
from swconfig.db.deployments import software_deployment_timed_out
from swconfig.db.deployments import software_deployment_update
from swconfig.db.deployments import software_deployment_versions
from swconfig.db.deployments import software_deployments_apply
from swconfig.db.deployments import software_deployments_waiting
from swconfig.db.purge import purge_finished
from swconfig.db.request_keys import request_key_add
from swconfig.db.request_keys import request_key_get
from swconfig.db.request_keys import request_key_purge
from swconfig.db.servers import agent_server_changes
from swconfig.db.servers import agent_server_changes_purge
from swconfig.db.servers import agent_server_document
from swconfig.db.servers import agent_server_documents
from swconfig.db.servers import server_claim
from swconfig.db.servers import server_delete
from swconfig.db.servers import server_deployment_configs
from swconfig.db.servers import server_document_get
from swconfig.db.servers import server_document_store
from swconfig.db.servers import server_get
from swconfig.db.servers import server_get_all
from swconfig.db.servers import server_owner
from swconfig.db.servers import server_push_done
from swconfig.db.servers import server_push_pending
from swconfig.db.session import is_outage
from swconfig.db.session import reader
from swconfig.db.session import writer
from swconfig.db.signal_inbox import agent_signal_insert
from swconfig.db.signal_inbox import signal_inbox_add
from swconfig.db.signal_inbox import signal_inbox_add_once
from swconfig.db.signal_inbox import signal_inbox_claim
from swconfig.db.signal_inbox import signal_inbox_finish
from swconfig.db.signal_inbox import signal_inbox_first_pending
from swconfig.db.signal_inbox import signal_inbox_pending
from swconfig.db.signal_inbox import signal_inbox_pending_upto

# The facade: what the API and the engine may call. The signal inbox and
# the agents' hot path live in modules of their own and are part of it.
__all__ = [
    'reader', 'writer', 'ping', 'is_outage',
    # software configs
    'software_config_create', 'software_config_get',
    'software_config_get_all', 'software_config_count',
    'software_config_delete',
    # software deployments and their events
    'software_deployment_create', 'software_deployment_get',
    'software_deployment_get_all', 'software_deployment_count',
    'software_deployment_update', 'software_deployment_delete',
    'software_deployment_event_get_all', 'software_deployment_timed_out',
    'software_deployment_time_out',
    'deployment_events_add',
    # servers and their metadata documents
    'server_claim', 'server_get', 'server_get_all', 'server_owner',
    'server_delete', 'server_document_get', 'server_deployment_configs',
    'server_document_store',
    # the signal inbox
    'signal_inbox_add', 'signal_inbox_claim', 'signal_inbox_finish',
    'signal_inbox_first_pending', 'signal_inbox_pending',
    'signal_inbox_pending_upto', 'signal_deployments_lock',
    'software_deployments_apply',
    # the agents' hot path
    'agent_server_document', 'agent_server_documents',
    'agent_signal_target', 'agent_signal_insert',
    'agent_server_changes', 'agent_server_changes_purge',
    # the Swift and Zaqar transports' workers
    'signal_inbox_add_once', 'software_deployments_waiting',
    'server_push_pending', 'server_push_done',
    # purging what finished deployments leave behind
    'purge_finished',
    # deployment actions: idempotency keys of triggers, long polls
    'request_key_get', 'request_key_add', 'request_key_purge',
    'software_deployment_versions',
]


def ping() -> None:
    """One round trip to the database (for the health check); raises
    what the driver raises when it is unreachable."""
    with session.get_engine().connect() as connection:
        connection.execute(sa.text('SELECT 1'))
