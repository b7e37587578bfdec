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

"""Building contexts and rows for the DB tests."""

import datetime
import itertools
import uuid

from oslo_utils import uuidutils

from swconfig.common import context as swconfig_context
from swconfig.db import api as db_api

_CLOCK = itertools.count()
EPOCH = datetime.datetime(2030, 1, 1)


def tick() -> datetime.datetime:
    """Strictly increasing timestamps, so created_at orderings are exact."""
    return EPOCH + datetime.timedelta(seconds=next(_CLOCK))


def new_project() -> str:
    return f'p-{uuid.uuid4().hex[:12]}'


def context_for(project, roles=('member', 'reader'), is_admin=False):
    return swconfig_context.RequestContext(
        project_id=project, user_id='u', roles=list(roles),
        is_admin=is_admin)


def make_config(context, name='cfg', **values):
    values = {'id': uuidutils.generate_uuid(), 'name': name,
              'group': 'script', 'config': '#!/bin/sh\necho hi',
              'inputs': [{'name': 'a', 'type': 'String'}], 'outputs': [],
              'options': {}, 'tenant': context.project_id,
              'created_at': tick(), **values}
    return db_api.software_config_create(context, values)


def make_deployment(context, config_id, server_id='server-1', **values):
    values = {'id': uuidutils.generate_uuid(), 'config_id': config_id,
              'server_id': server_id, 'input_values': {},
              'action': 'CREATE', 'status': 'IN_PROGRESS',
              'status_reason': 'Deploy data available',
              'tenant': context.project_id, 'created_at': tick(), **values}
    return db_api.software_deployment_create(context, values)
