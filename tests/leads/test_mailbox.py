"""The visitor auto-reply allowance counts mailboxes, not spellings of an address."""

import datetime as dt
import itertools

import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import LeadAutoreply, email_key, mailbox_key
from agency_site.leads.store import LeadStore
from tests.lead_store import BOOKING_FIELDS, LEASE

FIRST_DAY = dt.date(2026, 3, 10)
_days = itertools.count()  # Each example its own agency day: the store outlives examples.


def autoreplied(store: LeadStore, email: str, day: dt.date) -> bool:
    """Whether a booking from ``email`` on ``day`` may trigger the visitor's auto-reply."""
    fields = {**BOOKING_FIELDS, "email": email}
    lead = store.add_lead(
        LeadKind.BOOKING, fields, claim_token=None, lease=LEASE, autoreply_day=day
    )
    return lead.autoreply


@st.composite
def gmail_spellings(draw, local: str) -> str:
    """``local``@gmail.com as a visitor may write it: dots between letters, any case, a
    +tag, googlemail.com."""
    dotted = "".join(
        char + ("." if index < len(local) - 1 and draw(st.booleans()) else "")
        for index, char in enumerate(local)
    )
    cased = "".join(c.upper() if draw(st.booleans()) else c for c in dotted)
    tag = draw(st.sampled_from(("", "+", "+1", "+spam", "+a.b+c")))
    domain = draw(st.sampled_from(("gmail.com", "googlemail.com", "GMail.com", "GOOGLEMAIL.COM")))
    return f"{cased}{tag}@{domain}"


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.data(),
    local=st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12),
)
def test_every_spelling_of_one_gmail_mailbox_gets_one_auto_reply_a_day(
    any_store: LeadStore, data: st.DataObject, local: str
) -> None:
    day = FIRST_DAY + dt.timedelta(days=next(_days))
    spellings = data.draw(st.lists(gmail_spellings(local), min_size=2, max_size=5))
    assert [autoreplied(any_store, email, day) for email in spellings] == [True] + [False] * (
        len(spellings) - 1
    )
    assert all(mailbox_key(email) == f"{local}@gmail.com" for email in spellings)


def test_other_mailboxes_keep_their_own_allowance_and_find_is_unchanged(
    any_store: LeadStore,
) -> None:
    day = FIRST_DAY
    assert autoreplied(any_store, "ana@example.com", day)
    assert not autoreplied(any_store, "ANA+2@example.com", day)  # A tag, any domain.
    assert autoreplied(any_store, "a.na@example.com", day)  # Dots matter outside Gmail.
    assert autoreplied(any_store, "ana@gmail.com", day)
    assert not autoreplied(any_store, "a.n.a+1@googlemail.com", day)
    assert autoreplied(any_store, "ana@gmail.com", day + dt.timedelta(days=1))  # A new day.
    # Find, erase and purge still match the address as written (case aside).
    assert email_key(" A.N.A+1@Gmail.com") == "a.n.a+1@gmail.com"
    assert len(any_store.of_email("ana+2@example.com")) == 1
    # Erasing any spelling forgets the mailbox's allowance rows too.
    any_store.erase_email("a.n.a+1@googlemail.com")
    with any_store.engine.connect() as connection:
        left = connection.execute(sa.select(sa.func.count()).select_from(LeadAutoreply)).scalar()
    assert left == 2  # ana@example.com's and a.na@example.com's; none of ana@gmail.com's.
