"""The ``lead_monitor`` rows of the owner's monthly report e-mail
(``agency_site/report/mail.py``): ``report_mail`` (its ``state``: the last month sent,
``2026-11``; its ``due_at``: the next try) and ``report_alert`` (the last month the owner
was alerted about as unsent).

Revision ID: d9a4c6e2f157
Revises: c2f7a9d4e816
Create Date: 2026-11-26 07:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "d9a4c6e2f157"
down_revision: str | Sequence[str] | None = "c2f7a9d4e816"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the two rows."""
    monitor = sa.table("lead_monitor", sa.column("name", sa.String), sa.column("state", sa.String))
    op.bulk_insert(
        monitor, [{"name": "report_mail", "state": ""}, {"name": "report_alert", "state": ""}]
    )


def downgrade() -> None:
    """Remove them."""
    op.execute("DELETE FROM lead_monitor WHERE name IN ('report_mail', 'report_alert')")
