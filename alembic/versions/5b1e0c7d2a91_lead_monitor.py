"""Shared state of the owner's side: held-lead alert, canary and purge schedule.

Revision ID: 5b1e0c7d2a91
Revises: c8f94e7a4006
Create Date: 2026-11-23 14:45:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "5b1e0c7d2a91"
down_revision: str | Sequence[str] | None = "c8f94e7a4006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """One row per job; the rows exist from the start so workers only ever UPDATE them."""
    table = op.create_table(
        "lead_monitor",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("due_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("changed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("name"),
    )
    op.bulk_insert(
        table,
        [
            {"name": "held_alert", "state": "ok"},
            {"name": "canary", "state": ""},
            {"name": "purge", "state": ""},
        ],
    )


def downgrade() -> None:
    """Drop the table."""
    op.drop_table("lead_monitor")
