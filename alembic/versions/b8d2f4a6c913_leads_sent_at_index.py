"""An index on ``leads.sent_at``: the health endpoint and every worker's monitor read the
last delivery (``max(sent_at)``, ``LeadStore.summary``) from its end instead of scanning
every delivered lead.

Revision ID: b8d2f4a6c913
Revises: d9a4c6e2f157
Create Date: 2026-11-26 17:40:00.000000

"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "b8d2f4a6c913"
down_revision: str | Sequence[str] | None = "d9a4c6e2f157"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the index."""
    op.create_index("ix_leads_sent_at", "leads", ["sent_at"])


def downgrade() -> None:
    """Drop it."""
    op.drop_index("ix_leads_sent_at", table_name="leads")
