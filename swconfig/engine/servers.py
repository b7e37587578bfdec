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

"""Server registration: which project a server id belongs to, and the
server's labels.

A server belongs to one project, registered explicitly (setting its
labels is explicit too) or by the first deployment naming it (unless
``implicit_server_registration`` is off). No
other project can deploy to it, read its metadata or list its deployments,
which closes the hole Heat's designers worried about ("any tenant user can
create a deployment for any server").
"""

from oslo_db import api as oslo_db_api
from oslo_db import exception as db_exc
from oslo_log import log

from swconfig import transports
from swconfig.common import exception
from swconfig.common import urls
from swconfig.common.context import RequestContext
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import metadata

LOG = log.getLogger(__name__)


def claim(context: RequestContext, server_id: str,
          explicit: bool = False) -> dict:
    """The server row for a deployment (or registration) by the caller."""
    return db_api.server_claim(
        context, server_id, urls.agent_base_url(),
        create=explicit or CONF.implicit_server_registration,
        config_transport=CONF.default_software_config_transport)


def claim_many(context: RequestContext,
               server_ids: list[str]) -> dict[str, dict]:
    """``claim`` of several servers (for a list of deployments), in the
    caller's writer transaction: {server id: row}."""
    return db_api.server_claim_many(
        context, server_ids, urls.agent_base_url(),
        create=CONF.implicit_server_registration,
        config_transport=CONF.default_software_config_transport)


def claim_preview(context: RequestContext, server_id: str,
                  row: dict | None) -> dict:
    """The row ``claim`` would give for a deployment, from ``row`` as
    read (None: nobody registered the server), without writing anything;
    refused as ``claim`` would refuse it."""
    db_api.server_claimable(context, server_id, row,
                            CONF.implicit_server_registration)
    if row is not None:
        return row
    return db_api.new_server_row(context, server_id, urls.agent_base_url(),
                                 CONF.default_software_config_transport)


def register(context: RequestContext, server_id: str) -> dict:
    server = claim(context, server_id, explicit=True)
    metadata.render(server_id)
    LOG.info('Server %s registered to project %s', server_id,
             server['tenant'])
    return db_api.server_get(context, server_id)


# Two requests registering the same new server both insert its row: the
# second meets the first's once it commits, and starts again.
@oslo_db_api.wrap_db_retry(max_retries=5, retry_interval=0.05,
                           max_retry_interval=1, jitter=True,
                           retry_on_deadlock=True,
                           exception_checker=lambda exc: isinstance(
                               exc, db_exc.DBDuplicateEntry))
def set_labels(context: RequestContext, server_id: str,
               labels: dict[str, str]) -> dict:
    """Make ``labels`` all the server's labels (the API validated them),
    registering the server for the caller's project if it is new: naming
    a server in a PUT is as explicit as registering it. The server
    (without its document) with its ``labels``."""
    with db_api.writer.using(context):
        server = claim(context, server_id, explicit=True)
        db_api.server_labels_replace(context, server_id, server['tenant'],
                                     labels)
        # A server registered here has no document yet.
        rendered = (server['etag'] is not None
                    or metadata.render_in_transaction(context, server))
    if not rendered:
        metadata.render(server_id)
    LOG.info('Labels of server %s set: %s', server_id,
             ', '.join(f'{key}={value}' for key, value
                       in sorted(labels.items())) or 'none')
    row = db_api.server_get(context, server_id)
    row.pop('document', None)
    return {**row, 'labels': dict(labels)}


def unregister(context: RequestContext, server_id: str) -> None:
    server = db_api.server_get(context, server_id)
    db_api.server_delete(context, server_id)
    LOG.info('Server %s unregistered', server_id)
    transport = transports.get_metadata(server['config_transport'])
    try:
        transport.forget(server_id)
    except exception.BackendUnavailable as exc:
        LOG.warning('Could not remove what %s holds for unregistered '
                    'server %s: %s', transport.name, server_id, exc)


def agent_config(context: RequestContext, server_id: str) -> dict:
    """The agent bootstrap settings; claims the server if it is new."""
    server = claim(context, server_id)
    metadata.render(server_id)
    return metadata.agent_config(server)
