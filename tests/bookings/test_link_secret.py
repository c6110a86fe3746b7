"""The booking links work out of the box: their key is the site secret's for them
(``leads/site_secret.py``; without ``BOOKING_LINK_SECRET`` the host's own, made once: its
keeping is ``tests/leads/test_site_secret.py``'s), a list of secrets rotates it (the newest
signs, any listed opens, one removed opens nothing), and a link mailed before the keys were
derived still opens."""

import logging
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from agency_site.bookings import link_secret
from agency_site.bookings.link_secret import link_secrets
from agency_site.bookings.links import LinkAction, LinkProblem, LinkSigner, VerifiedLink
from agency_site.leads import site_secret
from agency_site.settings import BookingSettings, DeploySettings, Settings, load_settings

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


# --- The site secret's key for the links -----------------------------------------------------


def test_unset_the_links_key_comes_from_the_host_s_kept_site_secret(tmp_path: Path) -> None:
    settings = settings_with(tmp_path)
    (first,) = link_secrets(settings)
    kept = (tmp_path / site_secret.FILE_NAME).read_text().strip()
    assert first == site_secret.derived(kept, link_secret.LINK_KEYS) and first != kept
    assert link_secrets(settings) == (first,)  # The next start, another worker: the same.
    assert [path.name for path in tmp_path.iterdir()] == [site_secret.FILE_NAME]
    # A link made by one process opens in another.
    token = LinkSigner(link_secrets(settings)).token(LinkAction.CANCEL, 7, "key")
    assert opens(LinkSigner(link_secrets(settings_with(tmp_path))), token)


def test_a_set_secret_wins_and_nothing_is_written(tmp_path: Path) -> None:
    derived = [site_secret.derived(secret, link_secret.LINK_KEYS) for secret in (NEW, OLD)]
    assert link_secrets(settings_with(tmp_path, f"{NEW},{OLD}")) == (*derived, NEW, OLD)
    assert list(tmp_path.iterdir()) == []


def test_a_link_mailed_before_the_keys_were_derived_still_opens(tmp_path: Path) -> None:
    """Signed with BOOKING_LINK_SECRET itself, or, on a host without it, with the secret it
    kept in ``booking-link-secret``: both open; new links are the derived key's."""
    before = LinkSigner(OLD).token(LinkAction.CONFIRM, 3, "key")
    set_site = LinkSigner(link_secrets(settings_with(tmp_path / "set", OLD)))
    assert opens(set_site, before)
    assert not opens(LinkSigner(OLD), set_site.token(LinkAction.CONFIRM, 3, "key"))
    host = tmp_path / "host"
    host.mkdir()
    (host / link_secret.FILE_NAME).write_text(OLD + "\n")
    kept_site = LinkSigner(link_secrets(settings_with(host)))
    assert opens(kept_site, before)
    assert not opens(LinkSigner(OLD), kept_site.token(LinkAction.CONFIRM, 3, "key"))
    # Without that file (a new host), a link of another secret opens nothing.
    (tmp_path / "new").mkdir()
    assert not opens(LinkSigner(link_secrets(settings_with(tmp_path / "new"))), before)


@given(keys=st.lists(SECRETS, min_size=2, max_size=4, unique=True))
def test_a_rotated_site_secret_opens_every_link_its_listed_secrets_made(keys: list[str]) -> None:
    """For every list: a link made while only one listed secret was set opens once the
    list is set; new links are the newest secret's, and open where only it is set."""
    site = LinkSigner(link_secrets(settings_with(Path("/nonexistent"), ",".join(keys))))
    for key in keys:
        alone = LinkSigner(link_secrets(settings_with(Path("/nonexistent"), key)))
        assert opens(site, alone.token(LinkAction.CANCEL, 1, "k"))
    made = site.token(LinkAction.CANCEL, 1, "k")
    assert opens(LinkSigner(link_secrets(settings_with(Path("/nonexistent"), keys[0]))), made)
    later = LinkSigner(link_secrets(settings_with(Path("/nonexistent"), keys[1])))
    assert not opens(later, made)


def test_the_secret_never_reaches_the_log(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from agency_site.bookings.plugin import plugin

    settings = settings_with(tmp_path)
    with caplog.at_level(logging.DEBUG):
        made = plugin(settings)
        (key,) = link_secrets(settings)
    # The plugin signs its links with it (to the backend the settings name).
    assert made.agency_email.args == (settings.reflex.api_url, (key,))
    kept = (tmp_path / site_secret.FILE_NAME).read_text().strip()
    assert key not in caplog.text and kept not in caplog.text


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
