"""The main pages as a visitor meets them: the spec's texts and figures, and where each
button leads (clicked; for e-mail, phone and WhatsApp, its href)."""

import re

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from agency_site import paths
from agency_site.content import about, careers, contact, home, influencer, schedule, testimonials
from agency_site.content.case_studies import CASE_STUDIES, PAGE
from agency_site.content.sections import (
    BandSection,
    BenefitsSection,
    ChecklistsSection,
    NumberedSection,
    StatsBandSection,
    StatsSection,
)
from agency_site.content.service_pages import SERVICES
from agency_site.content.site import SITE
from agency_site.routes import ROUTES
from tests.e2e.helpers import expect_page, open_page, section_by_id

MAIN_PATHS = [
    paths.HOME,
    paths.ABOUT,
    paths.CASE_STUDIES,
    *[paths.case_study(c.id) for c in CASE_STUDIES],
    paths.CAREERS,
    paths.INFLUENCER_PROGRAM,
    paths.CONTACT,
    paths.SCHEDULE,
]


def click_and_expect(page: Page, link: Locator, path: str) -> None:
    """Click a link and land on ``path``: its URL and its own content."""
    link.click()
    expect_page(page, path)


def expect_visible_texts(scope: Page | Locator, texts) -> None:
    """Each text is visible somewhere in ``scope``."""
    for text in texts:
        expect(scope.get_by_text(text, exact=True).first).to_be_visible()


def test_main_routes_are_registered() -> None:
    assert set(MAIN_PATHS) <= {route.path for route in ROUTES}


# Home


def test_home_shows_hero_form_services_testimonials_brands_and_contact(page: Page) -> None:
    open_page(page, paths.HOME)
    expect(page.get_by_role("heading", level=1)).to_have_text(home.PAGE.hero.heading)
    expect(page.locator("#hero-capture-form input[type=email]")).to_be_visible()
    expect(page.get_by_text(home.PAGE.influencer_teaser.title)).to_be_visible()
    expect(page.locator("#servicios h3")).to_have_text([s.title for s in SERVICES])
    for testimonial in testimonials.COPY.testimonials:
        card = page.locator(f"#testimonios figure:has-text('{testimonial.name}')")
        expect(card).to_contain_text(testimonials.COPY.rating_text(testimonial))
        expect(card).to_contain_text(testimonial.company)
        expect(card.locator("svg.fill-amber-400")).to_have_count(testimonial.rating)
    expect_visible_texts(page.locator("#testimonios"), home.PAGE.brands)
    contact_section = page.locator("#contacto")
    expect(contact_section).to_contain_text(SITE.address.one_line)
    expect(contact_section).to_contain_text("Agramunt")
    expect_visible_texts(contact_section, [SITE.email, SITE.phone])
    expect(contact_section.get_by_role("link", name="Abrir WhatsApp")).to_have_attribute(
        "href", SITE.whatsapp_url
    )


def test_home_teaser_leads_to_the_influencer_programme(page: Page) -> None:
    open_page(page, paths.HOME)
    link = page.get_by_role("link", name=home.PAGE.influencer_teaser.action.label)
    click_and_expect(page, link, paths.INFLUENCER_PROGRAM)


@pytest.mark.parametrize("action", home.PAGE.influencer_spotlight.actions, ids=lambda a: a.href)
def test_home_influencer_section_buttons(page: Page, action) -> None:
    open_page(page, paths.HOME)
    link = page.locator("#influencer").get_by_role("link", name=action.label)
    click_and_expect(page, link, action.href)
    assert action.href in (paths.CONTACT, paths.SCHEDULE)


def test_home_contact_buttons_open_email_phone_and_whatsapp(page: Page) -> None:
    open_page(page, paths.HOME)
    band = page.locator("#contacto-rapido")
    expect(band.get_by_role("link", name="Email")).to_have_attribute("href", SITE.mailto)
    expect(band.get_by_role("link", name="Llamar")).to_have_attribute("href", SITE.tel)
    whatsapp = band.get_by_role("link", name="WhatsApp")
    expect(whatsapp).to_have_attribute("href", re.compile(r"^https://wa\.me/\d+$"))
    expect(whatsapp).to_have_attribute("href", SITE.whatsapp_url)


