"""The database facade: ``<entity>_<verb>(context, ...)`` functions.

Readers and writers use oslo.db's enginefacade with the request context as
the transaction holder. Every query that returns project data is scoped to
the caller's project inside the query itself (admins are not scoped), so an
object of another project is simply "not found". Functions return plain
dicts, never live ORM objects.
"""


from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.db import models
from swconfig.db import queries
from swconfig.db import session
from swconfig.db.agent_path import agent_server_changes
from swconfig.db.agent_path import agent_server_changes_purge
from swconfig.db.agent_path import agent_server_document
from swconfig.db.agent_path import agent_server_documents
from swconfig.db.agent_path import agent_signal_insert
from swconfig.db.agent_path import agent_signal_target
from swconfig.db.configs import software_config_count
from swconfig.db.configs import software_config_create
from swconfig.db.configs import software_config_delete
from swconfig.db.configs import software_config_get
from swconfig.db.configs import software_config_get_all
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
from swconfig.db.remote_transports import server_push_done
from swconfig.db.remote_transports import server_push_pending
from swconfig.db.request_keys import request_key_add
from swconfig.db.request_keys import request_key_get
from swconfig.db.request_keys import request_key_purge
from swconfig.db.session import is_outage
from swconfig.db.session import reader
from swconfig.db.session import writer
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


_CONFIG = models.SoftwareConfig.__table__
_DEPLOYMENT = models.SoftwareDeployment.__table__
_EVENT = models.DeploymentEvent.__table__
_SERVER = models.Server.__table__
_SERVER_CHANGE = models.ServerChange.__table__
_INSERT_SERVER = sa.insert(_SERVER)
_SERVER_LOCK = sa.select(*(column for column in _SERVER.columns
                           if column.key != 'document')).where(
    _SERVER.c.id == sa.bindparam('server_id')).with_for_update()
# The renderer's input: every deployment of a server with its config.
# Of a deployment only what ``metadata.stays_in_document`` and
# ``document_changes`` read: decoding its inputs and outputs (JSON) and
# timestamps was a third of a render's CPU.
RENDER_DEPLOYMENT_COLUMNS = ('id', 'config_id', 'action', 'status',
                             'status_reason')
_SERVER_DEPLOYMENT_CONFIGS = (
    sa.select(*(_DEPLOYMENT.c[name].label(f'd_{name}')
                for name in RENDER_DEPLOYMENT_COLUMNS),
              *queries.labelled_columns(models.SoftwareConfig, 'c_'))
    .join(_CONFIG, _DEPLOYMENT.c.config_id == _CONFIG.c.id)
    .where(_DEPLOYMENT.c.server_id == sa.bindparam('server_id'))
    .order_by(_DEPLOYMENT.c.created_at.asc(), _DEPLOYMENT.c.id.asc()))
_SERVER_DOCUMENT_STORE = (
    sa.update(_SERVER)
    .where(_SERVER.c.id == sa.bindparam('server_id'),
           _SERVER.c.document_revision == sa.bindparam('expected_revision'))
    .values(document=sa.bindparam('document'), etag=sa.bindparam('etag'),
            document_revision=sa.bindparam('revision'),
            updated_at=sa.bindparam('now'),
            push_pending=sa.bindparam('push')))
# Every write of a server's document, token revision or existence logs a
# change in the same transaction: API workers' metadata caches read it.
_INSERT_SERVER_CHANGE = sa.insert(_SERVER_CHANGE)


# -- software deployments ---------------------------------------------------


@reader
def server_document_get(context: RequestContext,
                        server_id: str) -> str | None:
    """The server's pre-rendered metadata document (JSON text), as its
    agent receives it; None when nobody registered the server. The
    owner, an admin, and a stack user project of one of its deployments
    may read it; anybody else is refused."""
    server = models.Server
    row = context.session.execute(
        sa.select(server.tenant, server.document)
        .where(server.id == server_id)).first()
    if row is None:
        return None
    if context.is_admin or row.tenant == context.project_id:
        return row.document
    deployment = models.SoftwareDeployment
    stack_user = context.session.scalar(
        sa.select(deployment.id)
        .where(deployment.server_id == server_id,
               deployment.stack_user_project_id == context.project_id)
        .limit(1))
    if stack_user is None:
        raise exception.ServerOwnedByOtherProject(server_id=server_id)
    return row.document


# -- servers ----------------------------------------------------------------

