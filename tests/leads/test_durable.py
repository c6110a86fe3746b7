"""Issue 20: a lead is stored whatever the database does; RGPD as promised.

Every test that takes ``db_url`` or ``store`` runs on SQLite and on a real PostgreSQL.
"""

import datetime as dt

from agency_site.leads.kinds import LeadKind
from agency_site.leads.store import LeadStore
from tests.leads.conftest import BOOKING_FIELDS, LEASE


def test_one_auto_reply_per_address_and_day_across_workers(store: LeadStore) -> None:
    day = dt.date(2026, 3, 10)
    other = LeadStore(store.engine)  # Another worker on the same database.

    def add(on: LeadStore, email: str, when: dt.date = day) -> bool:
        fields = {**BOOKING_FIELDS, "email": email}
        return on.add_lead(
            LeadKind.BOOKING, fields, claim_token=None, lease=LEASE, autoreply_day=when
        ).autoreply

    assert add(store, "ana@example.com")
    assert not add(other, "ANA@example.com")  # Same address, any case: no second e-mail.
    assert add(other, "bea@example.com")
    assert add(store, "ana@example.com", day + dt.timedelta(days=1))  # A new day.
