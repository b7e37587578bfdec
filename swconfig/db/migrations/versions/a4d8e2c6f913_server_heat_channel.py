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

"""Servers may keep the channel Heat pushed their document through
(``server.heat_channel``, sealed): the Swift TempURL or Zaqar queue a
server cut over from Heat still reads (``swconfig-manage heat-cutover``).
NULL for every other server. Expand only.

Revision ID: a4d8e2c6f913
Revises: f3b7d2a91c64
Create Date: 2026-12-07
"""

from alembic import op
import sqlalchemy as sa

from swconfig.db import types

revision = 'a4d8e2c6f913'
down_revision = 'f3b7d2a91c64'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('server') as batch:
        batch.add_column(sa.Column('heat_channel', types.long_text(),
                                   nullable=True))
