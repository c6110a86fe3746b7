"""What reached the leads table and the fake EmailJS, matched against what the bookers sent."""

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from agency_site.content.form_words import COPY as FORMS_COPY

# How an e-mail sent again after an unconfirmed send starts (delivery.template_params).
RESEND_MARK = FORMS_COPY.resend_note.split("{")[0]


@dataclass
class Ledger:
    """Leads stored and e-mails received for one run, and how they match the bookers."""

    leads_stored: int
    leads_by_status: dict[str, int]
    emails_received: int  # sends the fake answered 200
    send_attempts: int  # every request the fake logged (faults included)
    duplicate_leads: int  # extra lead rows for the same booker
    duplicate_emails: int  # extra accepted e-mails for the same booker
    silent_duplicates: int  # of those, how many do not say they are a resend
    lost: int  # bookers who submitted and have no lead row
    missing_emails: int  # leads marked sent, or bookers told "sent", with no e-mail received
    unexpected: int  # leads or e-mails of this run from no booker of it
    lies: int  # bookers told "sent"/"queued" (the page says received) with no lead row
    undelivered: int  # lead rows with no e-mail received for them

    def as_dict(self) -> dict:
        """JSON-ready."""
        return dict(self.__dict__)


def lead_emails(db_url: str, prefix: str) -> list[tuple[str, str]]:
    """(e-mail, status) of every booking lead whose e-mail starts with ``prefix``."""
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text("SELECT fields, status FROM leads WHERE kind = 'booking'")
            ).all()
    finally:
        engine.dispose()
    found = []
    for fields, status in rows:
        data = json.loads(fields) if isinstance(fields, str) else fields
        email = str(data.get("email", ""))
        if email.startswith(prefix):
            found.append((email, status))
    return found


def fake_log(log_path: Path, prefix: str) -> list[tuple[str, object, bool]]:
    """(from_email, answer, marked as a resend) of every send the fake logged for this run."""
    found = []
    if not log_path.exists():
        return found
    for line in log_path.read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        params = (entry.get("body") or {}).get("template_params") or {}
        email = str(params.get("from_email", ""))
        if email.startswith(prefix):
            marked = str(params.get("message", "")).startswith(RESEND_MARK)
            found.append((email, entry.get("answer"), marked))
    return found


# What the page tells a visitor whose booking is stored ("sent", or "queued": received).
STORED_OUTCOMES = ("sent", "queued")


def reconcile(
    db_url: str,
    log_path: Path,
    prefix: str,
    submitted: list[str],
    told: dict[str, str],
    delivered: tuple = (200,),
) -> Ledger:
    """Match the leads table and the fake's log against the bookers of one run.

    ``delivered``: the fake's answers that mean the provider has the e-mail (with the
    drop fault, ``"dropped"`` too: it was accepted, only the answer was lost).
    """
    leads = lead_emails(db_url, prefix)
    sends = fake_log(log_path, prefix)
    lead_count = Counter(email for email, _ in leads)
    accepted = Counter(email for email, answer, _ in sends if answer in delivered)
    marked = Counter(email for email, answer, resend in sends if answer in delivered and resend)
    bookers = set(submitted)
    sent_leads = {email for email, status in leads if status == "sent"}
    told_sent = {email for email, outcome in told.items() if outcome == "sent"}
    return Ledger(
        leads_stored=len(leads),
        leads_by_status=dict(Counter(status for _, status in leads)),
        emails_received=sum(accepted.values()),
        send_attempts=len(sends),
        duplicate_leads=sum(n - 1 for n in lead_count.values() if n > 1),
        duplicate_emails=sum(n - 1 for n in accepted.values() if n > 1),
        # Every copy after the first should carry the resend note.
        silent_duplicates=sum(max(n - 1 - marked[e], 0) for e, n in accepted.items()),
        lost=len(bookers - set(lead_count)),
        missing_emails=len((sent_leads | told_sent) - set(accepted)),
        unexpected=len((set(lead_count) | set(accepted)) - bookers),
        lies=len({e for e, o in told.items() if o in STORED_OUTCOMES} - set(lead_count)),
        undelivered=len(set(lead_count) - set(accepted)),
    )
