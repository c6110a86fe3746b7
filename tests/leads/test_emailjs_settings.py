"""Which EmailJS template each e-mail goes through, and the owner told of every template id
not set: a form's template id left unset is the agency template's (EmailJS's free plan has
two templates, docs/leads.md), so no lead is held for want of one; the settings delivery
needs and lacks are named at start-up and on ``/_site/leads/health``."""

import logging

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pytest_httpserver import HTTPServer

from agency_site.forms.declarations import FORMS
from agency_site.forms.kinds import LeadKind
from agency_site.forms.template_ids import (
    fingerprint,
    form_templates,
    shared_templates,
    template_settings,
)
from agency_site.leads import runtime
from agency_site.leads.health import LeadsHealth
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.store import LeadStore
from agency_site.paths import LEADS_HEALTH
from agency_site.settings import EmailJSSettings, load_settings
from tests.emailjs_fake import PUBLIC_KEY, SERVICE_ID, accept_sends, sent_payloads
from tests.lead_store import LEASE, add_lead_id
from tests.leads.health_page import get_health as owner_health
from tests.leads.test_monitor import MAX_AGE
from tests.run_async import run

# Every template id in use: each declared form's (EMAILJS_<KIND>_TEMPLATE_ID), the agency's
# and the visitor's.
TEMPLATE_FIELDS = list(template_settings())
ACCOUNT = {"service_id": "service_x", "public_key": "key_x"}
QUOTE = {
    "name": "Ana García",
    "email": "ana@example.com",
    "phone": "",
    "service": "seo",
    "pack": "",
    "message": "Queremos posicionar la tienda.",
}


def emailjs_settings(**values: str) -> EmailJSSettings:
    """The EmailJS settings of these values alone (no environment, no .env)."""
    settings = EmailJSSettings.model_construct()  # Field defaults, nothing read.
    return EmailJSSettings.model_validate(settings.model_dump() | values)


@given(st.sets(st.sampled_from(TEMPLATE_FIELDS)))
def test_a_form_s_template_id_left_unset_is_the_agency_template_s(set_ids: set[str]) -> None:
    settings = emailjs_settings(**{name: f"template_{name}" for name in set_ids})
    templates = form_templates(settings)
    for form in FORMS:
        own = f"template_{form.template_setting}" if form.template_setting in set_ids else ""
        agency = "template_contact_template_id" if "contact_template_id" in set_ids else ""
        assert templates[form.kind] == (own or agency)
    # The visitor's e-mails never go through the agency's template.
    visitor = "template_visitor_template_id" if "visitor_template_id" in set_ids else ""
    assert settings.template_id("visitor_template_id") == visitor
    # Each form's unset id is named, with the template its e-mails go through instead.
    shared = shared_templates(settings)
    assert set(shared) == {
        EmailJSSettings.variable(form.template_setting)
        for form in FORMS
        if form.template_setting not in set_ids | {"contact_template_id"}
    }
    assert set(shared.values()) <= {"EMAILJS_CONTACT_TEMPLATE_ID"}


@given(st.sets(st.sampled_from(["service_id", "public_key", *TEMPLATE_FIELDS])))
def test_delivery_needs_the_account_and_the_agency_template_only(set_ids: set[str]) -> None:
    settings = emailjs_settings(**{name: "x" for name in set_ids})
    needed = {"service_id", "public_key", "contact_template_id"}
    assert set(settings.missing) == {EmailJSSettings.variable(n) for n in needed - set_ids}
    assert settings.configured is (needed <= set_ids)


def test_falling_back_changes_the_fingerprint_so_held_leads_are_released() -> None:
    """A quote held under the old rule ("EMAILJS_QUOTE_TEMPLATE_ID is not set") is released
    at the first start with the new one: the templates in use changed."""
    before = emailjs_settings(**ACCOUNT, contact_template_id="a")
    after = emailjs_settings(**ACCOUNT, contact_template_id="b")
    assert before.template_id("quote_template_id") == "a"
    assert fingerprint(before) != fingerprint(after)


