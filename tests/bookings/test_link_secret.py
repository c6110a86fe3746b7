"""The booking links work out of the box: without ``BOOKING_LINK_SECRET`` each host makes
one secret once (atomically, 0600, the same for every process), and a list of secrets
rotates it: the newest signs, any listed opens, one removed opens nothing."""

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from agency_site.bookings import link_secret
from agency_site.bookings.link_secret import kept_secret, link_secrets, secret_file
from agency_site.bookings.links import LinkAction, LinkProblem, LinkSigner, VerifiedLink
from agency_site.settings import ROOT, BookingSettings, DeploySettings, Settings, load_settings

OLD, NEW, GONE = "o" * 40, "n" * 40, "g" * 40
DAY_S = 86_400.0
# What a secret may be made of in the setting (no comma: that separates them).
SECRETS = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", min_size=32
)


def settings_with(data_dir: Path, link_secret_value: str = "") -> Settings:
    """The site's settings with this data folder and ``BOOKING_LINK_SECRET``."""
    settings = load_settings()
    booking = BookingSettings(_env_file=None, link_secret=link_secret_value)
    deploy = DeploySettings(_env_file=None, data_dir=str(data_dir))
    return settings.model_copy(update={"booking": booking, "deploy": deploy})


def opens(signer: LinkSigner, token: str) -> bool:
    return isinstance(signer.verify(token, DAY_S), VerifiedLink)


# --- Generated when unset -------------------------------------------------------------------


def test_unset_a_secret_is_made_once_in_the_data_folder_and_kept(tmp_path: Path) -> None:
    settings = settings_with(tmp_path)
    assert secret_file(settings) == tmp_path / "booking-link-secret"
    (first,) = link_secrets(settings)
    assert len(first) >= 32
    assert link_secrets(settings) == (first,)  # The next start, another worker: the same.
    assert (tmp_path / "booking-link-secret").read_text().strip() == first
    assert oct((tmp_path / "booking-link-secret").stat().st_mode & 0o777) == "0o600"
    assert [path.name for path in tmp_path.iterdir()] == ["booking-link-secret"]  # No temp left.
    # A link made by one process opens in another.
    token = LinkSigner(link_secrets(settings)).token(LinkAction.CANCEL, 7, "key")
    assert opens(LinkSigner(link_secrets(settings_with(tmp_path))), token)


def test_a_set_secret_wins_and_nothing_is_written(tmp_path: Path) -> None:
    assert link_secrets(settings_with(tmp_path, f"{NEW},{OLD}")) == (NEW, OLD)
    assert list(tmp_path.iterdir()) == []


def test_without_the_deploy_data_folder_the_site_folders_data_is_used(tmp_path: Path) -> None:
    """`make run` on a developer's machine: no /var/lib/agency_site, the checkout's data/."""
    settings = settings_with(tmp_path / "not-there")
    assert secret_file(settings) == link_secret.SITE_DATA / "booking-link-secret"
    assert link_secret.SITE_DATA == ROOT / "data"


def test_a_process_that_loses_the_race_takes_the_winners_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between our look and our link another process put its secret there: ours is dropped,
    theirs kept (a link never replaces)."""
    path, theirs = tmp_path / "booking-link-secret", "t" * 43
    real_link = os.link

    def another_process_first(source: str, target: Path) -> None:
        Path(target).write_text(theirs + "\n")
        real_link(source, target)

    monkeypatch.setattr(os, "link", another_process_first)
    assert kept_secret(path) == theirs
    assert path.read_text().strip() == theirs
    assert [entry.name for entry in tmp_path.iterdir()] == ["booking-link-secret"]


# Each process imports, waits for the start signal, then asks for the secret at once.
_RACER = """
import sys, time
from pathlib import Path
from agency_site.bookings.link_secret import kept_secret
go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.001)
print(kept_secret(Path(sys.argv[1])))
"""


def test_processes_starting_at_once_end_with_the_same_secret(tmp_path: Path) -> None:
    path, go = tmp_path / "data" / "booking-link-secret", tmp_path / "go"
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
    assert [entry.name for entry in path.parent.iterdir()] == ["booking-link-secret"]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a file for another user")
def test_made_by_root_in_the_site_users_folder_it_is_that_users(tmp_path: Path) -> None:
    """An operator's command (sudo) first to start must not lock the backends out."""
    os.chown(tmp_path, 65534, 65534)
    kept_secret(tmp_path / "booking-link-secret")
    made = (tmp_path / "booking-link-secret").stat()
    assert (made.st_uid, made.st_gid, made.st_mode & 0o777) == (65534, 65534, 0o600)


