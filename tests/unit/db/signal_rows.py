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


"""Signals, deployments and events as committed, read back past
swconfig.db.api, for the signal tests on every backend; and the signal
they store."""

from typing import Any

import sqlalchemy as sa

from swconfig.db import models

OUTPUTS = [{'name': 'result', 'type': 'String', 'error_output': False}]
#: A successful signal's payload, as heat-agents sends it.
DONE = {'result': 'ok', 'deploy_stdout': 'out', 'deploy_stderr': '',
        'deploy_status_code': 0}

INBOX = models.SignalInbox.__table__
DEPLOYMENT = models.SoftwareDeployment.__table__
EVENT = models.DeploymentEvent.__table__


def read_rows(facade: Any, table: sa.Table, *where: Any) -> list[dict]:
    """Rows as committed, read back past swconfig.db.api."""
    query = sa.select(table).where(*where).order_by(table.c.id)
    with facade.writer.get_engine().connect() as connection:
        return [row._asdict() for row in connection.execute(query)]


def inbox_rows(facade: Any, ids: list[int]) -> dict[int, dict]:
    """The stored signals ``ids``, by id."""
    return {row['id']: row for row in read_rows(facade, INBOX,
                                                INBOX.c.id.in_(ids))}


def deployment_row(facade: Any, deployment_id: str) -> dict:
    [row] = read_rows(facade, DEPLOYMENT, DEPLOYMENT.c.id == deployment_id)
    return row


def events_of(facade: Any, deployment_id: str) -> list[tuple]:
    """The deployment's events as (old status, new status, reason)."""
    return [(e['old_status'], e['new_status'], e['reason'])
            for e in read_rows(facade, EVENT,
                               EVENT.c.deployment_id == deployment_id)]
