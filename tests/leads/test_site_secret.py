"""One site secret, and a key of its own for each use (``leads/site_secret.py``): without
``BOOKING_LINK_SECRET`` each host makes one secret once (atomically, 0600, the same for
every process); every use's key differs from the others' and from the secret; what was
signed before the keys were derived still opens during the transition."""

import datetime as dt
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agency_site.bookings import link_secret
from agency_site.leads import site_secret
from agency_site.leads.kept_secret import kept_secret
from agency_site.leads.ratelimit import network_key
from agency_site.leads.site_secret import (
    CHALLENGE,
    FORM_TOKEN,
    NETWORK_DIGEST,
    derived,
    keys,
    site_secrets,
)
from agency_site.leads.spam import form_token
from agency_site.leads.spam.challenge import challenge_key, challenges_of
from agency_site.leads.spam.form_token import FormTokens, token_keys
from agency_site.leads.statuses import SpamReason
from agency_site.report import started
from agency_site.report.link import ReportLinks
from agency_site.report.mail_plugin import REPORT_LINKS, report_links
from agency_site.settings import ROOT
from tests.bookings.test_link_secret import SECRETS, settings_with

SECRET, OLD = "s" * 43, "o" * 43
MONTH = dt.date(2026, 11, 1)


def first_keys(settings) -> dict[str, str]:
    """The key each use signs with on a site of these settings."""
    return {
        "form tokens": token_keys(settings)[0],
        "proof of work": keys(settings, CHALLENGE)[0],
        "network digests": network_key(settings),
        "booking links": link_secret.link_secrets(settings)[0],
        "report links": keys(settings, REPORT_LINKS)[0],
        "forms started": keys(settings, started.FORMS_STARTED)[0],
    }


@given(secret=SECRETS)
def test_each_use_has_a_key_of_its_own_derived_from_the_one_secret(secret: str) -> None:
    """For every secret: six uses, six keys, none of them the secret itself."""
    found = first_keys(settings_with(Path("/nonexistent"), secret))
    assert len(set(found.values())) == len(found), found
    assert secret not in found.values()
    assert found["form tokens"] == derived(secret, FORM_TOKEN)
    assert found["network digests"] == derived(secret, NETWORK_DIGEST)


def test_a_host_without_the_setting_keeps_one_secret_for_every_use(tmp_path: Path) -> None:
    """One file, ``site-secret``, whatever signs first: the form tokens and the booking
    links no longer keep a secret each."""
    found = first_keys(settings_with(tmp_path))
    assert [path.name for path in tmp_path.iterdir()] == [site_secret.FILE_NAME]
    kept = (tmp_path / site_secret.FILE_NAME).read_text().strip()
    assert found == first_keys(settings_with(Path("/nonexistent"), kept))
    assert first_keys(settings_with(tmp_path)) == found  # The next start: the same.


def test_a_rotation_signs_with_the_newest_and_verifies_with_every_listed_one(
    tmp_path: Path,
) -> None:
    rotated = settings_with(tmp_path, f"{SECRET},{OLD}")
    assert site_secrets(rotated) == (SECRET, OLD)
    assert keys(rotated, FORM_TOKEN) == (derived(SECRET, FORM_TOKEN), derived(OLD, FORM_TOKEN))
    assert network_key(rotated) == derived(SECRET, NETWORK_DIGEST)  # Digests: the newest.
    links, old_site = report_links(rotated), report_links(settings_with(tmp_path, OLD))
    new_site = report_links(settings_with(tmp_path, SECRET))
    assert links is not None and old_site is not None and new_site is not None
    assert links.opens(old_site.token(MONTH), "2026-11")  # Mailed before the rotation.
    assert new_site.opens(links.token(MONTH), "2026-11")  # The newest signs.
    assert not old_site.opens(links.token(MONTH), "2026-11")


def test_what_was_signed_before_the_keys_were_derived_still_opens(tmp_path: Path) -> None:
    """The report's monthly link, a form's token and a proof of work made with the secret
    itself (as before) open on a site of that secret; what the site makes now does not
    open with the secret itself."""
    settings = settings_with(tmp_path, SECRET)
    before = ReportLinks([SECRET], "https://api.test", 60)
    now = report_links(settings)
    assert now is not None and now.opens(before.token(MONTH), "2026-11")
    assert not before.opens(now.token(MONTH), "2026-11")

    tokens = form_token.tokens_of(settings)
    assert tokens is not None
    opened = FormTokens([SECRET], dt.timedelta(0), clock=lambda: time.time() - 60)
    assert tokens.check(opened.issue()) is None  # A page opened a minute before.
    assert FormTokens([SECRET], dt.timedelta(0)).check(tokens.issue()) is SpamReason.BAD_TOKEN

    challenges = challenges_of(settings)
    assert challenges is not None and challenge_key(SECRET) in challenges._keys


