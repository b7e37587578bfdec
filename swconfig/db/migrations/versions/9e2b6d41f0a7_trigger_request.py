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

"""Idempotency keys of trigger requests.

Revision ID: 9e2b6d41f0a7
Revises: 5c8f3e17a2d4
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa

from swconfig.db import types

revision = '9e2b6d41f0a7'
down_revision = '5c8f3e17a2d4'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'trigger_request',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('tenant', sa.String(64), nullable=False),
        sa.Column('idempotency_key', sa.String(255), nullable=False),
        sa.Column('deployment_id', sa.String(36), nullable=False),
        sa.Column('request_digest', sa.String(64), nullable=False),
        sa.Column('trigger_deployment_id', sa.String(36), nullable=False),
        sa.Column('created_at', types.timestamp(), nullable=False),
        sa.Column('expires_at', types.timestamp(), nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_trigger_request'),
        sa.UniqueConstraint(
            'tenant', 'idempotency_key',
            name='uq_trigger_request_tenant_idempotency_key'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_trigger_request_expires_at', 'trigger_request',
                    ['expires_at'])
