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

"""Rollouts: ``rollout`` (one request's work over many servers),
``rollout_target`` (each server of it, in the order it starts, with its
deployment once started) and ``rollout_event``. New tables only.

Revision ID: c41e7a2b9d58
Revises: 2b066bcaffad
Create Date: 2026-12-03
"""

from alembic import op
import sqlalchemy as sa

from swconfig.db import types

revision = 'c41e7a2b9d58'
down_revision = '2b066bcaffad'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'rollout',
        sa.Column('id', sa.String(36), nullable=False),
        sa.Column('tenant', sa.String(64), nullable=False),
        sa.Column('status', sa.String(32), nullable=False),
        sa.Column('status_reason', sa.Text(), nullable=True),
        sa.Column('target', types.Json(), nullable=False),
        sa.Column('work', types.Json(), nullable=False),
        sa.Column('max_concurrency', sa.String(16), nullable=False),
        sa.Column('max_errors', sa.String(16), nullable=False),
        sa.Column('created_at', types.timestamp(), nullable=False),
        sa.Column('started_at', types.timestamp(), nullable=True),
        sa.Column('finished_at', types.timestamp(), nullable=True),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_rollout'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_rollout_tenant_created_at', 'rollout',
                    ['tenant', 'created_at'])
    op.create_index('ix_rollout_status', 'rollout', ['status'])
    op.create_table(
        'rollout_target',
        sa.Column('rollout_id', sa.String(36), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('server_id', sa.String(255), nullable=False),
        sa.Column('deployment_id', sa.String(36), nullable=True),
        sa.Column('state', sa.String(32), nullable=False),
        sa.Column('started_at', types.timestamp(), nullable=True),
        sa.Column('finished_at', types.timestamp(), nullable=True),
        sa.PrimaryKeyConstraint('rollout_id', 'position',
                                name='pk_rollout_target'),
        sa.ForeignKeyConstraint(
            ['rollout_id'], ['rollout.id'],
            name='fk_rollout_target_rollout_id_rollout', ondelete='CASCADE'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_rollout_target_rollout_id_state', 'rollout_target',
                    ['rollout_id', 'state'])
    op.create_table(
        'rollout_event',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('rollout_id', sa.String(36), nullable=False),
        sa.Column('event', sa.String(32), nullable=False),
        sa.Column('reason', sa.Text(), nullable=True),
        sa.Column('created_at', types.timestamp(), nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_rollout_event'),
        sa.ForeignKeyConstraint(
            ['rollout_id'], ['rollout.id'],
            name='fk_rollout_event_rollout_id_rollout', ondelete='CASCADE'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_rollout_event_rollout_id', 'rollout_event',
                    ['rollout_id'])