def test_a_quote_goes_out_through_the_agency_template_with_its_flag(
    store: LeadStore, emailjs: HTTPServer
) -> None:
    accept_sends(emailjs)
    account = {"api_base": emailjs.url_for("").rstrip("/"), "service_id": SERVICE_ID}
    only_agency = emailjs_settings(**account, public_key=PUBLIC_KEY, contact_template_id="agency")
    settings = load_settings().model_copy(update={"emailjs": only_agency})
    delivery = runtime.build_delivery(settings, store)
    assert delivery.configured
    lead_id = add_lead_id(store, LeadKind.QUOTE, QUOTE, claim_token=None, lease=LEASE)
    assert run(delivery.retry_due()) == 1
    assert store.get(lead_id).status == LeadStatus.SENT
    [payload] = sent_payloads(emailjs)
    assert payload["template_id"] == "agency"
    params = payload["template_params"]
    assert (params["kind"], params["is_quote"], params["is_booking"]) == ("quote", "1", "")


# --- Told at start-up -------------------------------------------------------------------


def warnings(caplog: pytest.LogCaptureFixture, settings: EmailJSSettings) -> list[str]:
    with caplog.at_level(logging.WARNING, logger="agency_site"):
        runtime.report_emailjs(settings)
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_start_up_names_each_form_template_id_that_falls_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    lines = warnings(caplog, emailjs_settings(**ACCOUNT, contact_template_id="agency"))
    assert len(lines) == 2
    settings = ("EMAILJS_BOOKING_TEMPLATE_ID", "EMAILJS_QUOTE_TEMPLATE_ID")
    for line, setting in zip(lines, settings, strict=True):
        assert line.startswith(f"{setting} is not set: ")
        assert "go through EMAILJS_CONTACT_TEMPLATE_ID" in line and "docs/leads.md" in line


def test_start_up_names_the_settings_leads_wait_for(caplog: pytest.LogCaptureFixture) -> None:
    [line] = warnings(
        caplog,
        emailjs_settings(public_key="k", booking_template_id="b", quote_template_id="q"),
    )
    assert "NOT configured: set EMAILJS_SERVICE_ID, EMAILJS_CONTACT_TEMPLATE_ID." in line
    assert LEADS_HEALTH in line


def test_start_up_says_nothing_when_every_template_id_is_set(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ids = {name: f"t_{name}" for name in TEMPLATE_FIELDS}
    assert warnings(caplog, emailjs_settings(**ACCOUNT, **ids)) == []


def test_the_backend_s_lifespan_reports_them(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line is written when a backend worker starts, before it serves."""
    reported = []
    monkeypatch.setattr(runtime, "report_emailjs", reported.append)

    class Stop(Exception):
        pass

    def stop(_settings) -> None:  # The next start-up step: the test needs no more.
        raise Stop

    monkeypatch.setattr(runtime, "check_write_folders", stop)

    async def start() -> None:
        async with runtime.lifespan():
            pass

    with pytest.raises(Stop):
        run(start())
    assert reported == [runtime.get_settings().emailjs]


# --- Told by the health page ------------------------------------------------------------


def health(store: LeadStore, settings: EmailJSSettings) -> httpx.Response:
    """The page's details, as the owner reads them (checked at each request)."""
    return owner_health(LeadsHealth(lambda: store, lambda: settings.configured,
                                    lambda: MAX_AGE, emailjs=lambda: settings, every_s=0))  # fmt: skip


def test_health_is_503_at_once_while_a_lead_waits_for_an_unset_setting(
    store: LeadStore,
) -> None:
    settings = emailjs_settings(**ACCOUNT)  # No agency template.
    response = health(store, settings)
    assert response.status_code == 200  # Nothing waits: said, not alarmed.
    assert response.json()["unset_settings"] == ["EMAILJS_CONTACT_TEMPLATE_ID"]
    add_lead_id(store, LeadKind.QUOTE, QUOTE, claim_token=None, lease=LEASE)
    response = health(store, settings)
    body = response.json()
    assert response.status_code == 503
    assert (body["status"], body["unset_settings"]) == (
        "unconfigured",
        ["EMAILJS_CONTACT_TEMPLATE_ID"],
    )


def test_health_names_the_template_ids_that_fall_back(store: LeadStore) -> None:
    settings = emailjs_settings(**ACCOUNT, contact_template_id="agency")
    add_lead_id(store, LeadKind.QUOTE, QUOTE, claim_token=None, lease=LEASE)
    response = health(store, settings)
    body = response.json()
    assert (response.status_code, body["status"]) == (200, "ok")
    assert "unset_settings" not in body
    assert body["shared_templates"] == {
        "EMAILJS_BOOKING_TEMPLATE_ID": "EMAILJS_CONTACT_TEMPLATE_ID",
        "EMAILJS_QUOTE_TEMPLATE_ID": "EMAILJS_CONTACT_TEMPLATE_ID",
    }
