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

"""Servers record when their agent last polled: ``server.last_poll_at``
(NULL until the first poll), written by the API workers in batches.

Revision ID: e8f1a6c3b274
Revises: c41e7a2b9d58
Create Date: 2026-12-05
"""

from alembic import op
import sqlalchemy as sa

from swconfig.db import types

revision = 'e8f1a6c3b274'
down_revision = 'c41e7a2b9d58'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('server') as batch:
        batch.add_column(sa.Column('last_poll_at', types.timestamp(),
                                   nullable=True))