def test_an_unusable_kept_secret_turns_the_links_off_loudly_and_never_logs_a_secret(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "booking-link-secret"
    path.write_text("short-but-secret\n")
    with caplog.at_level(logging.ERROR):
        assert link_secrets(settings_with(tmp_path)) == ()
    assert "booking links are OFF" in caplog.text and str(path) in caplog.text
    assert "short-but-secret" not in caplog.text


def test_the_secret_never_reaches_the_log(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from agency_site.bookings.plugin import plugin

    settings = settings_with(tmp_path)
    with caplog.at_level(logging.DEBUG):
        made = plugin(settings)
        (secret,) = link_secrets(settings)
    assert made.agency_email.args == ((secret,),)  # The plugin signs its links with it.
    assert secret not in caplog.text


# --- Rotation ---------------------------------------------------------------------------------


def test_after_a_rotation_old_links_open_and_links_of_a_removed_secret_are_tampered() -> None:
    before = LinkSigner(OLD).token(LinkAction.CONFIRM, 3, "key")
    rotated = LinkSigner([NEW, OLD])
    assert opens(rotated, before)
    after = rotated.token(LinkAction.CONFIRM, 3, "key")
    assert opens(LinkSigner(NEW), after) and not opens(LinkSigner(OLD), after)
    assert LinkSigner(NEW).verify(before, DAY_S) is LinkProblem.TAMPERED  # OLD removed.
    assert LinkSigner([NEW, GONE]).verify(before, DAY_S) is LinkProblem.TAMPERED


@given(keys=st.lists(SECRETS, min_size=1, max_size=4, unique=True), outsider=SECRETS)
def test_every_listed_secret_opens_the_newest_signs_and_no_other_opens(
    keys: list[str], outsider: str
) -> None:
    """For every list and order: a link of any listed secret opens; new links are the first
    secret's; a secret not listed opens nothing of theirs, nor they its."""
    signer = LinkSigner(keys)
    for key in keys:
        assert opens(signer, LinkSigner(key).token(LinkAction.CANCEL, 1, "k"))
    made = signer.token(LinkAction.CANCEL, 1, "k")
    assert opens(LinkSigner(keys[0]), made)
    assert all(not opens(LinkSigner(key), made) for key in keys[1:])
    if outsider not in keys:
        assert signer.verify(LinkSigner(outsider).token(LinkAction.CANCEL, 1, "k"), DAY_S) is (
            LinkProblem.TAMPERED
        )
        assert not opens(LinkSigner(outsider), made)


@given(keys=st.lists(SECRETS, min_size=1, max_size=4, unique=True))
def test_the_setting_lists_its_secrets_newest_first(keys: list[str]) -> None:
    value = " , ".join(keys) + ","
    assert BookingSettings(_env_file=None, link_secret=value).link_secrets == tuple(keys)


def test_each_secret_needs_32_characters_and_an_error_never_shows_it() -> None:
    short = "x" * 31
    with pytest.raises(ValidationError) as refused:
        BookingSettings(_env_file=None, link_secret=f"{NEW},{short}")
    assert "32 characters" in str(refused.value) and short not in str(refused.value)
    assert NEW not in str(refused.value)
    with pytest.raises(ValueError, match="32 characters"):
        LinkSigner([NEW, short])
    with pytest.raises(ValueError, match="32 characters"):
        LinkSigner([])
    assert BookingSettings(_env_file=None).link_secrets == ()
