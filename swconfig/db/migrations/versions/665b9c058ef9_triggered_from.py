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

"""The deployment a trigger deployment was triggered from.

Revision ID: 665b9c058ef9
Revises: d2a9c4e71b05
Create Date: 2026-12-01
"""

from alembic import op
import sqlalchemy as sa

revision = '665b9c058ef9'
down_revision = 'd2a9c4e71b05'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('software_deployment') as batch:
        batch.add_column(sa.Column('triggered_from', sa.String(36),
                                   nullable=True))
        # Triggers of one deployment are looked up by it (a second trigger
        # of an action still running is refused).
        batch.create_index('ix_software_deployment_triggered_from',
                           ['triggered_from'])
