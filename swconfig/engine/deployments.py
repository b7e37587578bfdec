"""Creating, updating and deleting software deployments: the engine's side.

Two ways in: Heat's raw one (the client sends an already-derived config,
``signal_transport`` absent) and server-side derivation (the engine derives
the config and issues the signal transport). Either way the server is
claimed for the caller's project and its agent document re-rendered. Every
update is a conditional write on the row's ``version``; on a collision the
update is decided again on fresh data.
"""

import datetime
from typing import Any

from oslo_log import log
from oslo_utils import timeutils
from oslo_utils import uuidutils

from swconfig import transports
from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import configs
from swconfig.engine import deriving
from swconfig.engine import metadata
from swconfig.engine import servers

LOG = log.getLogger(__name__)

UPDATABLE = ('config_id', 'input_values', 'output_values', 'action',
             'status', 'status_reason')
UPDATE_ATTEMPTS = 5


def _check_create(context: Any, server_id: str, config_id: str,
                  stack_user_project_id: str | None) -> dict:
    if not server_id:
        raise exception.InvalidParameterValue(
            reason='"server_id" is required.')
    if stack_user_project_id is not None and len(stack_user_project_id) > 64:
        raise exception.Invalid(reason='"stack_user_project_id" should be '
                                       'no more than 64 characters')
    # Visibility of the config is part of the contract: another project's
    # config is "not found", exactly as on GET.
    config = db_api.software_config_get(context, config_id)
    limit = CONF.max_software_deployments_per_tenant
    # Counting is skipped when nothing would be refused, and stops at the
    # limit otherwise: the check costs the same with 100,000 deployments.
    count = (0 if context.is_admin or limit < 0
             else db_api.software_deployment_count(context, at_most=limit))
    configs.check_quota(context, count, limit, 'software deployments')
    return config


def create(context: Any, server_id: str, config_id: str,
           input_values: dict | None = None, action: str | None = None,
           status: str | None = None, status_reason: str | None = None,
           stack_user_project_id: str | None = None,
           signal_transport: str | None = None, name: str | None = None,
           timeout: int | None = None, base_url: str | None = None) -> dict:
    """Create a deployment; with ``signal_transport`` the engine derives
    the config and issues the transport (``default``: the operator's)."""
    values = {
        'id': uuidutils.generate_uuid(),
        'server_id': server_id,
        'input_values': input_values or {},
        'tenant': context.project_id,
        'stack_user_project_id': stack_user_project_id,
    }
    # One transaction: the checks, the claim of the server, the derived
    # config, the deployment with its event, and the server's document.
    with db_api.writer.using(context):
        source = _check_create(context, server_id, config_id,
                               stack_user_project_id)
        server = servers.claim(context, server_id, base_url)
        if signal_transport is None:
            values.update(config_id=config_id, action=action, status=status,
                          status_reason=status_reason)
        else:
            values.update(_derive(context, source, server, values['id'],
                                  action or 'CREATE', values['input_values'],
                                  signal_transport, name, timeout))
        row = db_api.software_deployment_create(context, values)
        rendered = metadata.render_in_transaction(context, server)
    LOG.info('Created deployment %(id)s of config %(config_id)s on server '
             '%(server_id)s (%(action)s %(status)s, transport '
             '%(signal_transport)s)', row)
    if not rendered:
        metadata.render(server_id)
    return row


def _derive(context: Any, source: dict, server: dict, deployment_id: str,
            action: str, input_values: dict, transport_name: str,
            name: str | None, timeout: int | None) -> dict:
    """Derive and store the config for revision 1 of a new deployment;
    return the deployment's values that follow from it."""
    if transport_name == 'default':
        transport_name = CONF.default_deployment_signal_transport
    transport = transports.get(transport_name)
    derived = db_api.software_config_create(context, deriving.derive(
        source, server, deployment_id, 1, action, input_values, transport,
        name=name))
    values = {'config_id': derived['id'], 'source_config_id': source['id'],
              'signal_transport': transport.name, 'action_revision': 1,
              'action': action}
    if not transport.waits_for_signal:
        values.update(status='COMPLETE',
                      status_reason='Not waiting for outputs signal')
        return values
    values.update(status='IN_PROGRESS', status_reason='Deploy data available')
    timeout = CONF.default_deployment_timeout if timeout is None else timeout
    if timeout:
        values['timeout_at'] = (timeutils.utcnow()
                                + datetime.timedelta(seconds=timeout))
    return values


def update(context: Any, deployment_id: str, values: dict) -> dict:
    """Apply the given fields; ``None`` means "not given" (unlike Heat,
    falsy values such as ``""`` or ``{}`` are applied)."""
    values = {key: value for key, value in values.items()
              if key in UPDATABLE and value is not None}
    if 'config_id' in values:
        db_api.software_config_get(context, values['config_id'])
    for _attempt in range(UPDATE_ATTEMPTS):
        current = db_api.software_deployment_get(context, deployment_id)
        try:
            row = db_api.software_deployment_update(
                context, deployment_id, current['version'], values)
        except exception.ConcurrentUpdate:
            LOG.debug('Deployment %s changed under us; retrying',
                      deployment_id)
            continue
        LOG.info('Updated deployment %s: %s', deployment_id,
                 ', '.join(sorted(values)) or 'no fields')
        metadata.render(row['server_id'])
        return row
    raise exception.ConcurrentUpdate(deployment_id=deployment_id)


def delete(context: Any, deployment_id: str) -> None:
    with db_api.writer.using(context):
        row = db_api.software_deployment_delete(context, deployment_id)
        if row['source_config_id'] is not None:
            # The engine derived that config for this deployment alone.
            db_api.software_config_delete(context, row['config_id'])
    LOG.info('Deleted deployment %(id)s on server %(server_id)s', row)
    metadata.render(row['server_id'])

