"""The content of the main pages: valid, strict about bad data, with the spec's exact figures."""

import re

import pytest
from pydantic import ValidationError

from agency_site import paths
from agency_site.content import about, careers, contact, home, influencer, schedule, testimonials
from agency_site.content import images as site_images
from agency_site.content.base import Image
from agency_site.content.case_studies import (
    CASE_STUDIES,
    PAGE,
    CaseStudy,
)
from agency_site.content.sections import (
    BandSection,
    BenefitsSection,
    CallToAction,
    NumberedSection,
    StatsBandSection,
    StatsSection,
)
from agency_site.content.site import SITE
from agency_site.reflex_ext.internals import LUCIDE_ICON_LIST, to_snake_case
from tests import spec_facts as spec
from tests.content_walker import content_modules, module_models


def _figures(stats) -> list[tuple[str, str]]:
    return [(s.value, s.label) for s in stats]


def test_about_stats_are_the_spec_figures() -> None:
    assert tuple(_figures(about.PAGE.section(StatsSection).stats)) == spec.ABOUT_STATS
    assert len(about.PAGE.section(BenefitsSection).benefits) == 4
    assert len(about.PAGE.section(NumberedSection).numbered) == 4
    assert [a.href for a in about.PAGE.section(BandSection).actions] == [paths.CONTACT]


def test_influencer_stats_and_buttons() -> None:
    assert _figures(influencer.PAGE.section(StatsBandSection).stats) == [
        ("+300%", "ROI"),
        ("45%", "conversión"),
        ("90%", "satisfacción"),
    ]
    for actions in (influencer.PAGE.hero_actions, influencer.PAGE.section(BandSection).actions):
        assert [a.href for a in actions] == [paths.CONTACT, paths.CASE_STUDIES]
    assert "sin coste" in influencer.PAGE.hero.intro and "beneficios" in influencer.PAGE.hero.intro


@pytest.mark.parametrize(("case_id", "metrics"), spec.CASE_METRICS.items())
def test_case_study_metrics_are_the_spec_figures(case_id: str, metrics: tuple) -> None:
    [case] = [case for case in CASE_STUDIES if case.id == case_id]
    assert tuple((m.value, m.label) for m in case.results) == metrics
    assert all(m.icon and m.description for m in case.results)
    assert case.tags and case.solution_points and case.key_achievements
    assert case.testimonial.quote and case.testimonial.author and case.testimonial.role


def test_the_spec_cases_in_order_and_the_default_exists() -> None:
    ids = [c.id for c in CASE_STUDIES]
    assert [i for i in ids if i in spec.CASE_IDS] == list(spec.CASE_IDS)
    assert spec.DEFAULT_CASE_ID in ids
    assert [(a.label, a.href) for a in PAGE.detail_cta.actions] == [
        ("Solicitar consulta gratuita", paths.CONTACT)
    ]


@pytest.mark.parametrize("count", [2, 4])
def test_a_case_without_exactly_three_results_is_rejected(count: int) -> None:
    data = CASE_STUDIES[0].model_dump()
    data["results"] = (data["results"] * 2)[:count]
    with pytest.raises(ValidationError):
        CaseStudy(**data)


def test_careers_positions_are_the_spec_ones() -> None:
    assert [
        (j.title, j.department, careers.CAREERS.location(j), careers.CAREERS.contract(j), j.salary)
        for j in careers.CAREERS.positions
    ] == [
        (
            "Senior Marketing Manager",
            "Marketing",
            "Madrid (híbrido)",
            "Jornada completa",
            "45.000€ - 60.000€",
        ),
        ("Full Stack Developer", "Tecnología", "Remoto", "Jornada completa", "40.000€ - 55.000€"),
        ("Content Manager", "Contenido", "Madrid", "Jornada completa", "28.000€ - 35.000€"),
    ]
    assert all(j.description and j.requirements and j.benefits for j in careers.CAREERS.positions)
    assert [b.title for b in careers.CAREERS.section(BenefitsSection).benefits] == [
        "Desarrollo profesional",
        "Bienestar",
        "Cultura de equipo",
        "Entorno flexible",
    ]


def test_careers_buttons_write_to_the_agency_with_an_encoded_subject() -> None:
    assert [careers.CAREERS.apply(j).href for j in careers.CAREERS.positions] == [
        f"{SITE.mailto}?subject=Senior%20Marketing%20Manager",
        f"{SITE.mailto}?subject=Full%20Stack%20Developer",
        f"{SITE.mailto}?subject=Content%20Manager",
    ]
    assert {careers.CAREERS.apply(j).label for j in careers.CAREERS.positions} == {"Aplicar ahora"}
    (spontaneous,) = careers.CAREERS.section(careers.ApplicationSection).cta.actions
    assert spontaneous.label == "Enviar CV espontáneo"
    assert spontaneous.href == f"{SITE.mailto}?subject=Candidatura%20espont%C3%A1nea"
    assert careers.CAREERS.hero_actions[0].href == "#posiciones"
    assert "posiciones" in [section.id for section in careers.CAREERS.sections]


def test_a_salary_range_is_written_the_spanish_way() -> None:
    assert careers.euros(1_500) == "1500€"  # RAE: no separator up to four digits.
    assert careers.euros(45_000) == "45.000€"
    job = careers.CAREERS.positions[0].model_copy(update={"salary_min": 1_234_567})
    assert job.salary.startswith("1.234.567€ - ")


