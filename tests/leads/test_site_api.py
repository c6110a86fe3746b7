"""The /_site/ endpoints: the forms' no-JavaScript POST, in process, on a real intake."""

import asyncio
import datetime as dt

import httpx
import pytest
from limits.aio.storage import MemoryStorage
from starlette.applications import Starlette

from agency_site import paths
from agency_site.content.form_words import COPY
from agency_site.forms.declarations import HONEYPOT_FIELD
from agency_site.leads.intake import LeadIntake, agency_today
from agency_site.leads.ratelimit import RateLimiter
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.store import LeadStore
from agency_site.site_api import client_address, create_app, origin_allowed
from agency_site.working_calendar import default_calendar
from tests.lead_store import make_delivery
from tests.run_async import run

SITE = "https://www.example.es"
API = "https://api.example.es"


@pytest.fixture
def intake(store: LeadStore) -> LeadIntake:
    limiter = RateLimiter(MemoryStorage(), per_ip=3, window_s=600)
    return LeadIntake(store, make_delivery(store, None), limiter)


def site_app(intake: LeadIntake, **options):
    """The site API of ``intake`` for the site at ``SITE``, its backend at ``API``."""
    return create_app(
        lambda: intake,
        **{
            "api_url": API,
            "site_url": SITE,
            "allowed_origins": (SITE,),
            "trusted_hops": 0,
            "max_body_bytes": 32 * 1024,
            **options,
        },
    )


def post(
    intake: LeadIntake,
    kind: str,
    body: str | bytes,
    headers: dict | None = None,
    peer: str = "127.0.0.2",
    hops: int = 0,
    follow: bool = False,
) -> httpx.Response:
    """POST ``body`` to the ``kind`` form (``follow``: and GET the page it redirects to)."""
    app = site_app(intake, trusted_hops=hops)

    async def request() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=(peer, 50000))
        async with httpx.AsyncClient(
            transport=transport, base_url=API, follow_redirects=follow
        ) as client:
            return await client.post(
                paths.form_post(kind),
                content=body,
                headers={"content-type": "application/x-www-form-urlencoded", **(headers or {})},
            )

    return run(request())


def tomorrow() -> str:
    """The next day the agency works (a booking for a weekend or holiday is refused)."""
    return default_calendar().next_working_day(agency_today() + dt.timedelta(days=1)).isoformat()


def test_a_plain_booking_post_is_stored_and_answered_with_the_success_page(
    intake: LeadIntake, store: LeadStore
) -> None:
    body = httpx.QueryParams(
        {
            "name": "Ana García",
            "email": "ana@example.com",
            "phone": "+34 600 12 34 56",
            "date": tomorrow(),
            "time": "16:00",
            "message": "Hola",
            HONEYPOT_FIELD: "",
        }
    )
    response = post(intake, "booking", str(body), {"origin": SITE}, follow=True)
    assert response.status_code == 200
    assert COPY.notices.queued in response.text  # Stored; delivery is not configured here.
    [lead] = store.all()
    assert (lead.kind, lead.status, lead.fields["name"]) == (
        "booking",
        LeadStatus.QUEUED,
        "Ana García",
    )
    assert "ana@example.com" not in str(response.url)


def test_wrong_fields_come_back_with_their_messages_and_the_escaped_values(
    intake: LeadIntake, store: LeadStore
) -> None:
    evil = '"><script>alert(1)</script>'
    body = httpx.QueryParams(
        {"name": evil, "email": "ana@", "phone": "12", "date": tomorrow(), "time": "16:00"}
    )
    response = post(intake, "booking", str(body))
    assert response.status_code == 400
    page = response.text
    for message in (COPY.booking.fields["email"].error, COPY.booking.fields["phone"].error):
        assert message in page
    assert "<script>" not in page
    assert 'value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in page
    assert 'value="ana@"' in page and '<option value="16:00" selected>' in page
    assert f'action="{API}/_site/forms/booking"' in page
    assert store.all() == []


def test_the_hero_answers_with_its_success_text_when_sent(store: LeadStore, emailjs) -> None:
    from tests.emailjs_fake import accept_sends, make_client

    accept_sends(emailjs)
    limiter = RateLimiter(MemoryStorage(), per_ip=3, window_s=600)
    intake = LeadIntake(store, make_delivery(store, make_client(emailjs)), limiter)
    response = post(intake, "contact", f"email=bea%40example.com&{HONEYPOT_FIELD}=", follow=True)
    assert response.status_code == 200
    assert COPY.hero.success in response.text


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "https://evil.example"},
        {"origin": "null"},
        {"referer": "https://evil.example/page"},
    ],
)
def test_other_sites_cannot_post(intake: LeadIntake, store: LeadStore, headers: dict) -> None:
    response = post(intake, "contact", "email=bea%40example.com", headers)
    assert response.status_code == 403
    assert store.all() == []


def test_origin_rules() -> None:
    allowed = (SITE,)
    assert origin_allowed({"origin": SITE}, allowed)
    assert origin_allowed({"referer": SITE + "/schedule"}, allowed)
    assert origin_allowed({}, allowed)  # A browser that sends neither: the rate limit applies.
    assert not origin_allowed({"origin": SITE + ".evil.example"}, allowed)
    assert not origin_allowed({"referer": "/schedule"}, allowed)


