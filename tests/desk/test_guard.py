"""The guard in front of every desk route: nothing without a session (every route of the app,
walked: a new screen is covered by itself), no request from another origin, the strict
headers on every answer, ``DESK_HOST``, the static files, the sign-in's rate limit."""

import logging
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Route

from agency_site import paths
from agency_site.desk import sign_in, static
from agency_site.desk.guard import POLICY, SAFE_METHODS
from tests.desk.conftest import ORIGIN, DeskSite, make_desk_site


def _url(route: Route) -> str:
    """A route's path with its parameters filled in."""
    return re.sub(r"\{([a-z_]+)(:int)?\}", lambda m: "1" if m[2] else "x", route.path)


def desk_routes(site: DeskSite) -> list[tuple[str, str]]:
    """(method, url) of every route of the desk's app."""
    return sorted(
        (method, _url(route))
        for route in site.app.routes
        if isinstance(route, Route)
        for method in route.methods or ()
    )


def test_every_route_but_the_sign_in_ones_refuses_a_request_without_a_session(
    desk_site: DeskSite,
) -> None:
    routes = desk_routes(desk_site)
    assert len(routes) > 15
    client = desk_site.stranger()
    walked = 0
    for method, url in routes:
        if url in desk_site.desk.public or static.is_static(url):
            continue
        walked += 1
        answer = client.request(method, url)
        if method in ("GET", "HEAD"):
            assert answer.status_code == 303, (method, url)
            assert answer.headers["location"].startswith(sign_in.SIGN_IN), (method, url)
        else:
            assert answer.status_code == 401, (method, url)
            json_answer = client.request(method, url, headers={"accept": "application/json"})
            assert json_answer.status_code == 401 and json_answer.json() == {"error": "session"}
    assert walked >= 10


def test_the_public_routes_are_the_sign_in_and_the_enrolment_only(desk_site: DeskSite) -> None:
    assert desk_site.desk.public == {
        sign_in.SIGN_IN,
        sign_in.SIGN_IN_OPTIONS,
        sign_in.ENROLL,
        sign_in.ENROLL_OPTIONS,
    }
    # ...and they hand out nothing personal: a page, or a challenge.
    client = desk_site.stranger()
    desk_site.enroll("ana@example.com")
    assert "ana@example.com" not in client.get(sign_in.SIGN_IN).text
    assert "ana" not in client.post(sign_in.SIGN_IN_OPTIONS, json={}).text


FOREIGN_ORIGINS = st.one_of(
    st.sampled_from(
        [
            "null",
            "",
            "http://desk.test.evil.example",
            "https://desk.test",
            "http://desk.test:8000",
            "http://evil.example",
            "http://www.desk.test",
            ORIGIN + "/",
            ORIGIN.upper(),
        ]
    ),
    st.builds(
        lambda scheme, host, port: f"{scheme}://{host}{port}",
        st.sampled_from(["http", "https", "ftp"]),
        st.from_regex(r"[a-z0-9.-]{1,30}", fullmatch=True),
        st.sampled_from(["", ":80", ":443", ":8000"]),
    ),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40),
).filter(lambda origin: origin.strip() != ORIGIN)


@pytest.fixture
def signed_in_site(desk_site: DeskSite) -> DeskSite:
    desk_site.browser = desk_site.signed_in()
    return desk_site