def _toggle(page: Page, service_id: str) -> Locator:
    return page.locator(f"#service-{service_id}-toggle")


def _panel(page: Page, service_id: str) -> Locator:
    return page.locator(f"#service-{service_id}-features")


def test_home_service_cards_open_one_at_a_time(page: Page) -> None:
    open_page(page, paths.HOME)
    first, second = SERVICES[0], SERVICES[7]
    for service in SERVICES:
        expect(_toggle(page, service.id)).to_have_attribute("aria-expanded", "false")
        expect(_toggle(page, service.id)).to_have_attribute(
            "aria-controls", f"service-{service.id}-features"
        )
        expect(_panel(page, service.id)).to_be_hidden()

    _toggle(page, first.id).click()
    expect(_toggle(page, first.id)).to_have_attribute("aria-expanded", "true")
    expect(_panel(page, first.id).locator("li")).to_have_text(list(first.features))
    expect(page.locator("[id$='-features']:visible")).to_have_count(1)

    _toggle(page, second.id).click()
    expect(_toggle(page, second.id)).to_have_attribute("aria-expanded", "true")
    expect(_panel(page, second.id).locator("li")).to_have_text(list(second.features))
    expect(_toggle(page, first.id)).to_have_attribute("aria-expanded", "false")
    expect(_panel(page, first.id)).to_be_hidden()
    expect(page.locator("[id$='-features']:visible")).to_have_count(1)

    _toggle(page, second.id).click()
    expect(_toggle(page, second.id)).to_have_attribute("aria-expanded", "false")
    expect(page.locator("[id$='-features']:visible")).to_have_count(0)


def test_service_cards_toggle_without_talking_to_the_backend(page: Page) -> None:
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: frames.append(frame)))
    # Engine.io heartbeats ("2" ping, "3" pong) may cross at any time; count the rest.
    events = lambda: [f for f in frames if f not in ("2", "3")]  # noqa: E731
    open_page(page, paths.HOME)
    page.wait_for_timeout(1_000)
    before = len(events())
    for service in SERVICES[:3]:
        _toggle(page, service.id).click()
        expect(_panel(page, service.id)).to_be_visible()
    page.wait_for_timeout(500)
    assert len(events()) == before


@pytest.mark.parametrize("service", SERVICES, ids=[s.id for s in SERVICES])
def test_home_service_card_requests_information_on_its_page(page: Page, service) -> None:
    open_page(page, paths.HOME)
    _toggle(page, service.id).click()
    link = _panel(page, service.id).get_by_role("link", name=home.PAGE.service_card.cta_label)
    click_and_expect(page, link, paths.service(service.id))


# About


def test_about_shows_the_stats_values_approach_and_mission(page: Page) -> None:
    open_page(page, paths.ABOUT)
    stats = page.locator("#cifras li")
    expect(stats).to_have_text(
        [f"{s.value}{s.label}" for s in about.PAGE.section(StatsSection).stats]
    )
    expect(page.locator("#valores h3")).to_have_text(
        [v.title for v in about.PAGE.section(BenefitsSection).benefits]
    )
    expect(page.locator("#metodo h3")).to_have_text(
        [b.title for b in about.PAGE.section(NumberedSection).numbered]
    )
    (action,) = about.PAGE.section(BandSection).actions
    link = page.locator("#mision").get_by_role("link", name=action.label)
    click_and_expect(page, link, paths.CONTACT)


# Case studies


def test_case_list_shows_each_case_with_tags_story_and_three_results(page: Page) -> None:
    open_page(page, paths.CASE_STUDIES)
    cards = page.locator("main article")
    expect(cards).to_have_count(3)
    for card, case in zip(cards.all(), CASE_STUDIES, strict=True):
        expect(card.get_by_role("heading", level=2)).to_have_text(case.title)
        expect_visible_texts(card, [*case.tags, case.challenge, case.solution])
        expect(card.locator("ul.grid li")).to_have_text(
            [f"{m.value}{m.label}" for m in case.results]
        )


