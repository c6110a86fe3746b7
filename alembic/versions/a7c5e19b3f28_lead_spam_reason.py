"""Spam with no third party (issue 32): ``leads.spam_reason``, why a lead was taken for
spam (``SpamReason``: honeypot, no_token, too_fast, token_expired, bad_token, disposable,
no_mx). Every lead taken for spam before was a filled honeypot.

Revision ID: a7c5e19b3f28
Revises: d6e1f0a4b8c2
Create Date: 2026-11-26 04:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "a7c5e19b3f28"
down_revision: str | Sequence[str] | None = "d6e1f0a4b8c2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the column; the spam already stored was the honeypot's."""
    with op.batch_alter_table("leads") as batch:
        batch.add_column(
            sa.Column("spam_reason", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=True)
        )
    leads = sa.table("leads", sa.column("status", sa.String), sa.column("spam_reason", sa.String))
    op.execute(leads.update().where(leads.c.status == "spam").values(spam_reason="honeypot"))


def downgrade() -> None:
    with op.batch_alter_table("leads") as batch:
        batch.drop_column("spam_reason")
