"""A restore honours every erasure and nothing more: for every order of leads received,
addresses erased, backups taken and restores, the database holds exactly the leads the
backup held that no erasure covers (received before it), with every lead a person sent
after their erasure kept (``deploy restore``: ``restore_leads``)."""

import datetime as dt
import io
import shutil
import tempfile
from pathlib import Path

import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agency_site.deploy import backup
from agency_site.deploy.__main__ import restore_leads
from agency_site.forms.kinds import LeadKind
from agency_site.leads import erasures, migrations
from agency_site.leads.store import LeadStore
from tests.lead_store import add_lead_id

PEOPLE = ("ana@example.com", "joan@example.com")
START = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)
event = st.one_of(
    st.tuples(st.just("receive"), st.sampled_from(PEOPLE)),
    st.tuples(st.just("erase"), st.sampled_from(PEOPLE)),
    st.tuples(st.just("backup")),
    st.tuples(st.just("restore")),
)
_TEMPLATE: list[Path] = []


def _migrated_template() -> Path:
    """An empty migrated database, made once and copied for each example."""
    if not _TEMPLATE:
        path = Path(tempfile.mkdtemp(prefix="agency-restore-")) / "template.db"
        engine = sa.create_engine(f"sqlite:///{path}")
        migrations.upgrade(engine)
        engine.dispose()
        _TEMPLATE.append(path)
    return _TEMPLATE[0]


def _stored(store: LeadStore) -> set[tuple[str, dt.datetime]]:
    leads = store.all()
    return {
        (lead.fields["email"], lead.created_at.replace(tzinfo=lead.created_at.tzinfo or dt.UTC))
        for lead in leads
    }


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(event, min_size=1, max_size=10))
def test_a_restore_keeps_what_no_erasure_covers(events) -> None:
    folder = Path(tempfile.mkdtemp(prefix="agency-restore-"))
    try:
        database, log = folder / "site.db", folder / "erasures.log"
        shutil.copy(_migrated_template(), database)
        store = LeadStore(sa.create_engine(f"sqlite:///{database}"))
        live: set[tuple[str, dt.datetime]] = set()
        erased: list[tuple[str, dt.datetime]] = []
        taken: tuple[Path, set] | None = None
        for step, (kind, *person) in enumerate(events):
            now = START + dt.timedelta(seconds=step)  # One event a second.
            if kind == "receive":
                fields = {"email": person[0]}
                add_lead_id(
                    store,
                    LeadKind.HERO,
                    fields,
                    claim_token=None,
                    lease=dt.timedelta(1),
                    created_at=now,
                )
                live.add((person[0], now))
            elif kind == "erase":
                store.erase_email(person[0])
                erasures.record(log, person[0], at=now)
                erased.append((person[0], now))
                live = {lead for lead in live if lead[0] != person[0]}
            elif kind == "backup":
                taken = (backup.backup(str(store.engine.url), folder / "b", now=now), set(live))
            elif taken is not None:
                out = io.StringIO()
                assert restore_leads(store, taken[0], True, log, out) == 0, out.getvalue()
                live = {
                    (email, received)
                    for email, received in taken[1]
                    if not any(who == email and received <= when for who, when in erased)
                }
            assert _stored(store) == live, (events[: step + 1], kind)
        store.engine.dispose()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_lead_sent_after_an_erasure_survives_a_restore(tmp_path) -> None:
    """The issue's case: erased, wrote again, a backup, a restore: the new lead stays."""
    database = tmp_path / "site.db"
    shutil.copy(_migrated_template(), database)
    store = LeadStore(sa.create_engine(f"sqlite:///{database}"))
    log = tmp_path / "erasures.log"
    erasures.record(log, "ana@example.com", at=START)
    again = START + dt.timedelta(minutes=5)
    fields = {"email": "ana@example.com"}
    add_lead_id(
        store, LeadKind.HERO, fields, claim_token=None, lease=dt.timedelta(1), created_at=again
    )
    path = backup.backup(str(store.engine.url), tmp_path / "b")
    out = io.StringIO()
    assert restore_leads(store, path, True, log, out) == 0
    assert [lead.fields["email"] for lead in store.all()] == ["ana@example.com"]
    assert "deleted 0 lead(s) again" in out.getvalue()
    store.engine.dispose()
