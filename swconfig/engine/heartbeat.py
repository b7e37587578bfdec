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

"""This engine's heartbeat: how the API knows an engine is running.

The engine records its first heartbeat when it starts, before it listens
on the message bus, then one every ``[engine]
database_heartbeat_interval`` seconds (a task of the periodic table,
``periodics.table``), and removes its row when it stops cleanly, so that
the API, which counts the recent heartbeats before each call
(``swconfig.engine.availability``), answers 503 at once when no engine
runs. A killed engine's row simply ages out.

There is one engine service per process (``swconfig-engine``'s worker,
or ``swconfig-all``), so the heartbeat is one object per process,
``BEAT``, started and stopped by ``EngineService``.
"""

import os
import uuid

from oslo_log import log

from swconfig.common import background
from swconfig.common import context as swconfig_context
from swconfig.conf import CONF
from swconfig.db import api as db_api

LOG = log.getLogger(__name__)


class Heartbeat(background.PeriodicTask):
    """Records this engine's heartbeat every interval, without backing
    off during a database outage (a beat is one small write, and an
    engine that beat late after the outage would look dead to the API)."""

    name = 'heartbeat'

    def __init__(self) -> None:
        self.service_id: str | None = None
        self.host = ''
        self.topic = ''
        self.context = swconfig_context.get_admin_context()

    def interval(self) -> float:
        return CONF.engine.database_heartbeat_interval

    def max_interval(self) -> float:
        return self.interval()

    def start(self, host: str) -> None:
        """Record the first heartbeat of the engine ``host`` now; a
        failure is logged, and the periodic task records it later."""
        self.service_id = str(uuid.uuid4())
        self.host = host
        self.topic = CONF.engine.topic
        try:
            pruned = db_api.engine_service_prune(self.context, host,
                                                 self.topic)
            self.beat()
        except Exception as exc:
            LOG.warning('Engine %s could not record its first heartbeat '
                        '(%s); the API counts it as running once it does',
                        host, exc)
            return
        LOG.info('Engine %s records a heartbeat every %s s (service %s%s)',
                 host, self.interval(), self.service_id,
                 f'; removed {pruned} stopped engine(s) of this host'
                 if pruned else '')

    def beat(self) -> None:
        if self.service_id is None:
            return  # not started, or stopped
        made = db_api.engine_service_beat(self.context, self.service_id,
                                          self.host, self.topic, os.getpid())
        if made:
            LOG.debug('Engine %s heartbeat row %s made', self.host,
                      self.service_id)

    def run(self, partition: background.Partition) -> None:
        self.beat()

    def stop(self) -> None:
        """Remove this engine's row: the API stops counting it at once."""
        service_id, self.service_id = self.service_id, None
        if service_id is None:
            return
        try:
            db_api.engine_service_remove(self.context, service_id)
        except Exception as exc:
            LOG.warning('Engine %s could not remove its heartbeat (%s); '
                        'the API counts it as running for up to %s s more',
                        self.host, exc, db_api.heartbeat_window())


#: The heartbeat of this process's engine.
BEAT = Heartbeat()
