"""Every link written in the content leads somewhere real: a route, /portfolio or /blog (the
spec's undeclared pages), an anchor, the agency's e-mail, phone or WhatsApp."""

import re
import types
from urllib.parse import parse_qsl, unquote, urlsplit

from agency_site import paths
from agency_site.content.base import Content, Link
from agency_site.content.careers import CAREERS
from agency_site.content.sections import Action, CallToAction
from agency_site.content.site import SITE
from agency_site.forms.declarations import pack_options, service_options
from agency_site.locale import LOCALES, localized_path
from agency_site.routes import ROUTES
from tests.content_walker import content_modules, links_in

DECLARED = {route.path for route in ROUTES} | {
    localized_path(path, language) for path in (paths.PORTFOLIO, paths.BLOG) for language in LOCALES
}
ANCHOR = re.compile(r"^#[a-z][a-z0-9-]*$")
# Outside sites the content may name on purpose: the data-protection authority (privacy policy).
EXTERNAL = {"https://www.aepd.es"}


def _quote_form_problem(href: str) -> str | None:
    """Why a link to /contact with a query is not one to the quote form with a known
    service (and one of its packs), or None when it is."""
    path, _, query = href.partition("?")
    chosen = dict(parse_qsl(query))
    if path != paths.CONTACT or not chosen.keys() <= {"service", "pack"} or not chosen:
        return "a query only /contact?service=<id>&pack=<id> may have"
    if chosen.get("service") not in {option.value for option in service_options()}:
        return f"unknown service {chosen.get('service')!r}"
    packs = {o.value for o in pack_options() if o.group == chosen["service"]}
    if "pack" in chosen and chosen["pack"] not in packs:
        return f"no pack {chosen['pack']!r} in {chosen['service']!r}"
    return None


def link_problem(href: str) -> str | None:
    """Why ``href`` is not an allowed target, or None when it is."""
    if href.startswith(paths.CONTACT + "?"):
        return _quote_form_problem(href)
    if href in DECLARED or href in EXTERNAL or ANCHOR.match(href):
        return None
    if href.startswith("mailto:"):
        address, _, query = href.removeprefix("mailto:").partition("?")
        if address != SITE.email:
            return f"e-mail to {address!r}, not the agency's {SITE.email!r}"
        if query and (not query.startswith("subject=") or " " in query):
            return "mailto query must be a URL-encoded subject"
        return None
    if href.startswith("tel:"):
        return None if href == SITE.tel else f"phone {href!r} is not {SITE.tel!r}"
    if href.startswith("https://wa.me/"):
        return None if href == SITE.whatsapp_url else f"{href!r} is not {SITE.whatsapp_url!r}"
    return "neither a declared route, /portfolio, /blog, #anchor, mailto:, tel:, https://wa.me/ nor a listed external site"


def bad_links(modules) -> list[str]:
    """Every disallowed link the modules' content holds, described."""
    return [
        f"{where}: {link.label!r} → {link.href!r}: {problem}"
        for where, link in links_in(modules)
        if (problem := link_problem(link.href))
    ]


def test_every_link_in_the_content_is_allowed() -> None:
    modules = content_modules()
    assert {m.__name__.rsplit(".", 1)[-1] for m in modules} >= {
        "home",
        "about",
        "case_studies",
        "careers",
        "influencer",
        "contact",
        "schedule",
    }
    assert len(links_in(modules)) >= 20, "the walker should find the content's links"
    assert bad_links(modules) == []


def test_the_walker_sees_computed_links() -> None:
    found = {link.href for _, link in links_in(content_modules())}
    assert {action.href for action in CAREERS.applications} <= found


class _Nested(Content):
    """A model holding links deep inside containers."""

    blocks: dict[str, tuple[CallToAction, ...]]


def test_the_walker_catches_a_bad_link_anywhere() -> None:
    fake = types.ModuleType("agency_site.content.fake")
    fake.GOOD = Link(label="Inicio", href=paths.HOME)
    fake.NESTED = _Nested(
        blocks={
            "a": (
                CallToAction(
                    title="t",
                    text="x",
                    actions=(
                        Action(label="Contacto", href=paths.CONTACT),
                        Action(label="Roto", href="/no-existe"),
                    ),
                ),
            )
        }
    )
    fake.LISTED = [Link(label="Otro e-mail", href="mailto:otra@example.com")]
    problems = bad_links([fake])
    assert len(problems) == 2
    assert "/no-existe" in problems[0] and "fake.NESTED" in problems[0]
    assert "otra@example.com" in problems[1]


def test_link_rules() -> None:
    assert link_problem(paths.PORTFOLIO) is None
    assert link_problem("#posiciones") is None
    assert link_problem(f"{SITE.mailto}?subject=Hola%20mundo") is None
    assert link_problem(f"{SITE.mailto}?subject=Hola mundo") is not None
    assert link_problem(paths.BLOG) is None  # Footer (SPEC §2): lands on the not-found page.
    assert link_problem("/nada") is not None
    assert link_problem("https://example.com/") is not None
    assert link_problem("tel:+34600000000") is not None
    assert (
        unquote(urlsplit(CAREERS.apply(CAREERS.positions[0]).href).query)
        == f"subject={CAREERS.positions[0].title}"
    )
