"""Content of the nine service pages: valid, faithful to the spec's figures, buttons and targets."""

import re

import pytest
from pydantic import ValidationError

from agency_site.content.base import Action, Image, Pack, ServiceBlock
from agency_site.content.sections import CallToAction
from agency_site.content.service_pages import SERVICE_PAGES
from agency_site.content.service_sections import (
    BenefitsSection,
    BlocksSection,
    FeaturesSection,
    GallerySection,
    PacksSection,
    Programme,
    ProgrammesSection,
    ServicePage,
)
from agency_site.content.services import SERVICES
from agency_site.reflex_ext.internals import LUCIDE_ICON_LIST
from agency_site.reflex_ext.internals import reflex_format as format
from tests.spec_service_buttons import SPEC_TARGETS


def sections(page: ServicePage, kind: type) -> list:
    """The page's sections of one kind, in order."""
    return [section for section in page.sections if isinstance(section, kind)]


def buttons(page: ServicePage) -> set[tuple[str, str]]:
    """Every (label, target) pair of the page's buttons."""
    return {(link.label, link.href) for link in page.links()}


def test_every_service_has_exactly_one_page_under_its_id() -> None:
    assert set(SERVICE_PAGES) == {service.id for service in SERVICES}
    assert all(page.id == key for key, page in SERVICE_PAGES.items())


@pytest.mark.parametrize("service_id", SPEC_TARGETS)
def test_buttons_lead_exactly_to_the_spec_targets(service_id: str) -> None:
    assert SERVICE_PAGES[service_id].targets() == SPEC_TARGETS[service_id]


def test_consulting_claims_content_and_buttons() -> None:
    page = SERVICE_PAGES["consulting"]
    assert [(s.value, s.label) for s in page.stats] == [
        ("+500", "proyectos de éxito"),
        ("+45%", "ROI medio"),
        ("98%", "clientes satisfechos"),
        ("15+", "años de experiencia"),
    ]
    main, specialised = sections(page, BlocksSection)
    assert len(main.blocks) >= 6
    assert len(specialised.blocks) >= 2
    assert sections(page, BenefitsSection) and sections(page, FeaturesSection)
    assert buttons(page) == {
        ("Solicitar consulta gratuita", "/contact"),
        ("Ver casos de éxito", "/case-studies"),
        ("Consultar dudas", "/contact"),
    }
    assert page.actions[0].label == "Solicitar consulta gratuita"


def test_training_claims_programmes_courses_and_buttons() -> None:
    page = SERVICE_PAGES["training"]
    assert [(s.value, s.label) for s in page.stats] == [
        ("+5000", "alumnos formados"),
        ("98%", "de satisfacción"),
        ("+20", "programas formativos"),
        ("85%", "de empleabilidad"),
    ]
    assert "máximo 15 alumnos por clase" in page.highlight
    (programmes,) = sections(page, ProgrammesSection)
    assert [(p.title, p.duration) for p in programmes.programmes] == [
        ("Marketing Digital Avanzado", "40 horas"),
        ("Analítica Digital", "30 horas"),
        ("Growth Hacking", "35 horas"),
        ("Personal Branding", "25 horas"),
    ]
    assert all(p.icon and p.description and p.topics for p in programmes.programmes)
    courses, in_company = sections(page, BlocksSection)
    assert [b.title for b in courses.blocks] == [
        "E-commerce & Amazon",
        "Diseño UX/UI",
        "Producción Audiovisual",
        "Automatización",
    ]
    assert [b.title for b in in_company.blocks] == ["Formación a Medida", "Consultoría y Mentoring"]
    assert sections(page, BenefitsSection) and sections(page, FeaturesSection)

    assert [(a.label, a.href) for a in page.actions] == [
        ("Ver programas formativos", "/contact"),
        ("Agendar asesoría gratuita", "/schedule"),
    ]
    for programme in programmes.programmes:
        assert programme.cta.label in {"Más información", "Solicitar información"}
        assert programme.cta.href == "/contact"
    assert [(a.label, a.href) for a in page.cta.actions] == [("Solicitar información", "/contact")]


