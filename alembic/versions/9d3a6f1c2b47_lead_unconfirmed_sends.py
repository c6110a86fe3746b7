"""Count the sends of a lead whose outcome is unknown, so a resend says it may be a duplicate.

Revision ID: 9d3a6f1c2b47
Revises: 5b1e0c7d2a91
Create Date: 2026-11-23 18:10:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "9d3a6f1c2b47"
down_revision: str | Sequence[str] | None = "5b1e0c7d2a91"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """A counter, 0 for every existing lead."""
    with op.batch_alter_table("leads") as batch:
        batch.add_column(
            sa.Column("unconfirmed_sends", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    """Drop the counter."""
    with op.batch_alter_table("leads") as batch:
        batch.drop_column("unconfirmed_sends")
