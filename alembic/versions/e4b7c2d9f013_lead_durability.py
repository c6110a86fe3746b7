"""Durable intake and RGPD: idempotency key, normalised e-mail, auto-reply allowance.

- ``leads.idempotency_key`` (unique): one submission tried over both paths, or spooled
  while the database was down and drained later, is stored once.
- ``leads.email_norm``: the address NFC-normalised and case-folded in Python (SQLite's
  ``lower()`` is ASCII-only), backfilled here; find, erase and purge compare it.
- ``leads.autoreply`` and ``lead_autoreplies``: at most one visitor auto-reply per
  address and day, across workers.
- ``lead_monitor`` rows of the new alerts (queued too long, leads refused for content).

Revision ID: e4b7c2d9f013
Revises: 9d3a6f1c2b47
Create Date: 2026-11-24 04:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from agency_site.leads.models import email_key
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "e4b7c2d9f013"
down_revision: str | Sequence[str] | None = "9d3a6f1c2b47"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 500


def upgrade() -> None:
    """Add the columns and table, then fill ``email_norm`` of every existing lead."""
    with op.batch_alter_table("leads") as batch:
        batch.add_column(
            sa.Column("idempotency_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True)
        )
        batch.add_column(
            sa.Column("email_norm", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=True)
        )
        batch.add_column(
            sa.Column("autoreply", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.create_index("ux_leads_idempotency_key", ["idempotency_key"], unique=True)
        batch.create_index("ix_leads_email_norm", ["email_norm"])
    op.create_table(
        "lead_autoreplies",
        sa.Column("email_hash", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.PrimaryKeyConstraint("email_hash", "day"),
    )
    monitor = sa.table("lead_monitor", sa.column("name", sa.String), sa.column("state", sa.String))
    op.bulk_insert(
        monitor, [{"name": "queued_alert", "state": "ok"}, {"name": "rejected_alert", "state": "0"}]
    )
    _backfill()


def _backfill() -> None:
    """``email_norm`` of every lead, computed in Python like new leads get it."""
    leads = sa.table(
        "leads",
        sa.column("id", sa.Integer),
        sa.column("fields", sa.JSON),
        sa.column("email_norm", sa.String),
    )
    connection = op.get_bind()
    last = 0
    while True:
        rows = connection.execute(
            sa.select(leads.c.id, leads.c.fields)
            .where(leads.c.id > last)
            .order_by(leads.c.id)
            .limit(_BATCH)
        ).all()
        if not rows:
            return
        for lead_id, fields in rows:
            email = (fields or {}).get("email")
            if isinstance(email, str):
                connection.execute(
                    sa.update(leads)
                    .where(leads.c.id == lead_id)
                    .values(email_norm=email_key(email))
                )
        last = rows[-1][0]


def downgrade() -> None:
    """Drop what ``upgrade`` added."""
    op.execute("DELETE FROM lead_monitor WHERE name IN ('queued_alert', 'rejected_alert')")
    op.drop_table("lead_autoreplies")
    with op.batch_alter_table("leads") as batch:
        batch.drop_index("ix_leads_email_norm")
        batch.drop_index("ux_leads_idempotency_key")
        batch.drop_column("autoreply")
        batch.drop_column("email_norm")
        batch.drop_column("idempotency_key")