@settings(max_examples=120, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_state_changing_request_from_any_other_origin_is_refused(
    signed_in_site: DeskSite, data
) -> None:
    site = signed_in_site
    routes = [(m, u) for m, u in desk_routes(site) if m not in SAFE_METHODS]
    method, url = data.draw(st.sampled_from(routes), label="route")
    origin = data.draw(FOREIGN_ORIGINS, label="origin")
    referer = data.draw(
        st.sampled_from([None, "http://evil.example/page", "http://desk.test.evil.example/"]),
        label="referer",
    )
    headers = {"origin": origin}
    if referer:
        headers["referer"] = referer
    answer = site.browser.request(method, url, headers=headers, json={})
    assert answer.status_code == 403, (method, url, origin)
    assert "Rechazado" in answer.text
    # Without any Origin, a Referer of another site (or none) is refused too.
    del site.browser.headers["origin"]
    try:
        bare = site.browser.request(
            method, url, headers={"referer": referer} if referer else {}, json={}
        )
    finally:
        site.browser.headers["origin"] = ORIGIN
    assert bare.status_code == 403 and "Rechazado" in bare.text
    # Nothing was done: the session lives (a refused sign-out did not end it).
    assert site.browser.get(paths.DESK).status_code == 200


def test_the_desks_own_origin_passes_on_every_state_changing_route(desk_site: DeskSite) -> None:
    for method, url in desk_routes(desk_site):
        if method in SAFE_METHODS:
            continue
        browser = desk_site.signed_in()
        answer = browser.request(method, url, json={})
        assert answer.status_code != 403 or answer.json() == {"error": "fresh"}, (method, url)
        assert "Rechazado" not in answer.text


def test_without_an_origin_a_referer_of_the_desk_lets_a_request_through(
    desk_site: DeskSite,
) -> None:
    browser = desk_site.signed_in()
    del browser.headers["origin"]
    answer = browser.post(sign_in.SIGN_OUT, headers={"referer": ORIGIN + paths.DESK})
    assert answer.status_code == 303 and answer.headers["location"] == sign_in.SIGN_IN


def test_a_page_read_by_another_origins_script_is_refused(desk_site: DeskSite) -> None:
    browser = desk_site.signed_in()
    answer = browser.get(paths.DESK, headers={"origin": "https://www.desk.test"})
    assert answer.status_code == 403 and "ana@example.com" not in answer.text


def test_a_refusal_logs_one_bounded_line(desk_site: DeskSite, caplog) -> None:
    caplog.set_level(logging.WARNING, "agency_site.desk")
    desk_site.stranger().post(sign_in.SIGN_OUT, headers={"origin": "http://x" + "y" * 5000})
    [line] = [r.getMessage() for r in caplog.records if "another origin" in r.getMessage()]
    assert len(line) < 400


def test_every_answer_carries_the_strict_headers(desk_site: DeskSite) -> None:
    browser = desk_site.signed_in()
    answers = [browser.get(url) for method, url in desk_routes(desk_site) if method == "GET"]
    answers += [desk_site.stranger().get(paths.DESK), browser.get(paths.DESK + "/nothing")]
    answers += [browser.post(sign_in.SIGN_OUT, headers={"origin": "http://evil.example"})]
    for answer in answers:
        assert answer.headers["content-security-policy"] == POLICY
        assert answer.headers["x-robots-tag"] == "noindex, nofollow"
        assert answer.headers["referrer-policy"] == "same-origin"
        if not answer.url.path.startswith(static.PREFIX):
            assert answer.headers["cache-control"] == "no-store"
        if answer.headers.get("content-type", "").startswith("text/html"):
            assert '<meta name="robots" content="noindex, nofollow">' in answer.text


def test_the_unknown_desk_page_is_the_desks_own_not_found(desk_site: DeskSite) -> None:
    browser = desk_site.signed_in()
    answer = browser.get(paths.desk_lead(999))
    assert answer.status_code == 404 and "No encontrado" in answer.text


def test_with_a_desk_host_any_other_host_gets_the_not_found_page(desk_engine) -> None:
    site = make_desk_site(desk_engine, origin="https://desk.example.es", host="desk.example.es")
    elsewhere = site.stranger("https://www.example.es")
    for path in (paths.DESK, sign_in.SIGN_IN, static.url("desk.css")):
        answer = elsewhere.get(path)
        assert answer.status_code == 404 and answer.text == "not found"
    here = site.stranger("https://desk.example.es")
    assert here.get(sign_in.SIGN_IN).status_code == 200
    assert here.get(paths.DESK).status_code == 303


def test_the_static_files_are_content_hashed_and_cached_a_year(desk_site: DeskSite) -> None:
    client = desk_site.stranger()
    for name, kind in (("desk.css", "text/css"), ("desk.js", "text/javascript")):
        url = static.url(name)
        assert re.fullmatch(rf"{static.PREFIX}desk\.[0-9a-f]{{12}}\.{name[5:]}", url)
        answer = client.get(url)
        assert answer.status_code == 200 and answer.headers["content-type"].startswith(kind)
        assert answer.headers["cache-control"] == static.CACHE
        assert answer.content == (static.FOLDER / name).read_bytes()
    stale = client.get(f"{static.PREFIX}desk.000000000000.css")
    assert stale.status_code == 404 and stale.headers["cache-control"] == "no-store"


def test_sign_in_requests_are_rate_limited_per_address(desk_engine) -> None:
    site = make_desk_site(desk_engine, attempts=3)
    client = site.stranger()
    for _ in range(3):
        assert client.post(sign_in.SIGN_IN_OPTIONS, json={}).status_code == 200
    for url in (sign_in.SIGN_IN_OPTIONS, sign_in.SIGN_IN, sign_in.ENROLL_OPTIONS, sign_in.ENROLL):
        answer = client.post(url, json={})
        assert answer.status_code == 429 and answer.json() == {"error": "rate_limited"}
