"""The About page: ``content/es/pages/about.yaml``, validated by the model below."""

from agency_site.content.base import Benefit, Content, Hero, Image, PageMeta, ServiceBlock, Stat
from agency_site.content.files import load
from agency_site.content.sections import CallToAction, SectionHeading


class AboutPage(Content):
    """The whole About page; its description quotes the stats by key (``{clients}``)."""

    meta: PageMeta
    hero: Hero
    hero_image: Image
    stats_heading: SectionHeading
    stats: tuple[Stat, ...]
    values_heading: SectionHeading
    values: tuple[Benefit, ...]
    approach_heading: SectionHeading
    approach: tuple[ServiceBlock, ...]
    mission: CallToAction


PAGE = load("pages/about.yaml", AboutPage)
# The names other modules read.
META, HERO, HERO_IMAGE = PAGE.meta, PAGE.hero, PAGE.hero_image
STATS_HEADING, STATS = PAGE.stats_heading, PAGE.stats
VALUES_HEADING, VALUES = PAGE.values_heading, PAGE.values
APPROACH_HEADING, APPROACH = PAGE.approach_heading, PAGE.approach
MISSION = PAGE.mission
