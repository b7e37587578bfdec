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

"""Server labels and server groups: ``server_label`` (a server's
key=value labels, what selectors match), ``server_group`` and its explicit
members ``server_group_member``. New tables only: existing rows are
untouched.

Revision ID: 2b066bcaffad
Revises: 70447544bab0
Create Date: 2026-12-02
"""

from alembic import op
import sqlalchemy as sa

from swconfig.db import types

revision = '2b066bcaffad'
down_revision = '70447544bab0'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'server_label',
        sa.Column('server_id', sa.String(255), nullable=False),
        sa.Column('key', types.exact_string(63), nullable=False),
        sa.Column('value', types.exact_string(255), nullable=False),
        sa.Column('tenant', sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint('server_id', 'key', name='pk_server_label'),
        sa.ForeignKeyConstraint(
            ['server_id'], ['server.id'],
            name='fk_server_label_server_id_server', ondelete='CASCADE'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_server_label_tenant_key_value', 'server_label',
                    ['tenant', 'key', 'value'])
    op.create_table(
        'server_group',
        sa.Column('id', sa.String(36), nullable=False),
        sa.Column('tenant', sa.String(64), nullable=False),
        sa.Column('name', types.exact_string(255), nullable=False),
        sa.Column('selector', types.Json(), nullable=True),
        sa.Column('created_at', types.timestamp(), nullable=False),
        sa.Column('updated_at', types.timestamp(), nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_server_group'),
        sa.UniqueConstraint('tenant', 'name',
                            name='uq_server_group_tenant_name'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_table(
        'server_group_member',
        sa.Column('group_id', sa.String(36), nullable=False),
        sa.Column('server_id', sa.String(255), nullable=False),
        sa.PrimaryKeyConstraint('group_id', 'server_id',
                                name='pk_server_group_member'),
        sa.ForeignKeyConstraint(
            ['group_id'], ['server_group.id'],
            name='fk_server_group_member_group_id_server_group',
            ondelete='CASCADE'),
        sa.ForeignKeyConstraint(
            ['server_id'], ['server.id'],
            name='fk_server_group_member_server_id_server',
            ondelete='CASCADE'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_server_group_member_server_id',
                    'server_group_member', ['server_id'])
