"""``python -m agency_site.report``: the log ingested, then the month printed (and its page)."""

from pathlib import Path

import pytest

from agency_site.report import __main__ as cli
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
