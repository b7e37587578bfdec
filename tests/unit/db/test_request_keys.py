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

"""Idempotency-Keys of creations and triggers: per project, expiring,
purged."""

import datetime

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import pytest

from swconfig.engine import idempotency

NOW = datetime.datetime(2030, 6, 1, 12, 0, 0, 500000)
DAY = datetime.timedelta(days=1)


def _key(ctx, key='k-1', expires_at=NOW + DAY, trigger='t-1'):
    return {'tenant': ctx.project_id, 'idempotency_key': key,
            'deployment_id': 'd-1', 'request_digest': 'a' * 64,
            'trigger_deployment_id': trigger, 'created_at': NOW - DAY,
            'expires_at': expires_at}


def test_a_live_key_is_found_in_its_project_only(db, ctx, other_ctx):
    db.request_key_add(ctx, _key(ctx))
    found = db.request_key_get(ctx, 'k-1', NOW)
    assert found['trigger_deployment_id'] == 't-1'
    assert db.request_key_get(other_ctx, 'k-1', NOW) is None
    # Another project may use the same key for its own trigger.
    db.request_key_add(other_ctx, _key(other_ctx, trigger='t-2'))
    assert db.request_key_get(other_ctx, 'k-1', NOW)[
        'trigger_deployment_id'] == 't-2'


def test_the_same_key_twice_is_a_duplicate(db, ctx):
    db.request_key_add(ctx, _key(ctx))
    with pytest.raises(db_exc.DBDuplicateEntry):
        db.request_key_add(ctx, _key(ctx, trigger='t-2'))


def test_an_expired_key_is_forgotten_and_can_be_used_again(db, ctx):
    db.request_key_add(ctx, _key(ctx, expires_at=NOW))
    assert db.request_key_get(ctx, 'k-1', NOW) is None
    db.request_key_add(ctx, _key(ctx, trigger='t-2'))
    assert db.request_key_get(ctx, 'k-1', NOW)[
        'trigger_deployment_id'] == 't-2'


def test_purge_removes_expired_keys_only(db, ctx, admin_ctx):
    db.request_key_add(ctx, _key(ctx, 'old', expires_at=NOW - DAY))
    db.request_key_add(ctx, _key(ctx, 'live'))
    assert db.request_key_purge(admin_ctx, NOW) == 1
    assert db.request_key_purge(admin_ctx, NOW) == 0
    assert db.request_key_get(ctx, 'live', NOW) is not None
    assert db.request_key_get(ctx, 'old', NOW - 2 * DAY) is None


def test_the_engines_task_purges_the_keys_expired_by_now(db, ctx):
    now = timeutils.utcnow()
    db.request_key_add(ctx, _key(ctx, 'old', expires_at=now - DAY))
    db.request_key_add(ctx, _key(ctx, 'live', expires_at=now + DAY))
    assert idempotency.purge_expired_keys() == 1
    assert idempotency.purge_expired_keys() == 0
    assert db.request_key_get(ctx, 'live', now) is not None
    assert db.request_key_get(ctx, 'old', now - 2 * DAY) is None
