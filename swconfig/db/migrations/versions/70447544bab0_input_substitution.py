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

"""The input substitution of a server-side deployment: ``input_key`` and
``input_values_validate`` (NULL for existing rows: no substitution).

Revision ID: 70447544bab0
Revises: 4f6a2c8e1d37
Create Date: 2026-11-25
"""

from alembic import op
import sqlalchemy as sa

revision = '70447544bab0'
down_revision = '4f6a2c8e1d37'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('software_deployment') as batch:
        batch.add_column(sa.Column('input_key', sa.String(255),
                                   nullable=True))
        batch.add_column(sa.Column('input_values_validate', sa.String(16),
                                   nullable=True))
