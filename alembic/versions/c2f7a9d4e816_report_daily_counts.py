"""The owner's funnel (issue 34): the report's daily counts (``agency_site/report/tables.py``)
and the access log's cursor. Counts only: no address, no user agent, no lead id.

Revision ID: c2f7a9d4e816
Revises: a7c5e19b3f28
Create Date: 2026-11-26 05:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "c2f7a9d4e816"
down_revision: str | Sequence[str] | None = "a7c5e19b3f28"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out (not imported from the site): a migration stays as it was when made.
_KEYS = {
    "report_page_views": (("page", 200), ("language", 8), ("device", 10)),
    "report_referrers": (("domain", 100),),
    "report_campaigns": (("utm_source", 100), ("utm_medium", 100), ("utm_campaign", 100)),
    "report_bots": (("bot", 40),),
    "report_not_found": (("path", 200), ("referrer", 200)),
    "report_forms_started": (("form", 20),),
}
_COUNT = {"report_bots": "hits", "report_not_found": "hits", "report_forms_started": "started"}


def upgrade() -> None:
    for name, keys in _KEYS.items():
        op.create_table(
            name,
            sa.Column("day", sa.Date, primary_key=True),
            *(sa.Column(key, sa.String(length), primary_key=True) for key, length in keys),
            sa.Column(_COUNT.get(name, "views"), sa.Integer, nullable=False),
        )
    op.create_table(
        "report_log_cursor",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("inode", sa.BigInteger, nullable=False),
        sa.Column("head", sa.String(40), nullable=False),
        sa.Column("offset", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("report_log_cursor")
    for name in reversed(_KEYS):
        op.drop_table(name)
