"""Content of the nine service pages (``content/es/services/``): valid, faithful to the spec's
figures, buttons and targets."""

import pytest
from pydantic import ValidationError

from agency_site.content import images as site_images
from agency_site.content.base import Action, Image, ServiceBlock, euros
from agency_site.content.sections import (
    BenefitsSection,
    BlocksSection,
    CallToAction,
    FeaturesSection,
    GallerySection,
    PacksSection,
    Programme,
    ProgrammesSection,
)
from agency_site.content.service_pages import SERVICE_PAGES, SERVICES, ServicePage
from agency_site.content.services import COMMON, Pack, pack_id, price_label, quote_link
from agency_site.reflex_ext.internals import LUCIDE_ICON_LIST
from agency_site.reflex_ext.internals import reflex_format as format
from tests import spec_facts as spec


def sections(page: ServicePage, kind: type) -> list:
    """The page's sections of one kind, in order."""
    return [section for section in page.sections if isinstance(section, kind)]


def buttons(page: ServicePage) -> set[tuple[str, str]]:
    """Every (label, target) pair of the page's buttons."""
    return {(link.label, link.href.split("?", 1)[0]) for link in page.links()}


def _hero_buttons(page: ServicePage) -> tuple[tuple[str, str], ...]:
    """The hero's (label, target) pairs, in order."""
    return tuple((action.label, action.href.split("?", 1)[0]) for action in page.actions)


def test_every_service_has_exactly_one_page_under_its_id() -> None:
    assert set(SERVICE_PAGES) == {service.id for service in SERVICES}
    assert all(page.id == key for key, page in SERVICE_PAGES.items())


@pytest.mark.parametrize("service_id", spec.TARGETS)
def test_buttons_lead_exactly_to_the_spec_targets(service_id: str) -> None:
    assert SERVICE_PAGES[service_id].targets() == spec.TARGETS[service_id]


def test_consulting_claims_content_and_buttons() -> None:
    page = SERVICE_PAGES["consulting"]
    assert tuple(s.value for s in page.stats) == spec.CLAIMS["consulting"]
    assert all(s.label for s in page.stats)
    main, specialised = sections(page, BlocksSection)
    assert len(main.blocks) >= 6
    assert len(specialised.blocks) >= 2
    assert sections(page, BenefitsSection) and sections(page, FeaturesSection)
    assert buttons(page) == spec.BUTTONS["consulting"]
    assert _hero_buttons(page) == spec.HERO_BUTTONS["consulting"]


def test_training_claims_programmes_courses_and_buttons() -> None:
    page = SERVICE_PAGES["training"]
    assert tuple(s.value for s in page.stats) == spec.CLAIMS["training"]
    assert str(spec.MAX_STUDENTS_PER_CLASS) in page.highlighted_fact
    (programmes,) = sections(page, ProgrammesSection)
    assert tuple((p.title, p.duration) for p in programmes.programmes) == spec.PROGRAMMES
    assert all(p.icon and p.description and p.topics for p in programmes.programmes)
    courses, in_company = sections(page, BlocksSection)
    assert tuple(b.title for b in courses.blocks) == spec.COURSES
    assert tuple(b.title for b in in_company.blocks) == spec.IN_COMPANY
    assert sections(page, BenefitsSection) and sections(page, FeaturesSection)

    assert _hero_buttons(page) == spec.HERO_BUTTONS["training"]
    assert buttons(page) <= spec.BUTTONS["training"]
    programme_buttons = {
        ("Más información", quote_link("training")),
        ("Solicitar información", quote_link("training")),
    }
    assert all((p.cta.label, p.cta.href) in programme_buttons for p in programmes.programmes)
    assert [(a.label, a.href) for a in page.cta.actions] == [
        ("Solicitar información", quote_link("training"))
    ]


def test_photography_claims_services_packs_and_buttons() -> None:
    page = SERVICE_PAGES["product-photography"]
    values = [s.value for s in page.stats]
    assert all(any(claim in value for value in values) for claim in spec.PHOTOGRAPHY_CLAIMS)
    assert any(spec.PURE_WHITE in s.label for s in page.stats)

    main, additional = sections(page, BlocksSection)
    assert len(main.blocks) == 4
    assert len(additional.blocks) == 2 and "A+" in additional.blocks[1].title
    (benefits,) = sections(page, BenefitsSection)
    assert len(benefits.benefits) == 4
    (gallery,) = sections(page, GallerySection)
    assert len(gallery.images) == 3
    assert (gallery.cta.label, gallery.cta.href) == ("Ver portfolio", "/portfolio")

    (packs,) = sections(page, PacksSection)
    assert tuple(p.price_from for p in packs.packs) == spec.PACK_PRICES["product-photography"]
    for pack, pack_figures in zip(packs.packs, spec.PHOTOGRAPHY_PACK_FIGURES, strict=True):
        assert all(any(f in feature for feature in pack.features) for f in pack_figures), pack
    assert all(
        (p.cta.label, p.cta.href)
        == ("Solicitar información", quote_link("product-photography", pack_id(p)))
        for p in packs.packs
    )
    assert (packs.help_link.label, packs.help_link.href) == (
        "Consultar dudas",
        quote_link("product-photography"),
    )
    assert buttons(page) == spec.BUTTONS["product-photography"]
    assert _hero_buttons(page) == spec.HERO_BUTTONS["product-photography"]


