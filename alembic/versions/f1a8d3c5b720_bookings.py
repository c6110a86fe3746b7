"""Bookings: one active booking per slot, and the links already used.

- ``bookings``: one row per booking lead: its date and slot, its state (pending,
  confirmed, declined, cancelled) and ``active_slot`` (``2026-12-14T10:00`` while it holds
  the slot, NULL after a decline or cancel) under a UNIQUE index: the database allows one
  active booking per slot. Existing booking leads are filled in (oldest first); a later
  one asking for a slot already held keeps no slot (``active_slot`` NULL, pending), so the
  agency still sees and answers it.
- ``booking_link_uses``: the digests of the single-use links (confirm, decline, cancel)
  already used.
- ``leads.source``: where each lead came from (page, entry page, utm_*, referring host).

Revision ID: f1a8d3c5b720
Revises: e4b7c2d9f013
Create Date: 2026-11-24 07:00:00.000000

"""

import datetime as dt
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "f1a8d3c5b720"
down_revision: str | Sequence[str] | None = "e4b7c2d9f013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create both tables, give every stored booking its row, add ``leads.source``."""
    with op.batch_alter_table("leads") as batch:
        batch.add_column(sa.Column("source", sa.JSON(), nullable=True))
    bookings = op.create_table(
        "bookings",
        sa.Column("lead_id", sa.Integer(), nullable=False),
        sa.Column("date", sa.Date(), nullable=False),
        sa.Column("time", sqlmodel.sql.sqltypes.AutoString(length=5), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("active_slot", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("decided_at", sa.DateTime(), nullable=True),
        sa.Column("reminded_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["lead_id"], ["leads.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("lead_id"),
    )
    op.create_index("ux_bookings_active_slot", "bookings", ["active_slot"], unique=True)
    op.create_index("ix_bookings_date", "bookings", ["date"])
    op.create_table(
        "booking_link_uses",
        sa.Column("digest", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("digest"),
    )
    _backfill(bookings)


def _backfill(bookings: sa.Table) -> None:
    """A row for every booking lead already stored; the first of a slot holds it."""
    connection = op.get_bind()
    leads = sa.table(
        "leads",
        sa.column("id", sa.Integer),
        sa.column("kind", sa.String),
        sa.column("fields", sa.JSON),
        sa.column("created_at", sa.DateTime),
    )
    held: set[str] = set()
    rows = []
    query = sa.select(leads).where(leads.c.kind == "booking").order_by(leads.c.id)
    for lead in connection.execute(query):
        fields = lead.fields or {}
        try:
            date = dt.date.fromisoformat(str(fields.get("date", "")))
        except ValueError:
            continue
        time = str(fields.get("time", ""))[:5]
        slot = f"{date.isoformat()}T{time}"
        rows.append(
            {
                "lead_id": lead.id,
                "date": date,
                "time": time,
                "state": "pending",
                "active_slot": None if slot in held else slot,
                "created_at": lead.created_at,
                # Requests older than this release: no "waiting for an answer" alert.
                "reminded_at": lead.created_at,
            }
        )
        held.add(slot)
    if rows:
        op.bulk_insert(bookings, rows)


def downgrade() -> None:
    """Drop both tables and ``leads.source``."""
    with op.batch_alter_table("leads") as batch:
        batch.drop_column("source")
    op.drop_table("booking_link_uses")
    op.drop_index("ix_bookings_date", table_name="bookings")
    op.drop_index("ux_bookings_active_slot", table_name="bookings")
    op.drop_table("bookings")
