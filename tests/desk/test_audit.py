"""The audit log: one row per action by one function, ids and digests only, shown in
"Registro", purged after DESK_AUDIT_MONTHS by the daily round the lead core's monitor runs
(one worker a day: the ``desk_purge`` row), as the privacy policies say."""

import datetime as dt
from types import SimpleNamespace

import sqlalchemy as sa

from agency_site.content.legal import PRIVACY
from agency_site.desk import audit, sign_in
from agency_site.desk.audit import AuditAction
from agency_site.desk.log import LOG
from agency_site.desk.models import DeskAudit, DeskChallenge, DeskInvite, DeskSession
from agency_site.desk.purge_plugin import DeskPlugin, plugin
from agency_site.leads import plugins
from agency_site.leads.store import LeadStore
from agency_site.settings import get_settings
from tests.desk.conftest import DeskSite
from tests.run_async import run


def _actions(site: DeskSite) -> list[tuple]:
    with site.engine.connect() as connection:
        query = sa.select(
            DeskAudit.person_id, DeskAudit.action, DeskAudit.lead_id, DeskAudit.subject_id
        ).order_by(DeskAudit.id)
        return [tuple(row) for row in connection.execute(query)]


def test_each_step_of_a_persons_access_is_one_line(desk_site: DeskSite) -> None:
    browser = desk_site.signed_in("ana@example.com")
    browser.post(sign_in.SIGN_OUT)
    lines = _actions(desk_site)
    assert [line[1] for line in lines] == ["enrolled", "signed_out"]
    assert {line[0] for line in lines} == {lines[0][0]}


def test_a_line_keeps_ids_and_digests_never_personal_data(desk_site: DeskSite) -> None:
    audit.record(desk_site.engine, 7, AuditAction.CONFIRMED, lead_id=42, digest="ab" * 32)
    columns = set(DeskAudit.__table__.columns.keys())
    assert columns == {
        "id", "at", "person_id", "action", "lead_id", "request_id", "subject_id", "digest",
        "detail",  # An export's filters, never personal data (the search text: a digest).
    }  # fmt: skip
    assert _actions(desk_site) == [(7, "confirmed", 42, None)]


def test_a_line_written_with_a_connection_commits_with_its_transaction(
    desk_site: DeskSite,
) -> None:
    try:
        with desk_site.engine.begin() as connection:
            audit.record(connection, 1, AuditAction.CONFIRMED, lead_id=1)
            raise RuntimeError("the action failed")
    except RuntimeError:
        pass
    assert _actions(desk_site) == []


def test_registro_shows_the_log_newest_first_with_who_and_which_lead(
    desk_site: DeskSite,
) -> None:
    browser = desk_site.signed_in("ana@example.com")
    audit.record(desk_site.engine, None, AuditAction.INVITED, subject_id=1)
    audit.record(desk_site.engine, 1, AuditAction.CONFIRMED, lead_id=42)
    page = browser.get(LOG).text
    assert page.index("solicitud n.º 42") < page.index("creó una invitación")
    assert "ana@example.com" in page and "El servidor" in page
    assert "se borra a los 24 meses" in page


def test_registro_pages_through_a_long_log(desk_site: DeskSite) -> None:
    browser = desk_site.signed_in()
    with desk_site.engine.begin() as connection:
        for n in range(120):
            audit.record(connection, 1, AuditAction.CONFIRMED, lead_id=n)
    first = browser.get(LOG).text
    assert "solicitud n.º 119" in first and "solicitud n.º 70<" in first
    assert "solicitud n.º 69<" not in first
    oldest = audit.read(desk_site.engine, size=50).before
    second = browser.get(LOG, params={"before": oldest}).text
    assert "solicitud n.º 69<" in second and "solicitud n.º 119" not in second


def _aged(site: DeskSite, months: float) -> None:
    at = dt.datetime.now(dt.UTC) - dt.timedelta(days=30.44 * months)
    audit.record(site.engine, 1, AuditAction.SIGNED_IN, at=at)


def test_the_daily_round_purges_lines_past_their_months_once_a_day(desk_site: DeskSite) -> None:
    for months in (25, 24.2, 23.5, 1):
        _aged(desk_site, months)
    store = LeadStore(desk_site.engine)
    owner = SimpleNamespace(store=store)
    desk = DeskPlugin(audit_months=24)
    [watcher] = desk.watchers(owner)  # type: ignore[arg-type]
    purged = run(watcher())
    assert purged is not None and purged.audit == 2
    assert len(_actions(desk_site)) == 2
    _aged(desk_site, 30)
    assert run(watcher()) is None  # Claimed for the day: the next round tomorrow.
    assert len(_actions(desk_site)) == 3


def test_the_daily_round_deletes_ended_sessions_stale_challenges_and_old_invites(
    desk_site: DeskSite,
) -> None:
    desk_site.signed_in()
    desk_site.stranger().post(sign_in.SIGN_IN_OPTIONS, json={})
    from agency_site.desk.purge_plugin import purge

    now = desk_site.clock() + dt.timedelta(days=3)
    done = purge(desk_site.engine, now, 24, dt.timedelta(minutes=30), dt.timedelta(hours=12))
    assert (done.sessions, done.challenges, done.invites) == (1, 1, 1)
    with desk_site.engine.connect() as connection:
        for table in (DeskSession, DeskChallenge, DeskInvite):
            assert connection.execute(sa.select(sa.func.count()).select_from(table)).scalar() == 0


def test_the_desk_is_plugged_in_by_default_with_its_settings() -> None:
    loaded = plugins.load(get_settings())
    [desk] = [each for each in loaded if isinstance(each, DeskPlugin)]
    assert desk == plugin(get_settings())
    assert desk.audit_months == get_settings().desk.audit_months


def test_both_privacy_policies_state_the_audit_logs_period() -> None:
    months = get_settings().desk.audit_months
    for language, words in (("es", "escritorio privado"), ("ca", "escriptori privat")):
        body = PRIVACY.of(language).body
        assert words in body and f" {months} mes" in body, language
