"""EmailJS faked over HTTP for every test: a real local server (pytest-httpserver) the site's
client sends to, what it answers, what it received. A pytest plugin (tests/conftest.py
loads it): its fixtures reach every test folder.

``emailjs``: a fake for one test (unit tests, with ``make_client``). ``emailjs_fake``: one
fake for a whole session, for a site started once (browser and stack tests point the
site at it with ``EMAILJS_API_BASE``); ``fake``: that one, accepting and with an empty log,
for one test.
"""

from collections.abc import Callable, Iterator

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from agency_site.emailjs import SEND_PATH, EmailJSClient

# The account ``make_client`` uses (``expected_payload`` quotes it).
SERVICE_ID, PUBLIC_KEY, PRIVATE_KEY = "service_test", "public_test", "private_test"


def make_client(server: HTTPServer, private_key: str = PRIVATE_KEY) -> EmailJSClient:
    """A client of the fake EmailJS ``server``."""
    return EmailJSClient(
        api_base=server.url_for("").rstrip("/"),
        service_id=SERVICE_ID,
        public_key=PUBLIC_KEY,
        private_key=private_key,
        timeout_s=2,
    )


def expected_payload(template_id: str, params: dict[str, str]) -> dict:
    """The exact JSON EmailJS must receive from ``make_client``'s account."""
    return {
        "lib_version": "4.4.1",  # The spec's, written out: not the client's constant.
        "user_id": PUBLIC_KEY,
        "service_id": SERVICE_ID,
        "template_id": template_id,
        "template_params": params,
        "accessToken": PRIVATE_KEY,
    }


def _answering(server: HTTPServer, forget: bool):
    """The fake's send handler, replacing the earlier ones (``forget``: and its log)."""
    server.clear() if forget else server.clear_all_handlers()
    return server.expect_request(SEND_PATH, method="POST")


def accept_sends(server: HTTPServer, *, forget: bool = False) -> None:
    """Make the fake accept every send from now on (HTTP 200 "OK"); ``forget``: empty its
    log too, so ``sent_payloads`` counts only what comes next."""
    _answering(server, forget).respond_with_data("OK")


def refuse_sends(server: HTTPServer, status: int, text: str = "Error", *, forget=False) -> None:
    """Make the fake refuse every send from now on with ``status`` and ``text``."""
    _answering(server, forget).respond_with_data(text, status=status)


def answer_sends(
    server: HTTPServer, handler: Callable[[Request], Response], *, forget: bool = False
) -> None:
    """Make ``handler`` answer every send from now on (slow, hanging, changing answers)."""
    _answering(server, forget).respond_with_handler(handler)


def sent_payloads(server: HTTPServer) -> list[dict]:
    """The JSON bodies of every send the fake received, in order."""
    return [request.get_json() for request, _ in server.log if request.path == SEND_PATH]


@pytest.fixture
def emailjs(httpserver: HTTPServer) -> HTTPServer:
    """A fake EmailJS for one test (pytest-httpserver's, cleared after each test)."""
    return httpserver


@pytest.fixture(scope="session")
def emailjs_fake(make_httpserver: HTTPServer) -> HTTPServer:
    """The session's fake EmailJS, accepting every send: a site started once sends to it."""
    accept_sends(make_httpserver, forget=True)
    return make_httpserver


@pytest.fixture
def fake(emailjs_fake: HTTPServer) -> Iterator[HTTPServer]:
    """The session's fake, accepting sends and with an empty log; put back afterwards."""
    accept_sends(emailjs_fake, forget=True)
    yield emailjs_fake
    accept_sends(emailjs_fake, forget=True)
