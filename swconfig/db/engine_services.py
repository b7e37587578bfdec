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

"""Engine heartbeats: which engines run, as the database records it.
Part of the DB facade (``swconfig.db.api``).

Each engine process keeps a row of its own up to date
(``engine_service_beat``) and removes it when it stops cleanly; the API
counts the rows whose heartbeat is recent (``engine_services_live``)
before it calls an engine, so that with none running a request is
answered at once instead of after ``[engine] rpc_response_timeout``.
This is Heat's service table and Nova's database service group: it needs
no coordination backend, only the database every engine already uses.
"""

import datetime

from oslo_utils import timeutils
import sqlalchemy as sa

from swconfig.common.context import RequestContext
from swconfig.conf import CONF
from swconfig.db import models
from swconfig.db.session import reader
from swconfig.db.session import writer

_SERVICE = models.EngineService.__table__
#: Heartbeats an engine may miss before it no longer counts as running:
#: one late beat (a slow database, a busy host) is not a dead engine.
MISSED_BEATS = 3


def heartbeat_window() -> float:
    """Seconds within which an engine's last heartbeat counts it as
    running."""
    return MISSED_BEATS * CONF.engine.database_heartbeat_interval


def _cutoff(now: datetime.datetime | None = None) -> datetime.datetime:
    now = now or timeutils.utcnow()
    return now - datetime.timedelta(seconds=heartbeat_window())


@writer
def engine_service_beat(context: RequestContext, service_id: str,
                        host: str, topic: str, pid: int | None) -> bool:
    """Record a heartbeat of engine ``service_id``; True when this made
    its row (the first beat, or again after the row was removed)."""
    connection = context.session.connection()
    now = timeutils.utcnow()
    updated = connection.execute(
        sa.update(_SERVICE).where(_SERVICE.c.id == service_id)
        .values(heartbeat_at=now)).rowcount
    if updated:
        return False
    connection.execute(sa.insert(_SERVICE).values(
        id=service_id, host=host, topic=topic, pid=pid, created_at=now,
        heartbeat_at=now))
    return True


@writer
def engine_service_prune(context: RequestContext, host: str,
                         topic: str) -> int:
    """Remove the rows of engines on ``host`` and ``topic`` whose
    heartbeat has stopped (engines killed before they could remove their
    own); returns how many. Live engines on the same host keep theirs."""
    return context.session.connection().execute(
        sa.delete(_SERVICE).where(_SERVICE.c.host == host,
                                  _SERVICE.c.topic == topic,
                                  _SERVICE.c.heartbeat_at < _cutoff())
    ).rowcount


@writer
def engine_service_remove(context: RequestContext, service_id: str) -> None:
    """Remove engine ``service_id``'s row: it stopped."""
    context.session.connection().execute(
        sa.delete(_SERVICE).where(_SERVICE.c.id == service_id))


@reader
def engine_services_live(context: RequestContext, topic: str) -> int:
    """How many engines on ``topic`` recorded a heartbeat within the
    window (one indexed query)."""
    return context.session.connection().scalar(
        sa.select(sa.func.count()).select_from(_SERVICE).where(
            _SERVICE.c.topic == topic, _SERVICE.c.heartbeat_at >= _cutoff()))
