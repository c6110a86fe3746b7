"""Content of the legal pages: the owner's identity from ``SITE``, the facts the law asks for."""

import os
import subprocess
import sys

import pytest
from pydantic import ValidationError

from agency_site.content.legal import IDENTITY, Bullets, LegalSection, StorageItem, identity
from agency_site.content.legal_cookies import COOKIES, STORAGE
from agency_site.content.legal_privacy import PRIVACY
from agency_site.content.legal_terms import TERMS
from agency_site.content.site import SITE, LegalIdentity
from agency_site.settings import get_settings


def text_of(value: object) -> str:
    """All the text inside a content value, joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, tuple):
        return " ".join(text_of(item) for item in value)
    if hasattr(type(value), "model_fields"):
        return " ".join(text_of(getattr(value, name)) for name in type(value).model_fields)
    return ""


def test_identity_block_comes_from_the_site_settings() -> None:
    values = {fact.label: fact.value for fact in IDENTITY.items}
    assert values == {
        "Titular": SITE.legal.company_name,
        "Nombre comercial": SITE.name,
        "NIF": SITE.legal.nif,
        "Domicilio": SITE.address.one_line,
        "Datos registrales": SITE.legal.registry,
        "Correo electrónico": SITE.email,
        "Teléfono": SITE.phone,
    }
    assert IDENTITY in PRIVACY.sections[0].body
    assert IDENTITY in TERMS.sections[0].body


def test_identity_shows_the_configured_legal_data() -> None:
    configured = SITE.model_copy(
        update={
            "legal": LegalIdentity(
                company_name="Impulso Digital Agramunt, S.L.",
                nif="B25000000",
                registry="Registro Mercantil de Lleida, tomo 1, folio 1, hoja L-1",
            )
        }
    )
    values = {fact.label: fact.value for fact in identity(configured).items}
    assert values["Titular"] == "Impulso Digital Agramunt, S.L."
    assert values["NIF"] == "B25000000"
    assert values["Datos registrales"].startswith("Registro Mercantil de Lleida")


def test_privacy_policy_covers_what_article_13_requires() -> None:
    text = text_of(PRIVACY)
    headings = [section.heading for section in PRIVACY.sections]
    assert headings[0] == "Responsable del tratamiento"
    for fact in (
        "formulario de la página de inicio",
        "«Agendar consulta»",
        "currículum",
        "consentimiento",
        "medidas precontractuales",
        "EmailJS",
        "encargado del tratamiento",
        "proveedor de alojamiento",
        "Singapur",
        "hasta 12 meses",
        # The retention of the form leads is the purge's own setting (LEADS_RETENTION_MONTHS).
        f"hasta {get_settings().leads.retention_months} meses después de tu última solicitud",
        "borra todas automáticamente",
        "sin distinguir mayúsculas de minúsculas",
        "Agencia Española de Protección de Datos",
        "https://www.aepd.es",
        SITE.email,
    ):
        assert fact in text, fact
    rights = next(s for s in PRIVACY.sections if s.heading == "Tus derechos")
    (bullets,) = [block for block in rights.body if isinstance(block, Bullets)]
    assert [item.split(":")[0] for item in bullets.items] == [
        "Acceso",
        "Rectificación",
        "Supresión",
        "Oposición",
        "Limitación del tratamiento",
        "Portabilidad",
    ]


def test_terms_cover_the_lssi_topics() -> None:
    headings = [section.heading for section in TERMS.sections]
    for heading in (
        "Datos identificativos",
        "Objeto del sitio web",
        "Condiciones de uso",
        "Propiedad intelectual e industrial",
        "Responsabilidad",
        "Enlaces",
        "Legislación aplicable y jurisdicción",
    ):
        assert heading in headings


def test_cookie_policy_describes_each_item_and_the_exemption() -> None:
    assert [item.name for item in STORAGE.items] == [
        "token",
        "react-router-scroll-positions",
        "reflex_last_reloaded_on_error",
        "theme",
    ]
    assert all(item.party == "Propia" and item.purpose and item.duration for item in STORAGE.items)
    text = text_of(COOKIES)
    for fact in ("no instala cookies", "22.2 de la LSSI-CE", "images.unsplash.com", "dirección IP"):
        assert fact in text, fact


def test_invalid_legal_content_is_rejected() -> None:
    with pytest.raises(ValidationError):
        LegalSection(heading="Vacía", body=())
    with pytest.raises(ValidationError):
        Bullets(items=())
    with pytest.raises(ValidationError):
        StorageItem(name="token", storage="sessionStorage", purpose="x", duration="y")


def _printed(code: str, **env: str) -> str:
    """What ``code`` prints in a fresh interpreter with ``env`` added (settings read anew)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_the_retention_in_the_policy_is_the_purge_setting() -> None:
    """One number: LEADS_RETENTION_MONTHS drives both the purge and what the policy says."""
    code = (
        "from agency_site.content.legal_privacy import PRIVACY; "
        "print('hasta 18 meses después de tu última solicitud' in PRIVACY.model_dump_json())"
    )
    assert _printed(code, LEADS_RETENTION_MONTHS="18").strip() == "True"


def test_the_backup_retention_in_the_policy_is_the_backup_timers() -> None:
    """One number: DEPLOY_BACKUP_KEEP is the nightly backups kept and what the policy says."""
    code = (
        "from agency_site.content.legal_privacy import PRIVACY; "
        "from agency_site.deploy import systemd; from agency_site.deploy.topology import from_settings; "
        "from agency_site.settings import get_settings; "
        "print('cada copia se conserva 30 días' in PRIVACY.model_dump_json(), "
        "'--keep 30' in systemd.backup_service(from_settings(get_settings())))"
    )
    assert _printed(code, DEPLOY_BACKUP_KEEP="30").split() == ["True", "True"]
