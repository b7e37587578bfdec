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