def test_big_or_odd_bodies_are_refused_cheaply(intake: LeadIntake, store: LeadStore) -> None:
    assert post(intake, "contact", "email=" + "a" * 40_000).status_code == 413
    many = "&".join(f"k{n}=" for n in range(2000))
    response = post(intake, "contact", many)
    assert response.status_code == 400 and COPY.hero.fields["email"].error in response.text
    assert post(intake, "nope", "email=a").status_code == 404
    assert post(intake, "contact", b"\xff\xfe=\x00").status_code == 400
    assert store.all() == []


def test_the_limit_counts_per_address_and_holds_behind_a_trusted_proxy(
    intake: LeadIntake,
) -> None:
    def attempt(peer: str, forwarded: str | None = None) -> int:
        headers = {"x-forwarded-for": forwarded} if forwarded else {}
        hops = 1 if forwarded else 0
        return post(intake, "contact", "email=x%40", headers, peer=peer, hops=hops).status_code

    # Behind one proxy (127.0.0.1), the visitor is the address the proxy adds last.
    abuser = [attempt("127.0.0.1", "198.51.100.1, 127.0.0.2") for _ in range(4)]
    assert abuser == [400, 400, 400, 429]
    assert attempt("127.0.0.1", "127.0.0.3") == 400  # Another visitor behind the same proxy.
    assert attempt("127.0.0.4") == 400  # Another address, direct.
    # The abuser's forged X-Forwarded-For does not help without a trusted hop.
    assert client_address("127.0.0.2", ["203.0.113.9"], 0) == "127.0.0.2"
    assert client_address("10.0.0.1", ["203.0.113.9, 127.0.0.2"], 1) == "127.0.0.2"
    assert client_address("10.0.0.1", ["a", "b, c"], 2) == "b"


# --- Every endpoint that reads a body reads it bounded, in size and in time --------------


def _body_endpoints(store: LeadStore) -> dict[str, tuple[Starlette, str]]:
    """The apps (with a short body timeout) and paths of the other endpoints reading a body."""
    from agency_site import client_errors
    from agency_site.bookings import pages
    from agency_site.paths import CLIENT_ERRORS
    from tests.bookings.test_booking_pages import desk_for

    return {
        "booking button": (
            pages.create_app(lambda: desk_for(store, 14), body_timeout_s=0.3),
            paths.booking_link("cancel"),
        ),
        "error report": (
            client_errors.create_app(allowed_origins=(SITE,), trusted_hops=0, body_timeout_s=0.3),
            CLIENT_ERRORS,
        ),
    }


def _chunked(app: Starlette, path: str, chunks) -> int:
    """POST a chunked body (no Content-Length) and the status, within 5 s or fail."""

    async def request() -> int:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.2", 50000))
        async with httpx.AsyncClient(transport=transport, base_url=API) as client:
            answer = await client.post(path, content=chunks(), headers={"origin": SITE})
            return answer.status_code

    async def bounded() -> int:
        return await asyncio.wait_for(request(), 5)

    return run(bounded())


@pytest.mark.parametrize("endpoint", ["booking button", "error report"])
def test_a_chunked_body_is_read_up_to_its_cap_and_within_its_time(
    store: LeadStore, endpoint: str
) -> None:
    app, path = _body_endpoints(store)[endpoint]
    read: list[int] = []

    async def endless_stream():
        while True:
            read.append(1)
            yield b"t=" + b"x" * 1024
            await asyncio.sleep(0)

    async def never_ends():
        yield b"t=abc"
        await asyncio.sleep(3600)

    status = _chunked(app, path, endless_stream)
    assert status in (400, 413) and len(read) < 10  # Refused after the cap, not read on.
    assert _chunked(app, path, never_ends) in (400, 408)


def get(path: str, intake: LeadIntake) -> httpx.Response:
    app = site_app(intake)

    async def request() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.2", 50000))
        async with httpx.AsyncClient(transport=transport, base_url=API) as client:
            return await client.get(path)

    return run(request())


def test_a_stored_submission_redirects_to_its_answer_and_a_reload_stores_nothing(
    intake: LeadIntake, store: LeadStore
) -> None:
    body = f"email=bea%40example.com&{HONEYPOT_FIELD}=&language=ca"
    response = post(intake, "contact", body, {"origin": SITE})
    assert response.status_code == 303  # Post/Redirect/Get.
    location = response.headers["location"]
    assert location == f"{API}/_site/forms/contact?answer=queued&language=ca"
    assert "bea" not in location
    for _ in range(3):  # The answer, and two reloads of it.
        answer = get(location.removeprefix(API), intake)
        assert answer.status_code == 200 and '<html lang="ca"' in answer.text
        assert COPY.of("ca").notices.queued in answer.text.replace("&#x27;", "'")
        assert answer.headers["cache-control"] == "no-store"
    assert len(store.all()) == 1


def test_the_javascript_fallback_still_gets_its_json_answer(
    intake: LeadIntake, store: LeadStore
) -> None:
    headers = {"origin": SITE, "accept": "application/json"}
    response = post(intake, "contact", f"email=bea%40example.com&{HONEYPOT_FIELD}=", headers)
    assert response.status_code == 200
    assert response.json() == {"result": "queued", "errors": {}}
