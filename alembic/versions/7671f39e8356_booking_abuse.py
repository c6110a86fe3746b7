"""Bookings that cannot be abused: ``bookings.slot_lost`` (a booking drained from the
spool after its slot was taken: it holds none until confirmed), ``bookings.network``
(a keyed digest of the requester's network, while pending: the cap per network),
``bookings.expiry_told_at`` (the visitor was told their unanswered booking expired) and
the ``lead_monitor`` row of the expiry job.

Revision ID: 7671f39e8356
Revises: 0098d67eca10
Create Date: 2026-11-25 15:40:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "7671f39e8356"
down_revision: str | Sequence[str] | None = "0098d67eca10"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the three columns, the index of ``network`` and the expiry job's row."""
    with op.batch_alter_table("bookings") as batch:
        batch.add_column(
            sa.Column("slot_lost", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch.add_column(
            sa.Column("network", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch.add_column(sa.Column("expiry_told_at", sa.DateTime(), nullable=True))
        batch.create_index("ix_bookings_network", ["network"])
    monitor = sa.table("lead_monitor", sa.column("name", sa.String), sa.column("state", sa.String))
    op.bulk_insert(monitor, [{"name": "booking_expiry", "state": ""}])


def downgrade() -> None:
    """Drop them."""
    op.execute("DELETE FROM lead_monitor WHERE name = 'booking_expiry'")
    with op.batch_alter_table("bookings") as batch:
        batch.drop_index("ix_bookings_network")
        batch.drop_column("expiry_told_at")
        batch.drop_column("network")
        batch.drop_column("slot_lost")
