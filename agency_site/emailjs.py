"""Client of the EmailJS REST API (``POST /api/v1.0/email/send``), used from the backend only.

It knows nothing of Reflex or of the leads table: it sends one e-mail and says how
it went. Every failure is classified so the caller knows whether a retry can help.

One ``httpx.AsyncClient`` per event loop is kept and reused (its connections stay
open to EmailJS): creating one per send loaded certifi's CA bundle into a new SSL
context each time, ~40 ms of CPU on the event loop that blocked every visitor of
the worker (profiled by ``make loadtest --py-spy``). The SSL context itself is
built once per process (``ssl_context``).
"""

import asyncio
import logging
import ssl
import weakref
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from typing import Any

import httpx

logger = logging.getLogger(__name__)

SEND_PATH = "/api/v1.0/email/send"
# Reported to EmailJS like its browser SDK does; the API only records it.
LIB_VERSION = "4.4.1"
DEFAULT_TIMEOUT_S = 10.0

# Statuses that mean the account, ids or template are wrong: retrying will not help.
CONFIGURATION_STATUSES = frozenset({400, 401, 403, 404, 412, 422})
# Among those, EmailJS answers that are about one e-mail's own content (its variables or
# the recipient taken from them), not the account: this lead can never go out, the others
# can. Anything not recognised here stays a configuration error (held, not dropped).
CONTENT_STATUSES = frozenset({413})
CONTENT_ERRORS = (
    "size limit",
    "too large",
    "too big",
    "address is corrupted",
    "recipients address is invalid",
    "recipient address is invalid",
)
# Status reported for a failure without an HTTP answer (as the browser SDK does).
NO_RESPONSE_STATUS = 0


class Outcome(StrEnum):
    """How a send went."""

    SENT = "sent"
    CONFIGURATION = "configuration"  # Fix the settings; retrying will not help.
    CONTENT = "content"  # This e-mail's content is refused: never retried, shown to the owner.
    TRANSIENT = "transient"  # Rate limit, outage, no connection: not sent, retry later.
    # The request went out but no answer came back (read timeout, connection dropped):
    # EmailJS may have sent it. A retry may deliver it twice, so it is marked as a resend.
    UNCONFIRMED = "unconfirmed"


@dataclass(frozen=True)
class SendResult:
    """The provider's answer: HTTP status (0 without an answer), its text, our verdict."""

    status: int
    text: str
    outcome: Outcome

    @property
    def ok(self) -> bool:
        """Whether EmailJS accepted the e-mail."""
        return self.outcome is Outcome.SENT


def classify(status: int, text: str = "") -> Outcome:
    """Verdict for an HTTP status (and the answer's text) of the send endpoint."""
    if status == 200:
        return Outcome.SENT
    if status in CONTENT_STATUSES or (
        status in CONFIGURATION_STATUSES and any(part in text.lower() for part in CONTENT_ERRORS)
    ):
        return Outcome.CONTENT
    if status in CONFIGURATION_STATUSES:
        return Outcome.CONFIGURATION
    return Outcome.TRANSIENT


@cache
def ssl_context() -> ssl.SSLContext:
    """The verifying SSL context of every EmailJS connection, built once (certifi's CAs)."""
    return httpx.create_ssl_context()


@dataclass(frozen=True)
class EmailJSClient:
    """Sends e-mails through one EmailJS account."""

    api_base: str
    service_id: str
    public_key: str
    private_key: str = field(default="", repr=False)  # A secret: never in a repr or log.
    timeout_s: float = DEFAULT_TIMEOUT_S
    # The HTTP client of each event loop that sent with this client (an AsyncClient's
    # connections belong to one loop); a loop's entry goes when the loop is collected.
    _http: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient]" = field(
        default_factory=weakref.WeakKeyDictionary, init=False, repr=False, compare=False
    )

    def http(self) -> httpx.AsyncClient:
        """The HTTP client of the running event loop, created on first use and then reused."""
        loop = asyncio.get_running_loop()
        client = self._http.get(loop)
        if client is None or client.is_closed:
            timeout = httpx.Timeout(self.timeout_s, connect=min(self.timeout_s, 5.0))
            client = httpx.AsyncClient(timeout=timeout, verify=ssl_context())
            self._http[loop] = client
        return client

    async def aclose(self) -> None:
        """Close the running loop's HTTP client (the backend worker's lifespan ends)."""
        client = self._http.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()

    def payload(self, template_id: str, template_params: dict[str, str]) -> dict[str, Any]:
        """The JSON body EmailJS expects; the private key goes as ``accessToken`` when set."""
        body: dict[str, Any] = {
            "lib_version": LIB_VERSION,
            "user_id": self.public_key,
            "service_id": self.service_id,
            "template_id": template_id,
            "template_params": template_params,
        }
        if self.private_key:
            body["accessToken"] = self.private_key
        return body

    async def send(self, template_id: str, template_params: dict[str, str]) -> SendResult:
        """Send one e-mail from ``template_id``; never raises for provider or network failures."""
        url = self.api_base.rstrip("/") + SEND_PATH
        try:
            response = await self.http().post(url, json=self.payload(template_id, template_params))
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as error:
            # Nothing reached EmailJS.
            result = SendResult(NO_RESPONSE_STATUS, _no_answer(error), Outcome.TRANSIENT)
        except (httpx.ReadTimeout, httpx.ReadError, httpx.RemoteProtocolError) as error:
            # The request was written; whether EmailJS acted on it is unknown.
            result = SendResult(NO_RESPONSE_STATUS, _no_answer(error), Outcome.UNCONFIRMED)
        except httpx.HTTPError as error:
            result = SendResult(NO_RESPONSE_STATUS, _no_answer(error), Outcome.TRANSIENT)
        else:
            text = response.text[:500]
            result = SendResult(response.status_code, text, classify(response.status_code, text))
        _log(template_id, result)
        return result


def _no_answer(error: httpx.HTTPError) -> str:
    """What a failure without an HTTP answer is called in logs and the leads table."""
    if isinstance(error, httpx.TimeoutException):
        return f"Timeout: {type(error).__name__}"
    return f"Network Error: {type(error).__name__}"


def _log(template_id: str, result: SendResult) -> None:
    """Log a failed send: configuration errors loudly, transient ones as warnings."""
    if result.outcome is Outcome.CONTENT:
        logger.error(
            "EmailJS refused one e-mail of template %s for its content (HTTP %s: %s); it is "
            "set aside for the owner and not retried.",
            template_id,
            result.status,
            result.text,
        )
    elif result.outcome is Outcome.CONFIGURATION:
        logger.error(
            "EmailJS refused template %s (HTTP %s: %s). Check the EMAILJS_* settings and the "
            "EmailJS account; these e-mails wait until the configuration changes.",
            template_id,
            result.status,
            result.text,
        )
    elif result.outcome is Outcome.UNCONFIRMED:
        logger.warning(
            "EmailJS did not answer template %s (%s): it may have been sent; the retry will be "
            "marked as a possible duplicate.",
            template_id,
            result.text,
        )
    elif result.outcome is Outcome.TRANSIENT:
        logger.warning(
            "EmailJS could not send template %s now (status %s: %s); it will be retried.",
            template_id,
            result.status,
            result.text,
        )
