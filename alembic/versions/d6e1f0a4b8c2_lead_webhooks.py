"""Signed webhooks (issue 32): ``lead_webhooks``, one row per event of a lead and
endpoint with its own delivery state, and ``lead_webhook_endpoints``, each endpoint's
state (active, or paused after a 410 or a day of failures).

Revision ID: d6e1f0a4b8c2
Revises: b3d7e2a9c415
Create Date: 2026-11-26 01:45:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "d6e1f0a4b8c2"
down_revision: str | Sequence[str] | None = "b3d7e2a9c415"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

String = sqlmodel.sql.sqltypes.AutoString
Moment = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    """Create both tables; no lead stored before has a webhook to send."""
    op.create_table(
        "lead_webhooks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("lead_id", sa.Integer(), nullable=False),
        sa.Column("event", String(length=40), nullable=False),
        sa.Column("message_id", String(length=160), nullable=False),
        sa.Column("endpoint", String(length=16), nullable=False),
        sa.Column("data", sa.JSON(), nullable=True),
        sa.Column("created_at", Moment(), nullable=False),
        sa.Column("status", String(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", Moment(), nullable=True),
        sa.Column("claim_token", String(length=64), nullable=True),
        sa.Column("claimed_until", Moment(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("sent_at", Moment(), nullable=True),
        sa.Column("remote_id", String(length=200), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_lead_webhooks_status_next_attempt_at", "lead_webhooks", ["status", "next_attempt_at"]
    )
    op.create_index("ix_lead_webhooks_lead_id", "lead_webhooks", ["lead_id"])
    op.create_index(
        "ux_lead_webhooks_message", "lead_webhooks", ["message_id", "endpoint"], unique=True
    )
    op.create_table(
        "lead_webhook_endpoints",
        sa.Column("endpoint", String(length=16), nullable=False),
        sa.Column("state", String(length=20), nullable=False),
        sa.Column("failing_since", Moment(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("changed_at", Moment(), nullable=True),
        sa.PrimaryKeyConstraint("endpoint"),
    )


def downgrade() -> None:
    """Drop them."""
    op.drop_table("lead_webhook_endpoints")
    op.drop_index("ux_lead_webhooks_message", table_name="lead_webhooks")
    op.drop_index("ix_lead_webhooks_lead_id", table_name="lead_webhooks")
    op.drop_index("ix_lead_webhooks_status_next_attempt_at", table_name="lead_webhooks")
    op.drop_table("lead_webhooks")
