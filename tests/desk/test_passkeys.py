"""Passkeys verified by the real ``webauthn`` library against a software authenticator (a
P-256 key of the ``cryptography`` package): sign-in, a counter going back refused, the
origin, the user's verification and the challenge checked, confirmation by one's own
passkey, adding and removing passkeys (SQLite and PostgreSQL)."""

import sqlalchemy as sa
from webauthn.helpers import bytes_to_base64url as _b64

from agency_site import paths
from agency_site.desk import people, sign_in
from agency_site.desk.access import ACCESS
from agency_site.desk.models import DeskAudit, DeskPasskey, DeskSession
from tests.desk.authenticator import Authenticator
from tests.desk.conftest import ORIGIN, DeskSite


def _sign_in(site: DeskSite, authenticator: Authenticator, **answer):
    client = site.stranger()
    options = client.post(sign_in.SIGN_IN_OPTIONS, json={}).json()
    credential = authenticator.get(options, **answer)
    return client, client.post(sign_in.SIGN_IN, json={"credential": credential})


def test_a_passkey_signs_its_person_in_without_an_address(desk_site: DeskSite) -> None:
    key = desk_site.enroll("ana@example.com")
    options = desk_site.stranger().post(sign_in.SIGN_IN_OPTIONS, json={}).json()
    assert options["allowCredentials"] == [] and options["userVerification"] == "required"
    assert options["rpId"] == "desk.test"
    client, answer = _sign_in(desk_site, key)
    assert answer.status_code == 200 and answer.json() == {"next": paths.DESK}
    page = client.get(ACCESS)
    assert page.status_code == 200 and "ana@example.com" in page.text
    with desk_site.engine.connect() as connection:
        [(count, used)] = connection.execute(
            sa.select(DeskPasskey.sign_count, DeskPasskey.last_used_at)
        ).all()
    assert count == 1 and used is not None


def test_a_signature_counter_that_does_not_go_up_is_refused_and_logged(
    desk_site: DeskSite,
) -> None:
    key = desk_site.enroll("ana@example.com")
    assert _sign_in(desk_site, key, count=5)[1].status_code == 200
    for count in (5, 4, 1):
        client, answer = _sign_in(desk_site, key, count=count)
        assert answer.json() == {"error": "replay"}
        assert client.get(paths.DESK).status_code == 303
    assert _sign_in(desk_site, key, count=6)[1].status_code == 200
    with desk_site.engine.connect() as connection:
        actions = connection.execute(sa.select(DeskAudit.action)).scalars().all()
    assert actions.count("passkey_replayed") == 3


def test_an_answer_made_for_another_origin_is_refused(desk_site: DeskSite) -> None:
    key = desk_site.enroll("ana@example.com")
    client = desk_site.stranger()
    options = client.post(sign_in.SIGN_IN_OPTIONS, json={}).json()
    credential = key.get(options, origin="http://desk.test.evil.example")
    answer = client.post(sign_in.SIGN_IN, json={"credential": credential})
    assert answer.json() == {"error": "passkey"}
    options["rpId"] = "evil.example"
    answer = client.post(sign_in.SIGN_IN, json={"credential": key.get(options)})
    assert answer.json() == {"error": "challenge"}  # That challenge was used up already.


def test_a_passkey_without_the_persons_verification_is_refused(desk_site: DeskSite) -> None:
    key = desk_site.enroll("ana@example.com")
    key.verified = False
    assert _sign_in(desk_site, key)[1].json() == {"error": "passkey"}
    client = desk_site.stranger()
    person_token = _fresh_invite(desk_site, "luis@example.com")
    options = client.post(sign_in.ENROLL_OPTIONS, json={"token": person_token}).json()
    lazy = Authenticator(ORIGIN, verified=False)
    answer = client.post(
        sign_in.ENROLL, json={"token": person_token, "credential": lazy.create(options)}
    )
    assert answer.json() == {"error": "passkey"}


def _fresh_invite(site: DeskSite, email: str) -> str:
    person, _ = people.ensure_person(site.engine, email, None, site.clock())
    return people.issue_invite(site.engine, person.id, site.clock())[0]


def test_a_challenge_is_answered_once_and_within_five_minutes(desk_site: DeskSite) -> None:
    key = desk_site.enroll("ana@example.com")
    client = desk_site.stranger()
    options = client.post(sign_in.SIGN_IN_OPTIONS, json={}).json()
    credential = key.get(options)
    assert client.post(sign_in.SIGN_IN, json={"credential": credential}).status_code == 200
    again = desk_site.stranger().post(sign_in.SIGN_IN, json={"credential": credential})
    assert again.json() == {"error": "challenge"}
    late = desk_site.stranger()
    options = late.post(sign_in.SIGN_IN_OPTIONS, json={}).json()
    desk_site.clock.advance(minutes=5, seconds=1)
    assert late.post(sign_in.SIGN_IN, json={"credential": key.get(options)}).json() == {
        "error": "challenge"
    }


