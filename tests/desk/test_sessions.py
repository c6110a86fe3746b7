"""Sessions: held by the server, ended when idle (30 min) or old (12 h) whatever happens, on
sign-out, and everywhere at once; the cookie HttpOnly, SameSite=Strict, Secure and
``__Host-`` under https, its path the desk's under http (SQLite and PostgreSQL)."""

import sqlalchemy as sa

from agency_site import paths
from agency_site.desk import sign_in
from agency_site.desk.access import ACCESS
from agency_site.desk.guard import NEXT_PARAM
from agency_site.desk.models import DeskSession
from tests.desk.conftest import DeskSite, make_desk_site

SIGN_OUT_EVERYWHERE = f"{ACCESS}/sign-out-everywhere"


def test_a_session_ends_after_30_idle_minutes(desk_site: DeskSite) -> None:
    browser = desk_site.signed_in()
    for _ in range(4):  # Used every 29 minutes: it lives on.
        desk_site.clock.advance(minutes=29)
        assert browser.get(paths.DESK).status_code == 200
    desk_site.clock.advance(minutes=30, seconds=1)
    answer = browser.get(paths.DESK)
    assert answer.status_code == 303 and answer.headers["location"].startswith(sign_in.SIGN_IN)
    desk_site.clock.advance(seconds=-60)  # Even back in time, the row is gone.
    assert browser.get(paths.DESK).status_code == 303


def test_a_session_ends_12_hours_after_its_sign_in_however_busy(desk_site: DeskSite) -> None:
    browser = desk_site.signed_in()
    for _ in range(12 * 3 - 1):
        desk_site.clock.advance(minutes=20)
        assert browser.get(paths.DESK).status_code == 200
    desk_site.clock.advance(minutes=20, seconds=1)
    assert browser.get(paths.DESK).status_code == 303


def test_signing_out_ends_the_session_and_the_old_cookie_opens_nothing(
    desk_site: DeskSite,
) -> None:
    browser = desk_site.signed_in()
    cookie = dict(browser.cookies)
    answer = browser.post(sign_in.SIGN_OUT)
    assert answer.status_code == 303 and answer.headers["location"] == sign_in.SIGN_IN
    assert (
        "Max-Age=0" in answer.headers["set-cookie"]
        or "expires=" in answer.headers["set-cookie"].lower()
    )
    replay = desk_site.stranger()
    replay.cookies.update(cookie)
    assert replay.get(paths.DESK).status_code == 303
    assert replay.get(ACCESS).status_code == 303


def test_signing_out_everywhere_ends_every_session_of_the_person_only(
    desk_site: DeskSite,
) -> None:
    laptop = desk_site.signed_in("ana@example.com")
    authenticator = desk_site.enroll("luis@example.com")
    luis = desk_site.stranger()
    desk_site.sign_in(luis, authenticator)
    # Ana's phone: a second session of hers.
    phone = desk_site.stranger()
    ana_again = desk_site.stranger()
    ana_key = desk_site.enroll("ana@example.com", ana_again)  # A new invite, a new passkey.
    desk_site.sign_in(phone, ana_key)
    assert laptop.post(SIGN_OUT_EVERYWHERE).status_code == 303
    for browser in (laptop, phone, ana_again):
        assert browser.get(paths.DESK).status_code == 303
    assert luis.get(paths.DESK).status_code == 200


def test_the_cookie_under_http_is_httponly_strict_and_the_desks_path_only(
    desk_site: DeskSite,
) -> None:
    browser = desk_site.stranger()
    desk_site.enroll("ana@example.com", browser)
    [cookie] = list(browser.cookies.jar)
    assert cookie.name == "desk_session" and cookie.path == paths.DESK
    assert cookie.has_nonstandard_attr("HttpOnly")
    assert cookie.get_nonstandard_attr("SameSite").lower() == "strict"
    assert not cookie.secure
    assert cookie.expires is not None  # Max-Age: 12 h.


def test_the_cookie_under_https_is_secure_and_host_prefixed(desk_engine) -> None:
    site = make_desk_site(desk_engine, origin="https://desk.example.es")
    browser = site.stranger("https://desk.example.es")
    site.enroll("ana@example.com", browser)
    [cookie] = list(browser.cookies.jar)
    assert cookie.name == "__Host-desk" and cookie.secure and cookie.path == "/"
    assert cookie.get_nonstandard_attr("SameSite").lower() == "strict"
    assert browser.get(paths.DESK).status_code == 200


def test_only_the_cookies_digest_is_stored(desk_site: DeskSite) -> None:
    browser = desk_site.signed_in()
    token = browser.cookies["desk_session"]
    with desk_site.engine.connect() as connection:
        rows = connection.execute(sa.select(DeskSession)).all()
    assert rows and all(token not in " ".join(map(str, row)) for row in rows)


def test_a_page_asked_without_a_session_comes_back_after_the_sign_in(
    desk_site: DeskSite,
) -> None:
    answer = desk_site.stranger().get(f"{paths.DESK}/log?before=12")
    assert answer.status_code == 303
    assert (
        answer.headers["location"]
        == f"{sign_in.SIGN_IN}?{NEXT_PARAM}=%2F_site%2Fdesk%2Flog%3Fbefore%3D12"
    )