@pytest.mark.parametrize("case", CASE_STUDIES, ids=[c.id for c in CASE_STUDIES])
def test_case_list_links_to_the_full_case(page: Page, case) -> None:
    open_page(page, paths.CASE_STUDIES)
    link = page.locator(f"#caso-{case.id}").get_by_role("link", name=PAGE.labels.read_more)
    click_and_expect(page, link, paths.case_study(case.id))
    expect(page.get_by_role("heading", level=1)).to_have_text(case.title)


@pytest.mark.parametrize("case", CASE_STUDIES, ids=[c.id for c in CASE_STUDIES])
def test_case_detail_tells_the_whole_story(page: Page, case) -> None:
    open_page(page, paths.case_study(case.id))
    expect(page.get_by_role("heading", level=1)).to_have_text(case.title)
    expect_visible_texts(
        page,
        [
            case.subtitle,
            case.challenge,
            case.solution,
            *case.solution_points,
            *case.key_achievements,
            case.testimonial.author,
            case.testimonial.role,
        ],
    )
    expect(page.get_by_text(case.testimonial.quote)).to_be_visible()
    metrics = page.locator("#resultados li")
    expect(metrics).to_have_text([f"{m.value}{m.label}{m.description}" for m in case.results])
    expect(metrics.locator("svg")).to_have_count(3)
    (action,) = PAGE.detail_cta.actions
    assert action.label == "Solicitar consulta gratuita"
    link = page.get_by_role("link", name=action.label)
    click_and_expect(page, link, paths.CONTACT)


# Careers


def test_careers_lists_the_positions_with_their_conditions(page: Page) -> None:
    open_page(page, paths.CAREERS)
    expect(page.locator("#beneficios h3")).to_have_text(
        [b.title for b in careers.CAREERS.section(BenefitsSection).benefits]
    )
    for job in careers.CAREERS.positions:
        card = page.locator(f"#puesto-{job.id}")
        expect(card.get_by_role("heading", level=3)).to_have_text(job.title)
        expect_visible_texts(
            card,
            [
                job.department,
                careers.CAREERS.location(job),
                careers.CAREERS.contract(job),
                job.salary,
                *job.requirements,
                *job.benefits,
            ],
        )
        expect(card.get_by_role("link", name="Aplicar ahora")).to_have_attribute(
            "href", careers.CAREERS.apply(job).href
        )
    expect(page.get_by_text("45.000€ - 60.000€")).to_be_visible()


def test_careers_open_positions_button_scrolls_down_the_same_page(
    page: Page, base_url: str
) -> None:
    open_page(page, paths.CAREERS)
    positions = page.locator(f"#{section_by_id(careers.CAREERS, 'posiciones').id}")
    expect(positions).not_to_be_in_viewport()
    page.get_by_role("link", name=careers.CAREERS.hero_actions[0].label).click()
    expect(positions.get_by_role("heading", level=2)).to_be_in_viewport()
    expect(page).to_have_url(
        re.compile(
            rf"{re.escape(paths.CAREERS)}/?#{section_by_id(careers.CAREERS, 'posiciones').id}$"
        )
    )
    assert page.evaluate("window.scrollY") > 300


def test_careers_email_buttons_write_to_the_agency_and_stay_on_the_page(page: Page) -> None:
    open_page(page, paths.CAREERS)
    spontaneous = page.get_by_role("link", name="Enviar CV espontáneo")
    expect(spontaneous).to_have_attribute(
        "href", f"mailto:{SITE.email}?subject=Candidatura%20espont%C3%A1nea"
    )
    apply = page.locator(f"#puesto-{careers.CAREERS.positions[1].id}").get_by_role(
        "link", name="Aplicar ahora"
    )
    expect(apply).to_have_attribute("href", f"mailto:{SITE.email}?subject=Full%20Stack%20Developer")
    for link in (apply, spontaneous):
        link.click()
        expect_page(page, paths.CAREERS)
        expect(page.get_by_role("heading", level=1)).to_have_text(careers.CAREERS.hero.heading)


# Influencer programme


