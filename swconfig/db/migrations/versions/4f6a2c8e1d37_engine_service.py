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

"""Engine heartbeats: a row per running engine process.

Revision ID: 4f6a2c8e1d37
Revises: 665b9c058ef9
Create Date: 2026-11-25
"""

from alembic import op
import sqlalchemy as sa

from swconfig.db import types

revision = '4f6a2c8e1d37'
down_revision = '665b9c058ef9'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'engine_service',
        sa.Column('id', sa.String(36), nullable=False),
        sa.Column('host', sa.String(255), nullable=False),
        sa.Column('topic', sa.String(255), nullable=False),
        sa.Column('pid', sa.Integer(), nullable=True),
        sa.Column('created_at', types.timestamp(), nullable=False),
        sa.Column('heartbeat_at', types.timestamp(), nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_engine_service'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_engine_service_topic_heartbeat_at',
                    'engine_service', ['topic', 'heartbeat_at'])
