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

"""Initial schema: software configs, deployments and deployment events.

Revision ID: 3b1f0c2d9a10
Revises:
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

from swconfig.db import types

revision = '3b1f0c2d9a10'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'software_config',
        sa.Column('id', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('group', sa.String(255), nullable=True),
        sa.Column('config', types.Json(), nullable=True),
        sa.Column('inputs', types.Json(), nullable=False),
        sa.Column('outputs', types.Json(), nullable=False),
        sa.Column('options', types.Json(), nullable=True),
        sa.Column('tenant', sa.String(64), nullable=False),
        sa.Column('created_at', types.timestamp(), nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_software_config'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_software_config_tenant_created_at',
                    'software_config', ['tenant', 'created_at'])
    op.create_index('ix_software_config_created_at',
                    'software_config', ['created_at'])

    op.create_table(
        'software_deployment',
        sa.Column('id', sa.String(36), nullable=False),
        sa.Column('config_id', sa.String(36), nullable=False),
        sa.Column('server_id', sa.String(255), nullable=False),
        sa.Column('input_values', types.Json(), nullable=True),
        sa.Column('output_values', types.Json(), nullable=True),
        sa.Column('tenant', sa.String(64), nullable=False),
        sa.Column('stack_user_project_id', sa.String(64), nullable=True),
        sa.Column('action', sa.String(255), nullable=True),
        sa.Column('status', sa.String(255), nullable=True),
        sa.Column('status_reason', sa.Text(), nullable=True),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('created_at', types.timestamp(), nullable=False),
        sa.Column('updated_at', types.timestamp(), nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_software_deployment'),
        sa.ForeignKeyConstraint(
            ['config_id'], ['software_config.id'],
            name='fk_software_deployment_config_id_software_config'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_software_deployment_server_id_created_at',
                    'software_deployment', ['server_id', 'created_at'])
    op.create_index('ix_software_deployment_tenant_created_at',
                    'software_deployment', ['tenant', 'created_at'])
    op.create_index('ix_software_deployment_stack_user_project_id',
                    'software_deployment', ['stack_user_project_id'])
    op.create_index('ix_software_deployment_config_id',
                    'software_deployment', ['config_id'])

    op.create_table(
        'deployment_event',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('deployment_id', sa.String(36), nullable=False),
        sa.Column('created_at', types.timestamp(), nullable=False),
        sa.Column('action', sa.String(255), nullable=True),
        sa.Column('old_status', sa.String(255), nullable=True),
        sa.Column('new_status', sa.String(255), nullable=True),
        sa.Column('reason', sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_deployment_event'),
        sa.ForeignKeyConstraint(
            ['deployment_id'], ['software_deployment.id'],
            name='fk_deployment_event_deployment_id_software_deployment',
            ondelete='CASCADE'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_deployment_event_deployment_id_id',
                    'deployment_event', ['deployment_id', 'id'])
