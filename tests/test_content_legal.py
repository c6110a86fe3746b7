"""Content of the legal pages: the owner's identity and the figures from the settings, the
facts the law asks for, and Markdown rendered to the site's own elements."""

import os
import subprocess
import sys

import pytest
import reflex as rx

from agency_site.components import legal as legal_component
from agency_site.content import legal
from agency_site.content.legal import COOKIES, PRIVACY, SHARED, STORAGE, TERMS, LegalPage
from agency_site.content.loader import markdown_tree
from agency_site.content.site import SITE
from agency_site.settings import get_settings
from tests.test_content_links import link_problem


def text_of(page: LegalPage) -> str:
    """The text a visitor reads in the page's Markdown (escapes undone), joined."""
    return " ".join(node.content for node in markdown_tree(page.body).walk() if node.type == "text")


def links_of(page: LegalPage) -> dict[str, str]:
    """The page's links: visible text → target."""
    return {
        "".join(child.content for child in node.walk() if child.type == "text"): node.attrs["href"]
        for node in markdown_tree(page.body).walk()
        if node.type == "link"
    }


def blocks_of(page: LegalPage) -> list[str]:
    """The data blocks (```identity, ```storage) the page shows, in order."""
    return [node.info for node in markdown_tree(page.body).walk() if node.type == "fence"]


def test_identity_block_comes_from_the_site_settings() -> None:
    values = {fact.label: fact.value for fact in SHARED.identity}
    assert values == {
        "Titular": SITE.legal.company_name,
        "Nombre comercial": SITE.name,
        "NIF": SITE.legal.nif,
        "Domicilio": SITE.address.one_line,
        "Datos registrales": SITE.legal.registry,
        "Correo electrónico": SITE.email,
        "Teléfono": SITE.phone,
    }
    # In the first section of the privacy policy and of the terms.
    assert blocks_of(PRIVACY)[0] == blocks_of(TERMS)[0] == "identity"


def _printed(code: str, **env: str) -> str:
    """What ``code`` prints in a fresh interpreter with ``env`` added (settings read anew)."""
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_identity_shows_the_configured_legal_data() -> None:
    code = (
        "from agency_site.content.legal import SHARED; "
        "print({f.label: f.value for f in SHARED.identity})"
    )
    printed = _printed(
        code,
        AGENCY_LEGAL_NAME="Impulso Digital Agramunt, S.L.",
        AGENCY_NIF="B25000000",
        AGENCY_REGISTRY="Registro Mercantil de Lleida, tomo 1, folio 1, hoja L-1",
    )
    assert "'Titular': 'Impulso Digital Agramunt, S.L.'" in printed
    assert "'NIF': 'B25000000'" in printed
    assert "'Datos registrales': 'Registro Mercantil de Lleida" in printed


def test_privacy_policy_covers_what_article_13_requires() -> None:
    text = text_of(PRIVACY)
    assert PRIVACY.headings[0] == "Responsable del tratamiento"
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
        SITE.email,
        SITE.address.one_line,
    ):
        assert fact in text, fact
    assert "https://www.aepd.es" in links_of(PRIVACY).values()
    assert links_of(PRIVACY)[f"Escribir a {SITE.email}"] == SITE.mailto
    rights_section = PRIVACY.body.split("## Tus derechos", 1)[1].split("\n## ", 1)[0]
    rights = [line[2:].split(":")[0] for line in rights_section.splitlines() if line[:2] == "- "]
    assert rights == [
        "Acceso",
        "Rectificación",
        "Supresión",
        "Oposición",
        "Limitación del tratamiento",
        "Portabilidad",
    ]


def test_terms_cover_the_lssi_topics() -> None:
    for heading in (
        "Datos identificativos",
        "Objeto del sitio web",
        "Condiciones de uso",
        "Propiedad intelectual e industrial",
        "Responsabilidad",
        "Enlaces",
        "Legislación aplicable y jurisdicción",
    ):
        assert heading in TERMS.headings
    assert f"los servicios de {SITE.name}" in text_of(TERMS)