def test_a_position_without_requirements_or_with_a_reversed_salary_is_rejected() -> None:
    data = careers.CAREERS.positions[0].model_dump(exclude_computed_fields=True)
    with pytest.raises(ValidationError):
        careers.JobPosting(**(data | {"requirements": ()}))
    with pytest.raises(ValidationError, match="salary_min is more than salary_max"):
        careers.JobPosting(**(data | {"salary_min": 70_000}))
    careers.JobPosting(**data)


def test_a_contract_type_without_its_schema_org_name_is_rejected() -> None:
    page = careers.CAREERS.model_dump(exclude_computed_fields=True)
    with pytest.raises(ValidationError, match="employment_types lacks"):
        careers.CareersPage(**(page | {"employment_types": {}}))


def test_a_positions_location_and_button_read_the_pages_words() -> None:
    labels = careers.CAREERS.job_labels
    hybrid, remote, office = careers.CAREERS.positions  # The spec's order.
    assert (hybrid.city, hybrid.hybrid, careers.CAREERS.location(hybrid)) == (
        "Madrid",
        True,
        f"Madrid {labels.hybrid}",
    )
    assert (remote.city, careers.CAREERS.location(remote)) == ("", labels.remote)
    assert (careers.CAREERS.location(office), office.hybrid) == ("Madrid", False)
    assert {careers.CAREERS.apply(job).label for job in careers.CAREERS.positions} == {labels.apply}
    assert [job.date_posted.isoformat() for job in careers.CAREERS.positions] == [
        "2026-11-02",
        "2026-11-02",
        "2026-11-16",
    ]


def test_the_testimonials_are_rated_out_of_five() -> None:
    assert len(testimonials.COPY.testimonials) >= spec.TESTIMONIALS_ON_HOME
    assert all(1 <= t.rating <= 5 for t in testimonials.COPY.testimonials)
    # The words are the file's; the figures, the rating and its maximum.
    assert testimonials.COPY.rating_text(
        testimonials.COPY.testimonials[0]
    ) == testimonials.COPY.rating_label.format(
        rating=testimonials.COPY.testimonials[0].rating, max=5
    )
    assert {"{rating}", "{max}"} <= set(re.findall(r"\{\w+\}", testimonials.COPY.rating_label))
    assert all(t.name and t.company and t.role and t.quote for t in testimonials.COPY.testimonials)


@pytest.mark.parametrize("rating", [0, 6, -1])
def test_a_rating_outside_one_to_five_is_rejected(rating: int) -> None:
    data = testimonials.COPY.testimonials[0].model_dump(exclude_computed_fields=True)
    with pytest.raises(ValidationError):
        testimonials.Testimonial(**(data | {"rating": rating}))


def test_home_buttons_lead_where_the_spec_says() -> None:
    assert home.PAGE.influencer_teaser.action.href == paths.INFLUENCER_PROGRAM
    assert [a.href for a in home.PAGE.influencer_spotlight.actions] == [
        paths.CONTACT,
        paths.SCHEDULE,
    ]
    assert [(a.label, a.href) for a in home.PAGE.contact_cta.actions] == [
        ("Email", SITE.mailto),
        ("Llamar", SITE.tel),
        ("WhatsApp", SITE.whatsapp_url),
    ]
    assert home.PAGE.service_card.cta_label == "Solicitar información"
    assert len(home.PAGE.brands) >= 4


def test_contact_cards_and_faq() -> None:
    assert [m.action.href for m in contact.PAGE.contact_methods] == [
        SITE.mailto,
        SITE.tel,
        SITE.whatsapp_url,
    ]
    assert contact.PAGE.response_promise == "Respuesta garantizada en menos de 24 horas"
    answers = " ".join(f"{i.question} {i.answer}" for i in contact.PAGE.faq).lower()
    for topic in (
        "24 horas",
        SITE.opening_hours.lower(),
        "whatsapp",
        "presupuestos personalizados",
    ):
        assert topic in answers, topic
    for preparation in ("objetivos", "presupuesto", "plazos"):
        assert preparation in answers, preparation
    assert contact.PAGE.office.address == SITE.address.one_line
    assert "Agramunt" in contact.PAGE.office.address


def test_schedule_page_says_how_long_and_offers_other_channels() -> None:
    assert any(
        re.search(r"\b\d+ min", f.value)
        for f in schedule.PAGE.section(schedule.BookingFormSection).facts
    )  # How long it lasts.
    assert len(schedule.PAGE.section(schedule.BookingFormSection).agenda) >= 3


def test_a_call_to_action_needs_a_button() -> None:
    with pytest.raises(ValidationError):
        CallToAction(title="t", text="x", actions=())


def test_content_models_reject_unknown_fields() -> None:
    with pytest.raises(ValidationError):
        Image(src="team-office", alt="a", width=1200, height=800, title="x")


def _all_models():
    return list(module_models(content_modules()))


def test_every_icon_named_in_the_content_exists_in_lucide() -> None:
    icons = {
        (where, model.icon)
        for where, model in _all_models()
        if isinstance(getattr(model, "icon", None), str) and model.icon
    }
    assert len(icons) > 30
    unknown = [(w, i) for w, i in icons if to_snake_case(i) not in LUCIDE_ICON_LIST]
    assert unknown == []


def test_every_image_is_a_described_picture_of_the_site_with_its_size() -> None:
    images = [m for _, m in _all_models() if isinstance(m, Image)]
    assert len(images) >= 10
    for img in images:
        assert img.src in site_images.source_names(), img.src
        assert len(img.alt) > 10 and img.width > 0 and img.height > 0
