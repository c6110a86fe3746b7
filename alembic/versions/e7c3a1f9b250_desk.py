"""The owner's desk (issue 44, ``agency_site/desk/models.py``): the agency's people, their
passkeys, one-time invites, WebAuthn challenges, sign-in sessions, the audit log; the index
the inbox reads the leads through (``created_at``, ``id``); the ``lead_monitor`` row of the
desk's daily purge (``desk_purge``).

Revision ID: e7c3a1f9b250
Revises: e7c3a1f5d924
Create Date: 2026-11-28 19:00:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "e7c3a1f9b250"
down_revision: str | Sequence[str] | None = "e7c3a1f5d924"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out (not imported from the site): a migration stays as it was when made.
_DIGEST = 64
_EMAIL = 3 * 254


def _people() -> sa.Column:
    return sa.Column(
        "person_id", sa.Integer, sa.ForeignKey("desk_people.id", ondelete="CASCADE"), nullable=False
    )


def upgrade() -> None:
    op.create_table(
        "desk_people",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("email", AutoString(length=_EMAIL), nullable=False),
        sa.Column("name", AutoString(length=120), nullable=True),
        sa.Column("user_handle", AutoString(length=88), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ux_desk_people_email", "desk_people", ["email"], unique=True)
    op.create_table(
        "desk_passkeys",
        sa.Column("id", sa.Integer, primary_key=True),
        _people(),
        sa.Column("credential_id", AutoString(length=1400), nullable=False),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.BigInteger, nullable=False),
        sa.Column("transports", sa.JSON, nullable=False),
        sa.Column("label", AutoString(length=60), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("last_used_at", UTCDateTime(), nullable=True),
    )
    op.create_index(
        "ux_desk_passkeys_credential_id", "desk_passkeys", ["credential_id"], unique=True
    )
    op.create_index("ix_desk_passkeys_person_id", "desk_passkeys", ["person_id"])
    op.create_table(
        "desk_invites",
        sa.Column("id", sa.Integer, primary_key=True),
        _people(),
        sa.Column("token_digest", AutoString(length=_DIGEST), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.Column("used_at", UTCDateTime(), nullable=True),
    )
    op.create_index("ux_desk_invites_token_digest", "desk_invites", ["token_digest"], unique=True)
    op.create_table(
        "desk_challenges",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("digest", AutoString(length=_DIGEST), nullable=False),
        sa.Column("purpose", AutoString(length=20), nullable=False),
        sa.Column("person_id", sa.Integer, nullable=True),
        sa.Column("invite_id", sa.Integer, nullable=True),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ux_desk_challenges_digest", "desk_challenges", ["digest"], unique=True)
    op.create_index("ix_desk_challenges_expires_at", "desk_challenges", ["expires_at"])
    op.create_table(
        "desk_sessions",
        sa.Column("id", sa.Integer, primary_key=True),
        _people(),
        sa.Column("token_digest", AutoString(length=_DIGEST), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("last_seen_at", UTCDateTime(), nullable=False),
        sa.Column("fresh_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ux_desk_sessions_token_digest", "desk_sessions", ["token_digest"], unique=True)
    op.create_index("ix_desk_sessions_person_id", "desk_sessions", ["person_id"])
    op.create_table(
        "desk_audit",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("person_id", sa.Integer, nullable=True),
        sa.Column("action", AutoString(length=40), nullable=False),
        sa.Column("lead_id", sa.Integer, nullable=True),
        sa.Column("request_id", sa.Integer, nullable=True),
        sa.Column("subject_id", sa.Integer, nullable=True),
        sa.Column("digest", AutoString(length=_DIGEST), nullable=True),
    )
    op.create_index("ix_desk_audit_at", "desk_audit", ["at"])
    op.create_index("ix_desk_audit_lead_id", "desk_audit", ["lead_id"])
    op.create_index("ix_leads_created_at_id", "leads", ["created_at", "id"])
    monitor = sa.table("lead_monitor", sa.column("name", sa.String), sa.column("state", sa.String))
    op.bulk_insert(monitor, [{"name": "desk_purge", "state": ""}])


def downgrade() -> None:
    op.execute("DELETE FROM lead_monitor WHERE name = 'desk_purge'")
    op.drop_index("ix_leads_created_at_id", table_name="leads")
    for table in ("desk_audit", "desk_sessions", "desk_challenges", "desk_invites"):
        op.drop_table(table)
    op.drop_table("desk_passkeys")
    op.drop_table("desk_people")
