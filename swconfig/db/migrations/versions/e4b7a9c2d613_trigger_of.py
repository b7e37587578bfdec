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


"""Trigger deployments remember the deployment they were triggered from.

Revision ID: e4b7a9c2d613
Revises: d2a9c4e71b05
Create Date: 2026-12-01
"""

from alembic import op
import sqlalchemy as sa

revision = 'e4b7a9c2d613'
down_revision = 'd2a9c4e71b05'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('software_deployment') as batch:
        batch.add_column(sa.Column('trigger_of', sa.String(36),
                                   nullable=True))
        batch.create_index('ix_software_deployment_trigger_of',
                           ['trigger_of'])
