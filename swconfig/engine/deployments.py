"""Creating, updating and deleting software deployments: the engine's side.

This module keeps Heat's raw deployment semantics (the client sends an
already-derived config). Every update is a conditional write on the row's
``version``; on a collision the update is decided again on fresh data.
"""

from typing import Any

from oslo_log import log
from oslo_utils import uuidutils

from swconfig.common import exception
from swconfig.conf import CONF
from swconfig.db import api as db_api
from swconfig.engine import configs

LOG = log.getLogger(__name__)

UPDATABLE = ('config_id', 'input_values', 'output_values', 'action',
             'status', 'status_reason')
UPDATE_ATTEMPTS = 5


def create(context: Any, server_id: str, config_id: str,
           input_values: dict | None = None, action: str | None = None,
           status: str | None = None, status_reason: str | None = None,
           stack_user_project_id: str | None = None) -> dict:
    if not server_id:
        raise exception.InvalidParameterValue(
            reason='"server_id" is required.')
    if stack_user_project_id is not None and len(stack_user_project_id) > 64:
        raise exception.Invalid(reason='"stack_user_project_id" should be '
                                       'no more than 64 characters')
    # Visibility of the config is part of the contract: another project's
    # config is "not found", exactly as on GET.
    db_api.software_config_get(context, config_id)
    configs.check_quota(context, db_api.software_deployment_count(context),
                        CONF.max_software_deployments_per_tenant,
                        'software deployments')
    row = db_api.software_deployment_create(context, {
        'id': uuidutils.generate_uuid(),
        'config_id': config_id,
        'server_id': server_id,
        'input_values': input_values or {},
        'action': action,
        'status': status,
        'status_reason': status_reason,
        'tenant': context.project_id,
        'stack_user_project_id': stack_user_project_id,
    })
    LOG.info('Created deployment %(id)s of config %(config_id)s on server '
             '%(server_id)s (%(action)s %(status)s)', row)
    return row


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
        return row
    raise exception.ConcurrentUpdate(deployment_id=deployment_id)


def delete(context: Any, deployment_id: str) -> None:
    row = db_api.software_deployment_delete(context, deployment_id)
    LOG.info('Deleted deployment %(id)s on server %(server_id)s', row)