def test_photography_claims_services_packs_and_buttons() -> None:
    page = SERVICE_PAGES["product-photography"]
    stats = [(s.value, s.label) for s in page.stats]
    assert ("32%", "aumento medio de conversión") in stats
    assert ("100%", "de cumplimiento de los requisitos de Amazon") in stats
    assert ("48-72 horas", "para productos estándar") in stats
    assert any("RGB 255,255,255" in label and value == "Blanco puro" for value, label in stats)

    main, additional = sections(page, BlocksSection)
    assert len(main.blocks) == 4
    assert [b.title for b in additional.blocks] == ["Variantes de producto", "Contenido A+"]
    (benefits,) = sections(page, BenefitsSection)
    assert len(benefits.benefits) == 4
    (gallery,) = sections(page, GallerySection)
    assert len(gallery.images) == 3
    assert gallery.cta == Action(label="Ver portfolio", href="/portfolio")

    (packs,) = sections(page, PacksSection)
    assert [(p.title, p.price, p.features) for p in packs.packs] == [
        ("Pack Básico", "Desde 99€", ("1 foto principal", "3 fotos de detalle", "Entrega en 72h")),
        (
            "Pack Premium",
            "Desde 199€",
            (
                "1 foto principal",
                "5 fotos de detalle",
                "2 fotos lifestyle",
                "Vista 360°",
                "Entrega en 48h",
            ),
        ),
        (
            "Pack Profesional",
            "Desde 399€",
            (
                "Todo lo del Pack Premium",
                "Contenido A+ completo",
                "Vídeo de producto",
                "Fotos de variantes",
                "Infografías",
                "Entrega en 24h",
                "Soporte prioritario",
            ),
        ),
    ]
    assert all(p.cta == Action(label="Solicitar información", href="/contact") for p in packs.packs)
    assert packs.help_link == Action(label="Consultar dudas", href="/contact")
    assert buttons(page) == {
        ("Solicitar presupuesto", "/contact"),
        ("Ver portfolio", "/portfolio"),
        ("Solicitar información", "/contact"),
        ("Consultar dudas", "/contact"),
    }


def test_branding_has_the_three_priced_packs() -> None:
    (packs,) = sections(SERVICE_PAGES["branding"], PacksSection)
    assert [(p.title, p.price) for p in packs.packs] == [
        ("Esencial", "Desde 99€"),
        ("Profesional", "Desde 499€"),
        ("Empresarial", "Desde 999€"),
    ]
    assert all(len(p.features) >= 3 for p in packs.packs)


@pytest.mark.parametrize("service_id", SPEC_TARGETS)
def test_every_page_says_what_is_included_and_how_it_helps(service_id: str) -> None:
    page = SERVICE_PAGES[service_id]
    assert sections(page, BlocksSection) or sections(page, ProgrammesSection)
    assert sections(page, BenefitsSection)
    assert page.cta.actions


def _values(value: object, field: str) -> list:
    """Every value of ``field`` anywhere inside a content value."""
    if isinstance(value, tuple):
        return [v for item in value for v in _values(item, field)]
    if not hasattr(type(value), "model_fields"):
        return []
    own = [getattr(value, field)] if field in type(value).model_fields else []
    return own + [
        v for name in type(value).model_fields for v in _values(getattr(value, name), field)
    ]


def test_every_icon_is_a_lucide_icon() -> None:
    icons = {icon for page in SERVICE_PAGES.values() for icon in _values(page, "icon") if icon}
    assert icons
    unknown = {i for i in icons if format.to_snake_case(i.lower()) not in LUCIDE_ICON_LIST}
    assert not unknown, unknown


def test_images_are_stock_photos_with_spanish_alt_and_size() -> None:
    images = [
        value
        for page in SERVICE_PAGES.values()
        for section in page.sections
        for value in (getattr(section, "image", None), *getattr(section, "images", ()))
        if isinstance(value, Image)
    ]
    assert len(images) >= 11
    for img in images:
        assert re.fullmatch(r"https://images\.unsplash\.com/photo-\d+-[0-9a-f]+", img.src)
        assert len(img.alt.split()) >= 3 and img.width > 0 and img.height > 0


def _pack(**changes) -> dict:
    """Valid pack data, with changes."""
    return {
        "title": "Pack",
        "price_from": 1,
        "features": ("Una cosa",),
        "cta": Action(label="Solicitar información", href="/contact"),
    } | changes


def _programme(**changes) -> dict:
    """Valid training programme data, with changes."""
    return {
        "icon": "book",
        "title": "Curso",
        "duration": "10 horas",
        "description": "Descripción",
        "topics": ("Tema",),
        "cta": Action(label="Más información", href="/contact"),
    } | changes


def test_valid_helpers_are_accepted() -> None:
    Pack(**_pack())
    Programme(**_programme())


@pytest.mark.parametrize(
    ("model", "data"),
    [
        (Pack, _pack(features=())),
        (Pack, {k: v for k, v in _pack().items() if k != "cta"}),
        (Programme, _programme(duration="")),
        (Programme, {k: v for k, v in _programme().items() if k != "duration"}),
        (Programme, _programme(topics=())),
        (PacksSection, {"title": "Packs", "packs": ()}),
        (BlocksSection, {"title": "Qué incluye", "blocks": ()}),
        (CallToAction, {"title": "¿Hablamos?", "text": "Texto", "actions": ()}),
        (ServiceBlock, {"title": "Sin descripción"}),
    ],
)
def test_invalid_content_is_rejected(model: type, data: dict) -> None:
    with pytest.raises(ValidationError):
        model(**data)


def test_a_page_without_buttons_or_with_an_unknown_field_is_rejected() -> None:
    data = SERVICE_PAGES["branding"].model_dump(exclude_computed_fields=True)
    with pytest.raises(ValidationError):
        ServicePage(**(data | {"actions": ()}))
    with pytest.raises(ValidationError):
        ServicePage(**(data | {"precio": "99€"}))
    assert ServicePage(**data) == SERVICE_PAGES["branding"]
