"""The server change log: what API workers' metadata caches drop.

Revision ID: 5c8f3e17a2d4
Revises: 7d4e2a91c5b3
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa

from swconfig.db import types

revision = '5c8f3e17a2d4'
down_revision = '7d4e2a91c5b3'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'server_change',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('server_id', sa.String(255), nullable=False),
        sa.Column('changed_at', types.timestamp(), nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_server_change'),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')
    op.create_index('ix_server_change_changed_at', 'server_change',
                    ['changed_at'])