@pytest.mark.parametrize("service_id", spec.PACK_PRICES)
def test_packs_have_the_spec_prices_shown_from_the_figure(service_id: str) -> None:
    (packs,) = sections(SERVICE_PAGES[service_id], PacksSection)
    assert tuple(p.price_from for p in packs.packs) == spec.PACK_PRICES[service_id]
    for pack, price in zip(packs.packs, spec.PACK_PRICES[service_id], strict=True):
        assert price_label(pack).endswith(f" {euros(price)}")
    assert all(len(p.features) >= 3 for p in packs.packs)


@pytest.mark.parametrize("service_id", spec.TARGETS)
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


def test_images_are_pictures_of_the_site_with_spanish_alt_and_size() -> None:
    images = [
        value
        for page in SERVICE_PAGES.values()
        for section in page.sections
        for value in (getattr(section, "image", None), *getattr(section, "images", ()))
        if isinstance(value, Image)
    ]
    assert len(images) >= 11
    for img in images:
        assert img.src in site_images.source_names(), img.src
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


def _branding_data() -> dict:
    """The branding page as plain data, as a file would hold it."""
    return SERVICE_PAGES["branding"].model_dump(exclude_computed_fields=True)


def test_services_are_the_pages_listings_in_the_shared_order() -> None:
    assert tuple(service.id for service in SERVICES) == COMMON.order
    for service in SERVICES:
        listing = SERVICE_PAGES[service.id].listing
        assert service.model_dump(exclude={"id"}) == listing.model_dump()


def test_a_button_named_in_a_file_is_the_shared_one() -> None:
    own = {"label": "Otro botón", "href": "/contact"}
    page = ServicePage(**(_branding_data() | {"actions": ["request_quote", own]}))
    to_quote = {"href": quote_link("branding")}  # Buttons to /contact choose the service.
    assert page.actions == (
        COMMON.buttons["request_quote"].model_copy(update=to_quote),
        Action(**(own | to_quote)),
    )
    with pytest.raises(ValidationError, match="no shared button 'presupuesto'"):
        ServicePage(**(_branding_data() | {"actions": ["presupuesto"]}))


def test_every_shared_button_is_used() -> None:
    used = {
        (link.label, link.href.split("?", 1)[0])
        for page in SERVICE_PAGES.values()
        for link in page.links()
    }
    assert {(button.label, button.href) for button in COMMON.buttons.values()} <= used


def test_contact_buttons_open_the_quote_form_with_the_service_and_pack() -> None:
    for service_id, page in SERVICE_PAGES.items():
        to_contact = [link.href for link in page.links() if link.href.startswith("/contact")]
        assert to_contact and all(
            href.startswith(f"/contact?service={service_id}") for href in to_contact
        )
    branding = SERVICE_PAGES["branding"]
    packs = next(s for s in branding.sections if isinstance(s, PacksSection))
    assert [p.cta.href for p in packs.packs] == [
        f"/contact?service=branding&pack={key}"
        for key in ("esencial", "profesional", "empresarial")
    ]


@pytest.mark.parametrize("change", ["no list", "two lists"])
def test_a_section_is_told_by_exactly_one_list(change: str) -> None:
    data = _branding_data()
    first = dict(data["sections"][0])
    if change == "no list":
        del first["blocks"]
    else:
        first["features"] = ("Una cosa",)
    with pytest.raises(ValidationError, match="exactly one of the lists"):
        ServicePage(**(data | {"sections": (first, *data["sections"][1:])}))


def test_the_hero_eyebrow_is_the_service_name_unless_written() -> None:
    data = _branding_data()
    hero = {key: value for key, value in data["hero"].items() if key != "eyebrow"}
    assert ServicePage(**(data | {"hero": hero})).hero.eyebrow == data["listing"]["title"]
    assert ServicePage(**(data | {"hero": hero | {"eyebrow": "Otra"}})).hero.eyebrow == "Otra"


def test_a_figure_the_training_page_quotes_twice_is_written_once() -> None:
    page = SERVICE_PAGES["training"]
    assert page.facts == {"group_max": str(spec.MAX_STUDENTS_PER_CLASS)}
    assert "{group_max}" in page.highlight and "{group_max}" in page.meta.description
    assert str(spec.MAX_STUDENTS_PER_CLASS) in page.description()
    data = page.model_dump(exclude_computed_fields=True)
    with pytest.raises(ValidationError, match="unknown name"):
        ServicePage(**(data | {"highlight": "máximo {nope} alumnos"}))
