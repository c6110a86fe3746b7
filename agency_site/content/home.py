"""The Home page: ``content/es/pages/home.yaml``, validated by the models below."""

from agency_site.content.base import Content, Hero, Image, PageMeta
from agency_site.content.contact import PAGE as CONTACT_PAGE
from agency_site.content.files import load
from agency_site.content.sections import Action, CallToAction, SectionHeading
from agency_site.locale import Localized


class Teaser(Content):
    """A highlighted card that points to another page."""

    icon: str
    eyebrow: str
    title: str
    text: str
    action: Action


class ServiceCardCopy(Content):
    """Fixed labels of the expandable service cards."""

    toggle_label: str
    features_title: str
    cta_label: str


class Spotlight(Content):
    """A feature section: heading, selling points, buttons and a photo."""

    heading: SectionHeading
    points: tuple[str, ...]
    actions: tuple[Action, ...]
    image: Image


class HomePage(Content):
    """The whole Home page, section by section."""

    meta: PageMeta
    hero: Hero
    hero_form_intro: str
    influencer_teaser: Teaser
    services_heading: SectionHeading
    service_card: ServiceCardCopy
    influencer_spotlight: Spotlight
    testimonials_heading: SectionHeading
    brands_title: str
    brands: tuple[str, ...]
    contact_cta: CallToAction
    contact_info_heading: SectionHeading


# The closing band quotes the Contact page's promise: {contact.response_promise}.
PAGE = Localized(
    lambda: load(
        "pages/home.yaml",
        HomePage,
        values={"contact.response_promise": CONTACT_PAGE.response_promise},
    )
)
