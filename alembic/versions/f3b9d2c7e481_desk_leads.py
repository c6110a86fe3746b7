"""The desk's page of a lead and its spam review (issue 44): ``lead_attempts`` (each
recorded delivery attempt of a lead's e-mail: when, how it ended, the provider's short
answer), ``booking_history`` (each change of a booking), ``desk_lead_stages`` and
``desk_lead_notes`` (the agency's pipeline stage of a lead and its private notes),
``desk_audit.detail`` (an export's filters) and ``leads.spam_confirmed_at`` (the owner's
"Es spam").

Every new table's rows belong to a lead (a foreign key to ``leads.id``, cascading on
PostgreSQL; SQLite's are deleted by the erasure's and purge's own ``forget``). Existing
leads get no attempts (their count stays in ``leads.attempts``) and existing bookings no
history: the desk says what it knows from their columns.

Revision ID: f3b9d2c7e481
Revises: 5d2c8e7f1a64
Create Date: 2026-11-28 21:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "f3b9d2c7e481"
# Also after the booking caps' migration (branch ``slots``, merged here for the owner's
# release): this one joins the two heads. Once main holds them in one line, this is just
# the migration after the last of them.
down_revision: str | Sequence[str] | None = "5d2c8e7f1a64"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _lead(primary_key: bool = False) -> sa.Column:
    return sa.Column(
        "lead_id",
        sa.Integer,
        sa.ForeignKey("leads.id", ondelete="CASCADE"),
        primary_key=primary_key,
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "lead_attempts",
        sa.Column("id", sa.Integer, primary_key=True),
        _lead(),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("outcome", AutoString(length=10), nullable=False),
        sa.Column("answer", AutoString(length=200), nullable=False),
    )
    op.create_index("ix_lead_attempts_lead_id", "lead_attempts", ["lead_id"])
    op.create_table(
        "booking_history",
        sa.Column("id", sa.Integer, primary_key=True),
        _lead(),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("event", AutoString(length=20), nullable=False),
        sa.Column("date", sa.Date, nullable=False),
        sa.Column("time", AutoString(length=5), nullable=False),
        sa.Column("moved_from", AutoString(length=16), nullable=True),
        sa.Column("slot_lost", sa.Boolean, nullable=False),
    )
    op.create_index("ix_booking_history_lead_id", "booking_history", ["lead_id"])
    op.create_table(
        "desk_lead_stages",
        _lead(primary_key=True),
        sa.Column("stage", AutoString(length=12), nullable=False),
        sa.Column("changed_at", UTCDateTime(), nullable=False),
        sa.Column("person_id", sa.Integer, nullable=True),
    )
    op.create_table(
        "desk_lead_notes",
        sa.Column("id", sa.Integer, primary_key=True),
        _lead(),
        sa.Column("person_id", sa.Integer, nullable=True),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("text", AutoString(length=2000), nullable=False),
    )
    op.create_index("ix_desk_lead_notes_lead_id", "desk_lead_notes", ["lead_id"])
    with op.batch_alter_table("desk_audit") as batch:
        batch.add_column(sa.Column("detail", AutoString(length=200), nullable=True))
    with op.batch_alter_table("leads") as batch:
        batch.add_column(sa.Column("spam_confirmed_at", UTCDateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("leads") as batch:
        batch.drop_column("spam_confirmed_at")
    with op.batch_alter_table("desk_audit") as batch:
        batch.drop_column("detail")
    for table in ("desk_lead_notes", "desk_lead_stages", "booking_history", "lead_attempts"):
        op.drop_table(table)
