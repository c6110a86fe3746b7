"""``python -m agency_site.report``: the log ingested, then the month printed (and its page)."""

from pathlib import Path

import pytest

from agency_site.leads.site_secret import derived
from agency_site.report import __main__ as cli
from agency_site.report.mail_plugin import REPORT_LINKS
from agency_site.settings import get_settings
from tests.report.test_report import SITE, generated_log


@pytest.fixture
def site_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("REFLEX_DB_URL", f"sqlite:///{tmp_path / 'leads.db'}")
    monkeypatch.setenv("DEPLOY_ACCESS_LOG", str(tmp_path / "access.log"))
    monkeypatch.setattr(cli, "known_pages", lambda *_: SITE)  # The routes' import: 8 s.
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def test_the_command_ingests_the_settings_log_then_prints_the_month(site_settings, capsys) -> None:
    (site_settings / "access.log").write_text("".join(generated_log()))
    assert cli.main(["ingest"]) == 0
    assert "21 líneas nuevas" in capsys.readouterr().err
    page = site_settings / "informe.html"
    assert cli.main(["--month", "2026-11", "--html", str(page)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Informe de noviembre de 2026")
    assert "Total: 8 visitas" in printed  # Ingested once: the second run read nothing new.
    assert page.read_text().count("<svg") == 3


def test_a_month_is_written_as_year_and_month(site_settings) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--month", "noviembre"])


def test_link_prints_a_fresh_signed_link_and_mail_sends_a_month_by_hand(
    site_settings, capsys, monkeypatch: pytest.MonkeyPatch, emailjs
) -> None:
    import re

    import sqlalchemy as sa

    from agency_site.leads.store import LeadStore
    from agency_site.report import mail
    from agency_site.report.link import ReportLinks
    from tests.emailjs_fake import PUBLIC_KEY, SERVICE_ID, accept_sends, sent_payloads

    secret = "k" * 43
    for name, value in {
        "BOOKING_LINK_SECRET": secret,
        "REFLEX_API_URL": "https://api.agencia.example",
        "EMAILJS_API_BASE": emailjs.url_for("").rstrip("/"),
        "EMAILJS_SERVICE_ID": SERVICE_ID,
        "EMAILJS_PUBLIC_KEY": PUBLIC_KEY,
        "EMAILJS_CONTACT_TEMPLATE_ID": "template_agency",
    }.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    assert cli.main(["link", "--month", "2026-11"]) == 0
    url = capsys.readouterr().out.strip()
    found = re.fullmatch(r"https://api\.agencia\.example/_site/report/2026-11\?t=(\S+)", url)
    key = derived(secret, REPORT_LINKS)  # The site secret's key for the report's links.
    assert found and ReportLinks([key], "", 60).opens(found[1], "2026-11")

    (site_settings / "access.log").write_text("".join(generated_log()))
    accept_sends(emailjs)
    assert cli.main(["mail", "--month", "2026-11"]) == 0
    [payload] = sent_payloads(emailjs)
    assert "Visitas: 8" in payload["template_params"]["message"]
    assert "/_site/report/2026-11?t=" in payload["template_params"]["message"]
    engine = sa.create_engine(get_settings().reflex.db_url.get_secret_value())
    # A month other than the one due now (this one, unfinished) is not recorded as sent.
    assert LeadStore(engine).monitor_state(mail.REPORT_MAIL) == ""
    engine.dispose()
