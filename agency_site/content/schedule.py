"""The consultation booking page: ``content/es/pages/schedule.yaml``, a page of sections,
one of them the booking form (whose own words are in ``forms.yaml``)."""

from pydantic import Field

from agency_site.content.base import Benefit, Fact
from agency_site.content.files import load
from agency_site.content.sections import (
    SECTION_KINDS,
    Section,
    SectionHeading,
    SectionsPage,
    section_union,
)
from agency_site.locale import Localized


class BookingFormSection(Section, SectionHeading):
    """The booking form under its heading, with what to expect beside it: the facts of the
    consultation, its agenda and the other ways to reach the agency."""

    KIND = "booking_form"
    aside_label: str
    facts: tuple[Fact, ...] = Field(min_length=1)
    agenda_heading: SectionHeading
    agenda: tuple[Benefit, ...] = Field(min_length=1)
    alternatives_heading: SectionHeading


class SchedulePage(SectionsPage):
    """The booking page: its sections may include the booking form."""

    sections: tuple[section_union(*SECTION_KINDS, BookingFormSection), ...] = Field(  # type: ignore[valid-type]
        min_length=1
    )


PAGE = Localized(lambda: load("pages/schedule.yaml", SchedulePage))
