"""The EmailJS client against a real local HTTP server: payloads and failure classes."""

import socket
import threading
import time

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Response

from agency_site.emailjs import SEND_PATH, EmailJSClient, Outcome
from scripts.local_servers import free_port
from tests.emailjs_fake import accept_sends, expected_payload, make_client
from tests.run_async import run

PARAMS = {"to_email": "hola@agencia.test", "from_email": "ana@example.com", "message": "Hola"}


def test_a_send_posts_the_exact_json_emailjs_expects(emailjs: HTTPServer) -> None:
    emailjs.expect_oneshot_request(
        SEND_PATH, method="POST", json=expected_payload("template_contact", PARAMS)
    ).respond_with_data("OK")

    result = run(make_client(emailjs).send("template_contact", PARAMS))

    emailjs.check_assertions()
    assert (result.status, result.text, result.outcome, result.ok) == (
        200,
        "OK",
        Outcome.SENT,
        True,
    )


def test_without_a_private_key_no_access_token_is_sent(emailjs: HTTPServer) -> None:
    emailjs.expect_oneshot_request(SEND_PATH, method="POST").respond_with_data("OK")
    run(make_client(emailjs, private_key="").send("template_contact", PARAMS))
    body = emailjs.log[0][0].get_json()
    assert "accessToken" not in body
    assert body["user_id"] == "public_test"


@pytest.mark.parametrize(
    ("status", "text", "outcome"),
    [
        (400, "The user ID is invalid", Outcome.CONFIGURATION),
        (403, "API calls are disabled for non-browser applications", Outcome.CONFIGURATION),
        (404, "Account not found", Outcome.CONFIGURATION),
        (412, "Gmail_API: Invalid grant", Outcome.CONFIGURATION),
        (422, "The recipients address is empty", Outcome.CONFIGURATION),
        (429, "Too Many Requests", Outcome.TRANSIENT),
        (500, "Internal Server Error", Outcome.TRANSIENT),
        (503, "Service Unavailable", Outcome.TRANSIENT),
    ],
)
def test_each_refusal_is_classified_with_the_providers_text(
    emailjs: HTTPServer, status: int, text: str, outcome: Outcome, caplog
) -> None:
    emailjs.expect_oneshot_request(SEND_PATH, method="POST").respond_with_data(text, status=status)

    result = run(make_client(emailjs).send("template_contact", PARAMS))

    assert (result.status, result.text, result.outcome, result.ok) == (status, text, outcome, False)
    logged = [r for r in caplog.records if r.name == "agency_site.emailjs"]
    assert logged and text in logged[-1].getMessage()
    expected_level = "ERROR" if outcome is Outcome.CONFIGURATION else "WARNING"
    assert logged[-1].levelname == expected_level


def test_a_provider_that_read_the_request_but_never_answered_is_unconfirmed(
    emailjs: HTTPServer,
) -> None:
    def slow(_request):
        time.sleep(1.0)
        return Response("OK")

    emailjs.expect_oneshot_request(SEND_PATH, method="POST").respond_with_handler(slow)
    client = EmailJSClient(
        api_base=emailjs.url_for("").rstrip("/"),
        service_id="service_test",
        public_key="public_test",
        timeout_s=0.3,
    )

    started = time.monotonic()
    result = run(client.send("template_contact", PARAMS))

    assert time.monotonic() - started < 0.9
    assert (result.status, result.text, result.outcome) == (
        0,
        "Timeout: ReadTimeout",
        Outcome.UNCONFIRMED,
    )


def test_a_connection_dropped_after_the_request_is_unconfirmed() -> None:
    """The provider read the whole request and hung up without answering."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]

    def read_then_drop() -> None:
        conn, _ = server.accept()
        with conn:
            data = b""
            while b"template_params" not in data:
                data += conn.recv(65536)

    reader = threading.Thread(target=read_then_drop)
    reader.start()
    client = EmailJSClient(
        api_base=f"http://127.0.0.1:{port}", service_id="s", public_key="p", timeout_s=5
    )
    try:
        result = run(client.send("template_contact", PARAMS))
    finally:
        reader.join(5)
        server.close()

    assert result.status == 0
    assert result.text.startswith("Network Error")
    assert result.outcome is Outcome.UNCONFIRMED


def test_a_refused_connection_is_a_transient_network_error() -> None:
    port = free_port()  # Nobody listens on it.
    client = EmailJSClient(
        api_base=f"http://127.0.0.1:{port}", service_id="s", public_key="p", timeout_s=2
    )

    result = run(client.send("template_contact", PARAMS))

    assert result.status == 0
    assert result.text.startswith("Network Error")
    assert result.outcome is Outcome.TRANSIENT


def test_sends_on_one_event_loop_reuse_one_http_client(emailjs: HTTPServer) -> None:
    accept_sends(emailjs)
    client = make_client(emailjs)

    async def two_sends() -> tuple[bool, list[Outcome]]:
        first = client.http()
        results = [await client.send("template_contact", PARAMS) for _ in range(2)]
        same = client.http() is first
        await client.aclose()
        return same, [r.outcome for r in results]

    assert run(two_sends()) == (True, [Outcome.SENT, Outcome.SENT])
    # A new event loop (a test's, or a restarted worker's) gets a client of its own.
    assert run(client.send("template_contact", PARAMS)).ok
