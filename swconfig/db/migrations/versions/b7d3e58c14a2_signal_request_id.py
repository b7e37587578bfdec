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

"""The request that stored each signal, for the engine's log.

Revision ID: b7d3e58c14a2
Revises: 9e2b6d41f0a7
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa

revision = 'b7d3e58c14a2'
down_revision = '9e2b6d41f0a7'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('signal_inbox') as batch:
        batch.add_column(sa.Column('request_id', sa.String(64),
                                   nullable=True))
