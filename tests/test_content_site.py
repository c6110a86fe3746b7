"""The agency's identity and contact data: valid, linkable, overridable by environment."""

import importlib

import pytest
from pydantic import ValidationError

from agency_site.content import service_pages as services_module
from agency_site.content import site as site_module
from agency_site.content.service_pages import SERVICES, Service
from agency_site.settings import get_settings
from tests import spec_facts as spec


def test_contact_links_are_well_formed() -> None:
    site = site_module.SITE
    assert site.mailto == f"mailto:{site.email}"
    assert site.tel.startswith("tel:+") and " " not in site.tel
    assert site.whatsapp_url.startswith("https://wa.me/") and site.whatsapp_url[14:].isdigit()
    assert "Agramunt" in site.address.one_line and "España" in site.address.one_line


def test_site_values_can_be_overridden_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENCY_EMAIL", "equipo@example.com")
    monkeypatch.setenv("AGENCY_PHONE", "+34 600 11 22 33")
    monkeypatch.delenv("AGENCY_WHATSAPP", raising=False)
    get_settings.cache_clear()
    try:
        reloaded = importlib.reload(site_module).SITE
        assert reloaded.email == "equipo@example.com"
        assert reloaded.tel == "tel:+34600112233"
        assert reloaded.whatsapp_url == "https://wa.me/34600112233"
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
        importlib.reload(site_module)


def test_the_spec_services_with_unique_ids_and_six_features() -> None:
    ids = [s.id for s in SERVICES]
    assert set(spec.SERVICE_IDS) <= set(ids)
    assert len(set(ids)) == len(ids)
    assert all(len(s.features) == spec.SERVICE_FEATURES for s in SERVICES)
    assert services_module.service_by_id("training").title == "Formación Profesional"


def test_a_service_without_six_features_is_rejected() -> None:
    data = SERVICES[0].model_dump() | {"features": ("uno", "dos")}
    with pytest.raises(ValidationError):
        Service(**data)