def test_an_unusable_kept_secret_turns_its_uses_off_loudly_and_never_logs_a_secret(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An ERROR names the file and the setting; each use is off (the booking links say so:
    the agency answers by hand), none falls back to a key of its own."""
    path = tmp_path / site_secret.FILE_NAME
    path.write_text("short-but-secret\n")
    with caplog.at_level(logging.ERROR):
        assert site_secrets(settings_with(tmp_path)) == ()
        assert keys(settings_with(tmp_path), FORM_TOKEN) == ()
        assert report_links(settings_with(tmp_path)) is None
        assert link_secret.link_secrets(settings_with(tmp_path)) == ()
    assert str(path) in caplog.text and "BOOKING_LINK_SECRET" in caplog.text
    assert "booking links are OFF" in caplog.text
    assert "short-but-secret" not in caplog.text


# --- Kept on the host ------------------------------------------------------------------------


def test_unset_a_secret_is_made_once_in_the_data_folder_and_kept(tmp_path: Path) -> None:
    settings = settings_with(tmp_path)
    assert site_secret.secret_file(settings) == tmp_path / "site-secret"
    (first,) = site_secrets(settings)
    assert len(first) >= 32
    assert site_secrets(settings) == (first,)  # The next start, another worker: the same.
    assert (tmp_path / "site-secret").read_text().strip() == first
    assert oct((tmp_path / "site-secret").stat().st_mode & 0o777) == "0o600"
    assert [path.name for path in tmp_path.iterdir()] == ["site-secret"]  # No temp left.


def test_a_set_secret_wins_and_nothing_is_written(tmp_path: Path) -> None:
    assert site_secrets(settings_with(tmp_path, f"{SECRET},{OLD}")) == (SECRET, OLD)
    assert list(tmp_path.iterdir()) == []


def test_without_the_deploy_data_folder_the_site_folders_data_is_used(tmp_path: Path) -> None:
    """`make run` on a developer's machine: no /var/lib/agency_site, the checkout's data/."""
    settings = settings_with(tmp_path / "not-there")
    assert site_secret.secret_file(settings) == ROOT / "data" / "site-secret"


def test_a_process_that_loses_the_race_takes_the_winners_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between our look and our link another process put its secret there: ours is dropped,
    theirs kept (a link never replaces)."""
    path, theirs = tmp_path / "site-secret", "t" * 43
    real_link = os.link

    def another_process_first(source: str, target: Path) -> None:
        Path(target).write_text(theirs + "\n")
        real_link(source, target)

    monkeypatch.setattr(os, "link", another_process_first)
    assert kept_secret(path) == theirs
    assert path.read_text().strip() == theirs
    assert [entry.name for entry in tmp_path.iterdir()] == ["site-secret"]


# Each process imports, waits for the start signal, then asks for the secret at once.
_RACER = """
import sys, time
from pathlib import Path
from agency_site.leads.kept_secret import kept_secret
go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.001)
print(kept_secret(Path(sys.argv[1])))
"""


def test_processes_starting_at_once_end_with_the_same_secret(tmp_path: Path) -> None:
    path, go = tmp_path / "data" / "site-secret", tmp_path / "go"
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", _RACER, str(path), str(go)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    time.sleep(3)  # Let them all import and wait.
    go.touch()
    secrets = {racer.communicate(timeout=60)[0].strip() for racer in racers}
    assert all(racer.returncode == 0 for racer in racers)
    assert secrets == {path.read_text().strip()} and len(secrets.pop()) >= 32
    assert [entry.name for entry in path.parent.iterdir()] == ["site-secret"]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a file for another user")
def test_made_by_root_in_the_site_users_folder_it_is_that_users(tmp_path: Path) -> None:
    """An operator's command (sudo) first to start must not lock the backends out."""
    os.chown(tmp_path, 65534, 65534)
    kept_secret(tmp_path / "site-secret")
    made = (tmp_path / "site-secret").stat()
    assert (made.st_uid, made.st_gid, made.st_mode & 0o777) == (65534, 65534, 0o600)


@given(secrets=st.lists(SECRETS, min_size=1, max_size=3, unique=True))
def test_the_transition_keys_follow_the_derived_ones_and_verify_only(secrets: list[str]) -> None:
    """Whatever the list: the derived keys first (the newest signs), then the secrets."""
    settings = settings_with(Path("/nonexistent"), ",".join(secrets))
    found = site_secret.transition_keys(settings, FORM_TOKEN)
    assert found == (*(derived(s, FORM_TOKEN) for s in secrets), *secrets)
