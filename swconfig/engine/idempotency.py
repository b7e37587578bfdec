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

"""Idempotency-Keys of the requests that make deployments.

A client that lost the answer to a creation or a trigger (a timeout, a
503 while the message bus restarted) sends the request again with the
same ``Idempotency-Key`` header and gets the deployment the first try
made instead of a second one. The key is looked up and stored in the
writer transaction that makes the deployment, so two concurrent requests
with one key cannot both make one: the second meets the unique
constraint, starts again and finds the first's row. The engines purge
expired keys (``purge_expired_keys``, a periodic task).
"""

import datetime
import hashlib
import json

from oslo_log import log
from oslo_utils import timeutils

from swconfig.common import context as swconfig_context
from swconfig.common import exception
from swconfig.common.context import RequestContext
from swconfig.conf import CONF
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)


def digest(request: dict) -> str:
    """What was asked, as a digest: the same key with another request is
    refused."""
    text = json.dumps(request, sort_keys=True, separators=(',', ':'))
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def made_before(context: RequestContext, key: str | None,
                request_digest: str) -> str | None:
    """The id of the deployment the request with ``key`` made, inside the
    caller's writer transaction; None for no key or a new (or expired)
    one; IdempotencyKeyReused (422) when it came with another request."""
    if key is None:
        return None
    known = db_api.request_key_get(context, key, timeutils.utcnow())
    if known is None:
        return None
    if known['request_digest'] != request_digest:
        raise exception.IdempotencyKeyReused(key=key)
    return known['trigger_deployment_id']


def remember(context: RequestContext, key: str | None,
             request_digest: str, about_id: str, made_id: str) -> None:
    """Store ``key`` in the caller's writer transaction: the request
    about deployment ``about_id`` made deployment ``made_id``."""
    if key is None:
        return
    now = timeutils.utcnow()
    db_api.request_key_add(context, {
        'tenant': context.project_id, 'idempotency_key': key,
        'deployment_id': about_id, 'request_digest': request_digest,
        'trigger_deployment_id': made_id, 'created_at': now,
        'expires_at': now + datetime.timedelta(
            seconds=CONF.engine.idempotency_key_expiry)})


def purge_expired_keys() -> int:
    """The engines' periodic task: forget expired Idempotency-Keys (a
    bounded batch); returns how many."""
    admin = swconfig_context.get_admin_context()
    removed = db_api.request_key_purge(admin, timeutils.utcnow())
    if removed:
        LOG.info('Purged %d expired Idempotency-Key(s) of creations and '
                 'triggers', removed)
    return removed