@writer
def server_claim(context: RequestContext, server_id: str, base_url: str | None,
                 create: bool = True,
                 config_transport: str | None = None) -> dict:
    """The server row without its document, locked for the rest of the
    caller's transaction, and registered for the caller's project (with
    ``config_transport``) if it is new (unless ``create`` is false: then
    an unknown server is not registered).

    The lock comes first and serializes the changes of one server (e.g.
    the deployments of a Heat stack created at once), so they neither
    deadlock nor render its document over each other. Two transactions
    registering the same new server: the second fails with
    DBDuplicateEntry once the first commits, and is retried whole by its
    caller. A server belongs to the project that first claimed it;
    anybody else (but an admin) is refused.
    """
    connection = context.session.connection()
    row = connection.execute(_SERVER_LOCK, {'server_id': server_id}).first()
    if row is None and not create:
        raise exception.ServerNotRegistered(server_id=server_id)
    if row is None:
        now = timeutils.utcnow()
        server = {'id': server_id, 'tenant': context.project_id,
                  'base_url': base_url, 'token_revision': 1,
                  'document_revision': 0, 'etag': None, 'created_at': now,
                  'updated_at': now, 'config_transport': config_transport,
                  'push_pending': False}
        connection.execute(_INSERT_SERVER, server)
        return server
    if row.tenant != context.project_id and not context.is_admin:
        raise exception.ServerOwnedByOtherProject(server_id=server_id)
    return row._asdict()


@reader
def server_get(context: RequestContext, server_id: str) -> dict:
    row = context.session.get(models.Server, server_id)
    if row is None or (row.tenant != context.project_id
                       and not context.is_admin):
        raise exception.ServerNotFound(server_id=server_id)
    return row.to_dict()


@reader
def server_get_all(context: RequestContext) -> list[dict]:
    model = models.Server
    query = sa.select(model).order_by(model.created_at, model.id)
    if not context.is_admin:
        query = query.where(model.tenant == context.project_id)
    return [row.to_dict() for row in context.session.scalars(query)]


@reader
def server_owner(context: RequestContext, server_id: str) -> str | None:
    """The project owning ``server_id``, or None if nobody registered it."""
    return context.session.scalar(
        sa.select(models.Server.tenant).where(models.Server.id == server_id))


@writer
def server_delete(context: RequestContext, server_id: str) -> None:
    """Forget a server; refused while any deployment targets it."""
    row = context.session.get(models.Server, server_id)
    if row is None or (row.tenant != context.project_id
                       and not context.is_admin):
        raise exception.ServerNotFound(server_id=server_id)
    in_use = context.session.scalar(
        sa.select(models.SoftwareDeployment.id).where(
            models.SoftwareDeployment.server_id == server_id).limit(1))
    if in_use is not None:
        raise exception.ServerInUse(server_id=server_id)
    context.session.delete(row)
    context.session.connection().execute(_INSERT_SERVER_CHANGE, {
        'server_id': server_id, 'changed_at': timeutils.utcnow()})


@reader
def server_deployment_configs(context: RequestContext,
                              server_id: str) -> list[dict]:
    """Every deployment of a server with its config, oldest first: the
    input of the metadata renderer. Core rows, not ORM objects: renders
    run for every change of every server. A deployment has only
    ``RENDER_DEPLOYMENT_COLUMNS``."""
    rows = context.session.connection().execute(
        _SERVER_DEPLOYMENT_CONFIGS, {'server_id': server_id})
    return [queries.split_row(row, deployment='d_', config='c_')
            for row in rows]


@writer
def server_document_store(context: RequestContext, server_id: str,
                          expected_revision: int, document: str,
                          etag: str, push: bool = False) -> bool:
    """Store a newly rendered document unless someone rendered since, and
    log the change for the API workers' metadata caches; ``push`` marks it
    for an engine to push to the server's Swift object or Zaqar queue."""
    connection = context.session.connection()
    now = timeutils.utcnow()
    changed = connection.execute(_SERVER_DOCUMENT_STORE, {
        'server_id': server_id, 'expected_revision': expected_revision,
        'document': document, 'etag': etag,
        'revision': expected_revision + 1, 'now': now,
        'push': push}).rowcount
    if changed != 1:
        return False
    connection.execute(_INSERT_SERVER_CHANGE,
                       {'server_id': server_id, 'changed_at': now})
    return True


def ping() -> None:
    """One round trip to the database (for the health check); raises
    what the driver raises when it is unreachable."""
    with session.get_engine().connect() as connection:
        connection.execute(sa.text('SELECT 1'))
