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

"""The agent path: servers with pre-rendered metadata, the signal inbox,
and server-side derivation columns on deployments.

Revision ID: 7d4e2a91c5b3
Revises: 3b1f0c2d9a10
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

from swconfig.db import types

revision = '7d4e2a91c5b3'
down_revision = '3b1f0c2d9a10'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('software_deployment') as batch:
        batch.add_column(sa.Column('source_config_id', sa.String(36),
                                   nullable=True))
        batch.add_column(sa.Column('signal_transport', sa.String(32),
                                   nullable=True))
        batch.add_column(sa.Column('action_revision', sa.Integer(),
                                   nullable=False, server_default='0'))
        batch.add_column(sa.Column('timeout_at', types.timestamp(),
                                   nullable=True))
        batch.create_foreign_key(
            'fk_software_deployment_source_config_id_software_config',
            'software_config', ['source_config_id'], ['id'])
        batch.create_index('ix_software_deployment_source_config_id',
                           ['source_config_id'])
        batch.create_index('ix_software_deployment_status_timeout_at',
                           ['status', 'timeout_at'])

    op.create_table(
        'server',
        sa.Column('id', sa.String(255), nullable=False),
        sa.Column('tenant', sa.String(64), nullable=False),
        sa.Column('base_url', sa.String(255), nullable=True),
        sa.Column('token_revision', sa.Integer(), nullable=False),
        sa.Column('document', types.long_text(), nullable=True),
        sa.Column('etag', sa.String(64), nullable=True),
        sa.Column('document_revision', sa.Integer(), nullable=False),
        sa.Column('created_at', types.timestamp(), nullable=False),
        sa.Column('updated_at', types.timestamp(), nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_server'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')

    op.create_table(
        'signal_inbox',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('deployment_id', sa.String(36), nullable=False),
        sa.Column('action_revision', sa.Integer(), nullable=False),
        sa.Column('payload', types.Json(), nullable=True),
        sa.Column('received_at', types.timestamp(), nullable=False),
        sa.Column('processed_at', types.timestamp(), nullable=True),
        sa.Column('result', sa.String(32), nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_signal_inbox'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_signal_inbox_processed_at_id', 'signal_inbox',
                    ['processed_at', 'id'])
    op.create_index('ix_signal_inbox_deployment_id', 'signal_inbox',
                    ['deployment_id'])
