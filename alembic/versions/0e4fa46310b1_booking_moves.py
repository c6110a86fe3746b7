"""Bookings the visitor can move: ``bookings.sequence`` (the calendar event's SEQUENCE and
the version a manage page's move form carries), ``reschedules`` (the visitor's moves,
for ``BOOKING_MAX_RESCHEDULES``), ``moved_from`` and ``moved_at`` (the last move), and
``visitor_told_sequence`` / ``agency_told_sequence`` (the last move each was e-mailed
about); the ``lead_monitor`` row of the job that retries those e-mails.

Every booking stored before starts at SEQUENCE 0, unmoved and told: the calendar files
already mailed carry no SEQUENCE, which calendars read as 0.

Revision ID: 0e4fa46310b1
Revises: 8fbff7d91664
Create Date: 2026-11-25 22:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0e4fa46310b1"
down_revision: str | Sequence[str] | None = "8fbff7d91664"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COUNTS = ("sequence", "reschedules", "visitor_told_sequence", "agency_told_sequence")


def upgrade() -> None:
    """Add the columns and the retry job's row."""
    with op.batch_alter_table("bookings") as batch:
        for name in _COUNTS:
            batch.add_column(sa.Column(name, sa.Integer(), server_default="0", nullable=False))
        batch.add_column(
            sa.Column("moved_from", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True)
        )
        batch.add_column(sa.Column("moved_at", sa.DateTime(), nullable=True))
    monitor = sa.table("lead_monitor", sa.column("name", sa.String), sa.column("state", sa.String))
    op.bulk_insert(monitor, [{"name": "booking_moves", "state": ""}])


def downgrade() -> None:
    """Drop them."""
    op.execute("DELETE FROM lead_monitor WHERE name = 'booking_moves'")
    with op.batch_alter_table("bookings") as batch:
        batch.drop_column("moved_at")
        batch.drop_column("moved_from")
        for name in reversed(_COUNTS):
            batch.drop_column(name)
