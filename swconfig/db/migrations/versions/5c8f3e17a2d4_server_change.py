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

"""The server change log: what API workers' metadata caches drop.

Revision ID: 5c8f3e17a2d4
Revises: 7d4e2a91c5b3
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa

from swconfig.db import types

revision = '5c8f3e17a2d4'
down_revision = '7d4e2a91c5b3'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'server_change',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('server_id', sa.String(255), nullable=False),
        sa.Column('changed_at', types.timestamp(), nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_server_change'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_server_change_changed_at', 'server_change',
                    ['changed_at'])
