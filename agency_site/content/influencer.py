"""The influencer / info-product programme landing (also teased on Home):
``content/es/pages/influencer-program.yaml``, validated by the models below."""

from pydantic import computed_field

from agency_site.content.base import Benefit, Content, Hero, Image, PageMeta, Stat
from agency_site.content.files import load
from agency_site.content.sections import Action, CallToAction, SectionHeading, Step


class Deal(Content):
    """Who contributes what to the partnership."""

    title: str
    points: tuple[str, ...]


class ClosingBand(Content):
    """The closing band's words; its buttons are the hero's."""

    title: str
    text: str


class InfluencerPage(Content):
    """The whole influencer programme page, section by section."""

    meta: PageMeta
    hero: Hero
    hero_actions: tuple[Action, ...]
    hero_image: Image
    stats: tuple[Stat, ...]
    stats_note: str
    how_heading: SectionHeading
    steps: tuple[Step, ...]
    deal_heading: SectionHeading
    deals: tuple[Deal, Deal]
    services_heading: SectionHeading
    services: tuple[Benefit, ...]
    audience_heading: SectionHeading
    audiences: tuple[Benefit, ...]
    cta: ClosingBand

    @computed_field
    @property
    def closing(self) -> CallToAction:
        """The closing band with the hero's buttons."""
        return CallToAction(title=self.cta.title, text=self.cta.text, actions=self.hero_actions)


PAGE = load("pages/influencer-program.yaml", InfluencerPage)
# The names other modules read.
META, HERO, HERO_ACTIONS, HERO_IMAGE = PAGE.meta, PAGE.hero, PAGE.hero_actions, PAGE.hero_image
STATS, STATS_NOTE = PAGE.stats, PAGE.stats_note
HOW_HEADING, STEPS = PAGE.how_heading, PAGE.steps
DEAL_HEADING, DEALS = PAGE.deal_heading, PAGE.deals
SERVICES_HEADING, SERVICES = PAGE.services_heading, PAGE.services
AUDIENCE_HEADING, AUDIENCES = PAGE.audience_heading, PAGE.audiences
CTA = PAGE.closing
