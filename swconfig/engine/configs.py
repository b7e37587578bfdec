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

"""Creating and deleting software configs: the engine's side."""

from typing import Any

from oslo_log import log
from oslo_utils import uuidutils

from swconfig.common import components
from swconfig.common import config_io
from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.conf import CONF
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)


def check_quota(context: RequestContext, count: int, limit: int,
                what: str, adding: int = 1) -> None:
    """Heat's per-project quotas: reported as 400 RequestLimitExceeded.
    ``count`` the project has, ``adding`` more asked for (a list of
    deployments counts whole)."""
    if context.is_admin or limit < 0 or count + adding <= limit:
        return
    plural = what.split()[-1]
    if count >= limit:
        raise exception.RequestLimitExceeded(
            detail=f'You have reached the maximum {what} per tenant, '
                   f'{limit}. Please delete some {plural}.')
    raise exception.RequestLimitExceeded(
        detail=f'This request would make {count + adding} {what}, more '
               f'than the maximum per tenant, {limit}; the project has '
               f'{count}. Please delete some {plural} or ask for fewer.')


def create(context: RequestContext, name: str | None, group: str | None,
           config: Any,
           inputs: Any, outputs: Any, options: Any) -> dict:
    """Validate, normalise and store a new immutable config."""
    if group == components.GROUP:
        components.check(name, config)
    values = {
        'id': uuidutils.generate_uuid(),
        'name': name,
        'group': group,
        'config': config,
        'inputs': config_io.normalise_inputs(inputs),
        'outputs': config_io.normalise_outputs(outputs),
        'options': {} if options is None else options,
        'tenant': context.project_id,
    }
    check_quota(context, db_api.software_config_count(context),
                CONF.max_software_configs_per_tenant, 'software configs')
    row = db_api.software_config_create(context, values)
    LOG.info('Created software config %(id)s (%(name)s, group %(group)s) '
             'in project %(tenant)s', row)
    return row


def delete(context: RequestContext, config_id: str) -> None:
    db_api.software_config_delete(context, config_id)
    LOG.info('Deleted software config %s', config_id)