def test_an_unknown_passkey_or_junk_is_refused(desk_site: DeskSite) -> None:
    desk_site.enroll("ana@example.com")
    stranger_key = Authenticator(ORIGIN)
    stranger_key.user_handle = "AAAA"
    assert _sign_in(desk_site, stranger_key)[1].json() == {"error": "unknown_passkey"}
    client = desk_site.stranger()
    for body in ({}, {"credential": "x"}, {"credential": {"id": "x"}}, {"credential": {}}):
        answer = client.post(sign_in.SIGN_IN, json=body)
        assert answer.status_code == 400, body
    answer = client.post(sign_in.SIGN_IN, content=b"\xff" * 100_000)
    assert answer.status_code == 400


def test_confirming_takes_ones_own_passkey_and_marks_the_session_fresh(
    desk_site: DeskSite,
) -> None:
    ana = desk_site.stranger()
    ana_key = desk_site.enroll("ana@example.com", ana)
    luis_key = desk_site.enroll("luis@example.com")
    desk_site.clock.advance(minutes=6)  # The sign-in's proof is past its 5 minutes.
    assert ana.get(ACCESS).text.count('data-ceremony="create"') == 0
    options = ana.post(f"{sign_in.CONFIRM}/options", json={}).json()
    [allowed] = options["allowCredentials"]
    assert allowed["id"] == _b64(ana_key.credential_id)
    # Luis's passkey cannot confirm Ana's session.
    refused = ana.post(sign_in.CONFIRM, json={"credential": luis_key.get(options)})
    assert refused.json() == {"error": "unknown_passkey"}
    options = ana.post(f"{sign_in.CONFIRM}/options", json={}).json()
    answer = ana.post(sign_in.CONFIRM, json={"credential": ana_key.get(options), "next": ACCESS})
    assert answer.json() == {"next": ACCESS}
    assert 'data-ceremony="create"' in ana.get(ACCESS).text
    with desk_site.engine.connect() as connection:
        fresh = connection.execute(sa.select(DeskSession.fresh_at)).scalars().all()
    assert desk_site.clock().replace(tzinfo=None) in [f.replace(tzinfo=None) for f in fresh]


def test_adding_a_passkey_asks_for_a_fresh_proof_then_signs_in_with_either(
    desk_site: DeskSite,
) -> None:
    ana = desk_site.stranger()
    first = desk_site.enroll("ana@example.com", ana)
    second = Authenticator(ORIGIN)
    options = ana.post(
        f"{ACCESS}/passkeys/options", json={}, headers={"accept": "application/json"}
    )
    assert options.status_code == 200  # Just signed in: fresh.
    answer = ana.post(
        f"{ACCESS}/passkeys",
        json={"credential": second.create(options.json()), "label": "  Móvil\nde Ana "},
        headers={"accept": "application/json"},
    )
    assert answer.json() == {"next": f"{ACCESS}?done=added"}
    assert "Móvil de Ana" in ana.get(ACCESS).text
    options = ana.post(
        f"{ACCESS}/passkeys/options", json={}, headers={"accept": "application/json"}
    ).json()
    excluded = {credential["id"] for credential in options["excludeCredentials"]}
    assert excluded == {_b64(first.credential_id), _b64(second.credential_id)}
    desk_site.clock.advance(minutes=6)
    stale = ana.post(f"{ACCESS}/passkeys/options", json={}, headers={"accept": "application/json"})
    assert stale.status_code == 403 and stale.json() == {"error": "fresh"}
    for key in (first, second):
        assert _sign_in(desk_site, key)[1].status_code == 200


def test_the_last_passkey_cannot_be_removed_another_can(desk_site: DeskSite) -> None:
    ana = desk_site.stranger()
    desk_site.enroll("ana@example.com", ana)
    with desk_site.engine.connect() as connection:
        [only] = connection.execute(sa.select(DeskPasskey.id)).scalars().all()
    answer = ana.post(f"{ACCESS}/passkeys/{only}/remove")
    assert answer.headers["location"] == f"{ACCESS}?done=last"
    second = Authenticator(ORIGIN)
    options = ana.post(
        f"{ACCESS}/passkeys/options", json={}, headers={"accept": "application/json"}
    )
    ana.post(f"{ACCESS}/passkeys", json={"credential": second.create(options.json())})
    answer = ana.post(f"{ACCESS}/passkeys/{only}/remove")
    assert answer.headers["location"] == f"{ACCESS}?done=removed"
    with desk_site.engine.connect() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(DeskPasskey)).scalar() == 1


def test_removing_waits_for_a_fresh_proof_and_someone_elses_passkey_is_not_found(
    desk_site: DeskSite,
) -> None:
    ana = desk_site.stranger()
    desk_site.enroll("ana@example.com", ana)
    desk_site.enroll("luis@example.com")
    with desk_site.engine.connect() as connection:
        ids = connection.execute(sa.select(DeskPasskey.id).order_by(DeskPasskey.id)).scalars().all()
    assert ana.post(f"{ACCESS}/passkeys/{ids[1]}/remove").status_code == 404
    desk_site.clock.advance(minutes=6)
    answer = ana.post(f"{ACCESS}/passkeys/{ids[0]}/remove", headers={"referer": ORIGIN + ACCESS})
    assert answer.status_code == 303
    assert answer.headers["location"].startswith(f"{sign_in.CONFIRM}?next=")
