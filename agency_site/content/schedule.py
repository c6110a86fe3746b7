"""The consultation booking page: ``content/es/pages/schedule.yaml``, validated by the models
below (the form's own copy is in ``forms.yaml``)."""

from agency_site.content.base import Benefit, Content, Fact, Hero, PageMeta
from agency_site.content.files import load
from agency_site.content.sections import SectionHeading


class SchedulePage(Content):
    """The whole booking page around the form."""

    meta: PageMeta
    hero: Hero
    aside_label: str
    form_heading: SectionHeading
    facts: tuple[Fact, ...]
    agenda_heading: SectionHeading
    agenda: tuple[Benefit, ...]
    alternatives_heading: SectionHeading


PAGE = load("pages/schedule.yaml", SchedulePage)
# The names other modules read.
META, HERO, ASIDE_LABEL, FORM_HEADING = PAGE.meta, PAGE.hero, PAGE.aside_label, PAGE.form_heading
FACTS, AGENDA_HEADING, AGENDA = PAGE.facts, PAGE.agenda_heading, PAGE.agenda
ALTERNATIVES_HEADING = PAGE.alternatives_heading