def test_influencer_programme_explains_the_deal_and_shows_its_stats(page: Page) -> None:
    open_page(page, paths.INFLUENCER_PROGRAM)
    expect(page.get_by_role("heading", level=1)).to_have_text(influencer.PAGE.hero.heading)
    for stat in influencer.PAGE.section(StatsBandSection).stats:
        expect(page.get_by_text(stat.value, exact=True)).to_be_visible()
    expect(page.locator("#como-funciona h3")).to_have_text(
        [s.title for s in influencer.PAGE.section(NumberedSection).numbered]
    )
    expect(page.locator("#acuerdo h3")).to_have_text(
        [d.title for d in influencer.PAGE.section(ChecklistsSection).checklists]
    )
    expect(page.locator("#para-quien h3")).to_have_text(
        [a.title for a in section_by_id(influencer.PAGE, "para-quien").benefits]
    )


@pytest.mark.parametrize("where", ["main > section:first-child", "#empezar"])
@pytest.mark.parametrize("action", influencer.PAGE.hero_actions, ids=lambda a: a.href)
def test_influencer_programme_buttons(page: Page, where: str, action) -> None:
    open_page(page, paths.INFLUENCER_PROGRAM)
    link = page.locator(where).get_by_role("link", name=action.label)
    click_and_expect(page, link, action.href)
    assert action.href in (paths.CONTACT, paths.CASE_STUDIES)


# Contact


def test_contact_cards_link_to_email_phone_and_whatsapp(page: Page) -> None:
    open_page(page, paths.CONTACT)
    assert "24 horas" in contact.PAGE.response_promise  # SPEC: an answer within 24 hours.
    expect(page.get_by_text(contact.PAGE.response_promise).first).to_be_visible()
    cards = page.locator("#canales ul").first.locator("li")
    expect(cards).to_have_count(3)
    hrefs = [SITE.mailto, SITE.tel, SITE.whatsapp_url]
    for card, method, href in zip(cards.all(), contact.PAGE.contact_methods, hrefs, strict=True):
        expect(card).to_contain_text(method.value)
        expect(card.get_by_role("link")).to_have_attribute("href", href)
    expect(page.locator("#canales")).to_contain_text(SITE.opening_hours)


def test_contact_faq_opens_natively(page: Page) -> None:
    open_page(page, paths.CONTACT)
    questions = page.locator("#preguntas details")
    expect(questions.locator("summary")).to_have_text([q.question for q in contact.PAGE.faq])
    whatsapp = contact.PAGE.faq[1]
    answer = page.get_by_text(whatsapp.answer)
    expect(answer).to_be_hidden()
    page.get_by_text(whatsapp.question).click()
    expect(answer).to_be_visible()
    expect(answer).to_contain_text(SITE.opening_hours.lower())


def test_contact_faq_works_without_javascript(browser: Browser, base_url: str) -> None:
    context = browser.new_context(java_script_enabled=False, base_url=base_url)
    try:
        page = context.new_page()
        page.goto(paths.CONTACT)
        first = contact.PAGE.faq[0]
        page.get_by_text(first.question).click()
        expect(page.get_by_text(first.answer)).to_be_visible()
        expect(page.get_by_text(first.answer)).to_contain_text(contact.PAGE.response_promise)
    finally:
        context.close()


def test_contact_offers_to_schedule_a_call(page: Page) -> None:
    open_page(page, paths.CONTACT)
    link = page.get_by_role("link", name=contact.PAGE.schedule_action.label)
    click_and_expect(page, link, paths.SCHEDULE)


# Schedule


def test_schedule_places_the_booking_form_with_what_to_expect(page: Page) -> None:
    open_page(page, paths.SCHEDULE)
    expect(page.locator("#booking-form")).to_be_visible()
    aside = page.get_by_role(
        "complementary", name=schedule.PAGE.section(schedule.BookingFormSection).aside_label
    )
    expect_visible_texts(
        aside, [f.value for f in schedule.PAGE.section(schedule.BookingFormSection).facts]
    )
    expect(aside.locator("h3")).to_have_text(
        [item.title for item in schedule.PAGE.section(schedule.BookingFormSection).agenda]
    )
    for href in (SITE.mailto, SITE.tel, SITE.whatsapp_url):
        expect(aside.locator(f"a[href='{href}']")).to_have_count(1)


# Every page


@pytest.mark.parametrize("path", MAIN_PATHS)
def test_page_fits_a_small_phone_without_sideways_scrolling(page: Page, path: str) -> None:
    page.set_viewport_size({"width": 375, "height": 812})
    open_page(page, path)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    expect(page.get_by_role("heading", level=1)).to_be_visible()
