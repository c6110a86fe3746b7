"""Booking caps on every path (issue 43): ``bookings.mailbox`` (the digest of the visitor's
mailbox, ``leads.models.mailbox_digest``: Gmail's dots and any ``+tag`` are one mailbox),
indexed with ``state`` so the claim's transaction counts a mailbox's pending bookings
through it, and ``bookings.slot_lost_reason`` (why a booking holds no slot: taken, busy,
day full, over a cap).

Every existing booking gets its mailbox from its lead's address, computed in Python as new
bookings get it, so the pending ones count toward the cap from the first request after the
upgrade. The reason of a booking stored without its slot before stays NULL (the agency's
e-mail then says what it said before: taken or busy while the database was down).

Revision ID: 5d2c8e7f1a64
Revises: e7c3a1f9b250
Create Date: 2026-11-28 19:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from agency_site.leads.models import mailbox_digest
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "5d2c8e7f1a64"
down_revision: str | Sequence[str] | None = "e7c3a1f9b250"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 500


def upgrade() -> None:
    """Add the two columns and the index, then fill ``mailbox`` of every booking."""
    with op.batch_alter_table("bookings") as batch:
        batch.add_column(
            sa.Column(
                "slot_lost_reason", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=True
            )
        )
        batch.add_column(
            sa.Column("mailbox", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch.create_index("ix_bookings_mailbox_state", ["mailbox", "state"])
    _backfill()


def _backfill() -> None:
    """``mailbox`` of every booking, from its lead's ``email`` field."""
    leads = sa.table("leads", sa.column("id", sa.Integer), sa.column("fields", sa.JSON))
    bookings = sa.table(
        "bookings", sa.column("lead_id", sa.Integer), sa.column("mailbox", sa.String)
    )
    connection = op.get_bind()
    last = 0
    while True:
        rows = connection.execute(
            sa.select(bookings.c.lead_id, leads.c.fields)
            .join(leads, leads.c.id == bookings.c.lead_id)
            .where(bookings.c.lead_id > last)
            .order_by(bookings.c.lead_id)
            .limit(_BATCH)
        ).all()
        if not rows:
            return
        for lead_id, fields in rows:
            email = (fields or {}).get("email")
            if isinstance(email, str):
                connection.execute(
                    sa.update(bookings)
                    .where(bookings.c.lead_id == lead_id)
                    .values(mailbox=mailbox_digest(email))
                )
        last = rows[-1][0]


def downgrade() -> None:
    """Drop what ``upgrade`` added."""
    with op.batch_alter_table("bookings") as batch:
        batch.drop_index("ix_bookings_mailbox_state")
        batch.drop_column("mailbox")
        batch.drop_column("slot_lost_reason")
