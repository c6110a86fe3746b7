"""Invites: the operator's link enrolls one passkey, once, within 24 hours; the database keeps
only the token's digest; a new invite ends the person's earlier ones (SQLite and PostgreSQL)."""

import datetime as dt
import io
import re

import sqlalchemy as sa

from agency_site import paths
from agency_site.desk import __main__ as cli
from agency_site.desk import people, sign_in
from agency_site.desk.models import DeskAudit, DeskInvite, DeskPasskey, DeskPerson
from tests.desk.authenticator import Authenticator
from tests.desk.conftest import ORIGIN, DeskSite


def _enroll(site: DeskSite, token: str, authenticator: Authenticator | None = None):
    client = site.stranger()
    options = client.post(sign_in.ENROLL_OPTIONS, json={"token": token})
    if options.status_code != 200:
        return client, options
    authenticator = authenticator or Authenticator(ORIGIN)
    credential = authenticator.create(options.json())
    return client, client.post(sign_in.ENROLL, json={"token": token, "credential": credential})


def _invite(site: DeskSite, email: str = "ana@example.com") -> str:
    person, _ = people.ensure_person(site.engine, email, None, site.clock())
    token, _ = people.issue_invite(site.engine, person.id, site.clock())
    return token


def test_an_invite_enrolls_one_passkey_and_signs_the_person_in(desk_site: DeskSite) -> None:
    token = _invite(desk_site)
    client, answer = _enroll(desk_site, token)
    assert answer.status_code == 200 and answer.json() == {"next": paths.DESK}
    assert client.get(paths.DESK).status_code == 200
    with desk_site.engine.connect() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(DeskPasskey)).scalar() == 1


def test_an_invite_is_used_once(desk_site: DeskSite) -> None:
    token = _invite(desk_site)
    assert _enroll(desk_site, token)[1].status_code == 200
    _, again = _enroll(desk_site, token)
    assert again.status_code == 400 and again.json() == {"error": "invite"}


def test_an_invite_is_refused_after_24_hours(desk_site: DeskSite) -> None:
    token = _invite(desk_site)
    desk_site.clock.advance(hours=24, seconds=1)
    _, answer = _enroll(desk_site, token)
    assert answer.status_code == 400 and answer.json() == {"error": "invite"}


def test_an_invite_that_expires_during_its_ceremony_enrolls_nothing(desk_site: DeskSite) -> None:
    token = _invite(desk_site)
    desk_site.clock.advance(hours=23, minutes=59)
    client = desk_site.stranger()
    options = client.post(sign_in.ENROLL_OPTIONS, json={"token": token}).json()
    desk_site.clock.advance(minutes=2)
    credential = Authenticator(ORIGIN).create(options)
    answer = client.post(sign_in.ENROLL, json={"token": token, "credential": credential})
    assert answer.json() == {"error": "invite"}
    assert client.get(paths.DESK).status_code == 303


def test_a_new_invite_ends_the_earlier_ones(desk_site: DeskSite) -> None:
    first = _invite(desk_site)
    second = _invite(desk_site)
    assert _enroll(desk_site, first)[1].json() == {"error": "invite"}
    assert _enroll(desk_site, second)[1].status_code == 200


def test_only_the_tokens_digest_is_stored(desk_site: DeskSite) -> None:
    token = _invite(desk_site)
    with desk_site.engine.connect() as connection:
        stored = connection.execute(sa.select(DeskInvite.token_digest)).scalars().all()
        dumped = " ".join(
            str(value) for row in connection.execute(sa.select(DeskInvite)) for value in row
        )
    assert token not in dumped
    assert stored == [people.tokens.digest(token)]


def test_an_unknown_or_odd_token_is_refused(desk_site: DeskSite) -> None:
    client = desk_site.stranger()
    for body in ({"token": "nope"}, {"token": "x" * 5000}, {}, {"token": 3}, []):
        answer = client.post(sign_in.ENROLL_OPTIONS, json=body)
        assert answer.status_code == 400 and answer.json() == {"error": "invite"}


def test_the_command_prints_a_link_that_enrolls_and_logs_the_invite(
    desk_engine, monkeypatch, desk_site: DeskSite
) -> None:
    url = desk_engine.url.render_as_string(hide_password=False)
    monkeypatch.setenv("REFLEX_DB_URL", url)
    monkeypatch.setenv("REFLEX_API_URL", ORIGIN)
    monkeypatch.delenv("DESK_HOST", raising=False)
    from agency_site.settings import get_settings

    get_settings.cache_clear()
    desk_site.clock.now = dt.datetime.now(dt.UTC)  # The command's own clock.
    out = io.StringIO()
    try:
        assert cli.main(["invite", "Marta@Example.com", "--name", "Marta"], out) == 0
    finally:
        get_settings.cache_clear()
    text = out.getvalue()
    [link] = re.findall(r"^http\S+$", text, re.MULTILINE)
    assert link.startswith(f"{ORIGIN}{sign_in.ENROLL}#")
    token = link.split("#", 1)[1]
    # The token is in the fragment: no server, access log or Referer ever sees it.
    assert "?" not in link
    assert _enroll(desk_site, token)[1].status_code == 200
    with desk_engine.connect() as connection:
        person = connection.execute(sa.select(DeskPerson)).one()
        actions = connection.execute(sa.select(DeskAudit.action, DeskAudit.person_id)).all()
    assert (person.email, person.name) == ("marta@example.com", "Marta")
    assert ("invited", None) in actions and ("enrolled", person.id) in actions
