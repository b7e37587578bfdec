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

"""Swift and Zaqar transports: signals fetched once, documents pushed.

Revision ID: d2a9c4e71b05
Revises: b7d3e58c14a2
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa

revision = 'd2a9c4e71b05'
down_revision = 'b7d3e58c14a2'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('signal_inbox') as batch:
        batch.add_column(sa.Column('source_key', sa.String(255),
                                   nullable=True))
        batch.create_unique_constraint(
            'uq_signal_inbox_deployment_id_source_key',
            ['deployment_id', 'source_key'])
    with op.batch_alter_table('server') as batch:
        batch.add_column(sa.Column('config_transport', sa.String(32),
                                   nullable=True))
        batch.add_column(sa.Column('push_pending', sa.Boolean(),
                                   nullable=False,
                                   server_default=sa.false()))
        batch.create_index('ix_server_push_pending', ['push_pending'])
