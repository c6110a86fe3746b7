"""Whether the visitor came: ``bookings.attendance`` (``attended`` / ``no_show``, NULL
until the agency marks it from the owner's digest) and ``attendance_at``; the
``lead_monitor`` row of the digest (its ``state``: the last day it was sent).

Revision ID: b3d7e2a9c415
Revises: 3c7e5a9b1d42
Create Date: 2026-11-25 23:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "b3d7e2a9c415"
down_revision: str | Sequence[str] | None = "3c7e5a9b1d42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the columns and the digest's row."""
    with op.batch_alter_table("bookings") as batch:
        batch.add_column(
            sa.Column("attendance", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=True)
        )
        batch.add_column(sa.Column("attendance_at", sa.DateTime(), nullable=True))
    monitor = sa.table("lead_monitor", sa.column("name", sa.String), sa.column("state", sa.String))
    op.bulk_insert(monitor, [{"name": "booking_digest", "state": ""}])


def downgrade() -> None:
    """Drop them."""
    op.execute("DELETE FROM lead_monitor WHERE name = 'booking_digest'")
    with op.batch_alter_table("bookings") as batch:
        batch.drop_column("attendance_at")
        batch.drop_column("attendance")
