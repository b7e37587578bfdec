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

"""Servers may carry an os-collect-config block of another source
(``server.collect_config_override``, sealed): what a server handed back to
Heat is told instead of swconfig's own URL (``swconfig-manage heat-cutover
--revert``). NULL for every other server. Expand only.

Revision ID: f3b7d2a91c64
Revises: e8f1a6c3b274
Create Date: 2026-12-07
"""

from alembic import op
import sqlalchemy as sa

from swconfig.db import types

revision = 'f3b7d2a91c64'
down_revision = 'e8f1a6c3b274'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('server') as batch:
        batch.add_column(sa.Column('collect_config_override',
                                   types.long_text(), nullable=True))