def test_cookie_policy_describes_each_item_and_the_exemption() -> None:
    assert [item.name for item in STORAGE.items] == [
        "token",
        "react-router-scroll-positions",
        "reflex_last_reloaded_on_error",
        "theme",
    ]
    assert all(item.party and item.purpose and item.duration for item in STORAGE.items)
    assert blocks_of(COOKIES) == ["storage"]
    text = text_of(COOKIES)
    for fact in (
        "no instala cookies",
        "22.2 de la LSSI-CE",
        "desde este mismo sitio web",
        "dirección IP",
    ):
        assert fact in text, fact


def test_the_policies_link_to_each_other_by_route() -> None:
    from agency_site import paths

    assert links_of(PRIVACY)["Consultar la política de cookies"] == paths.COOKIES_POLICY
    assert set(links_of(TERMS).values()) == {paths.PRIVACY_POLICY, paths.COOKIES_POLICY}


@pytest.mark.parametrize("page", [PRIVACY, TERMS, COOKIES], ids=["privacy", "terms", "cookies"])
def test_every_link_in_the_legal_text_is_allowed(page: LegalPage) -> None:
    """The same rules as the content's links: a route, the agency's address, a listed site."""
    assert [href for href in links_of(page).values() if link_problem(href)] == []


def test_the_retention_in_the_policy_is_the_purge_setting() -> None:
    """One number: LEADS_RETENTION_MONTHS drives both the purge and what the policy says."""
    code = (
        "from agency_site.content.legal import PRIVACY; "
        "print('hasta 18 meses después de tu última solicitud' in PRIVACY.body)"
    )
    assert _printed(code, LEADS_RETENTION_MONTHS="18").strip() == "True"


def test_the_backup_retention_in_the_policy_is_the_backup_timers() -> None:
    """One number: DEPLOY_BACKUP_KEEP is the nightly backups kept and what the policy says."""
    code = (
        "from agency_site.content.legal import PRIVACY; "
        "from agency_site.deploy import systemd; from agency_site.deploy.topology import from_settings; "
        "from agency_site.settings import get_settings; "
        "print('cada copia se conserva 30 días' in PRIVACY.body, "
        "'--keep 30' in systemd.backup_service(from_settings(get_settings())))"
    )
    assert _printed(code, DEPLOY_BACKUP_KEEP="30").split() == ["True", "True"]


def test_every_data_block_a_page_may_name_has_a_renderer() -> None:
    assert set(legal_component.BLOCKS) == set(legal.BLOCKS)


SAMPLE = """## Uno

Texto con [un enlace](/contact), **negrita**, *cursiva* y `código`,
en dos líneas.

- Punto con [otro sitio](https://www.aepd.es)
- Segundo punto

1. Primero
2. Segundo

### Apartado

```identity
```

## Dos

<b>no es HTML</b>
"""


def test_every_markdown_node_the_pages_may_use_is_rendered() -> None:
    tree = markdown_tree(SAMPLE)
    assert {node.type for node in tree.walk() if not node.is_root} - {"fence"} == set(
        legal.MARKDOWN_NODES
    )
    page = LegalPage.model_validate(
        {
            "meta": {"description": "Una página"},
            "hero": {"heading": "Prueba", "intro": "Una página"},
            "updated": "hoy",
            "body": SAMPLE,
        }
    )
    rendered = str(legal_component.legal_page(page))
    for expected in (
        '"1. Uno"',
        '"2. Dos"',
        "Texto con ",
        'to:"/contact"',
        '"negrita"',
        '"c\\u00f3digo"',
        '"Punto con "',
        'target:"_blank"',
        '"list-decimal ',
        '"Apartado"',
        '" y "',
        '", en dos l\\u00edneas."',  # A line break in the source is a space.
        # Raw HTML is text, never markup.
        '"<b>no es HTML</b>"',
        SITE.legal.nif,
    ):
        assert expected in rendered, expected
    assert isinstance(legal_component.legal_page(page), rx.Component)
