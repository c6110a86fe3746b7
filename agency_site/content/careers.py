"""The Careers page: ``content/es/pages/careers.yaml`` (benefits, open positions, the
spontaneous application), validated by the models below."""

import datetime as dt
from typing import Literal
from urllib.parse import quote

from pydantic import Field, computed_field, model_validator

from agency_site.content.base import Content, euros
from agency_site.content.files import load
from agency_site.content.sections import (
    SECTION_KINDS,
    Action,
    CallToAction,
    Section,
    SectionHeading,
    SectionsPage,
    section_union,
)
from agency_site.content.site import SITE
from agency_site.locale import Localized


def application_mailto(subject: str) -> str:
    """``mailto:`` link to the agency's inbox with the (URL-encoded) subject."""
    return f"{SITE.mailto}?subject={quote(subject)}"


class ButtonLabel(Content):
    """A button's label and lucide icon; its target is computed."""

    label: str
    icon: str = ""


class JobLabels(Content):
    """Fixed labels of a position card, and the words of its location and button."""

    department: str
    location: str
    type: str
    salary: str
    requirements: str
    benefits: str
    apply: str
    remote: str
    hybrid: str


# schema.org's employmentType values a position may have.
EmploymentType = Literal["FULL_TIME", "PART_TIME", "TEMPORARY", "INTERN"]


class JobPosting(Content):
    """An open position with its conditions, requirements and benefits."""

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    title: str
    department: str
    city: str = ""  # Empty for a fully remote position.
    hybrid: bool = False
    type: EmploymentType  # schema.org's name; shown as the page's ``employment_types`` says.
    date_posted: dt.date
    salary_min: int = Field(gt=0)
    salary_max: int = Field(gt=0)
    description: str
    requirements: tuple[str, ...] = Field(min_length=1)
    benefits: tuple[str, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _salary_range(self) -> "JobPosting":
        if self.salary_min > self.salary_max:
            raise ValueError("salary_min is more than salary_max")
        return self

    @computed_field
    @property
    def salary(self) -> str:
        """The gross annual salary range as shown, e.g. '45.000€ - 60.000€'."""
        return f"{euros(self.salary_min)} - {euros(self.salary_max)}"


class PositionsSection(Section, SectionHeading):
    """The open positions, one card each."""

    KIND, LIST = "positions", "positions"
    positions: tuple[JobPosting, ...] = Field(min_length=1)


class ApplicationSection(Section):
    """The band inviting a spontaneous application: its button e-mails a CV with ``subject``."""

    KIND, LIST = "application", "subject"
    title: str
    text: str
    button: ButtonLabel
    subject: str

    @computed_field
    @property
    def cta(self) -> CallToAction:
        """The band with its button: an e-mail to the agency with the subject filled in."""
        action = Action(
            label=self.button.label, href=application_mailto(self.subject), icon=self.button.icon
        )
        return CallToAction(title=self.title, text=self.text, actions=(action,))


class CareersPage(SectionsPage):
    """The Careers page: its sections may include the open positions and the application
    band; the labels of a position card and the contract types' words."""

    job_labels: JobLabels
    # How each contract type (schema.org's employmentType, in the JSON-LD) reads.
    employment_types: dict[EmploymentType, str]
    sections: tuple[  # type: ignore[valid-type]
        section_union(*SECTION_KINDS, PositionsSection, ApplicationSection), ...
    ] = Field(min_length=1)

    @model_validator(mode="after")
    def _every_type_has_its_schema_org_name(self) -> "CareersPage":
        unknown = {job.type for job in self.positions} - set(self.employment_types)
        if unknown:
            raise ValueError(f"employment_types lacks {sorted(unknown)}")
        return self

    def contract(self, job: JobPosting) -> str:
        """A job's contract type as shown: 'Jornada completa'."""
        return self.employment_types[job.type]

    def location(self, job: JobPosting) -> str:
        """Where a job is done, as shown: 'Remoto', 'Madrid', 'Madrid (híbrido)'."""
        if not job.city:
            return self.job_labels.remote
        return f"{job.city} {self.job_labels.hybrid}" if job.hybrid else job.city

    def apply(self, job: JobPosting) -> Action:
        """A job's 'Aplicar ahora' button: an e-mail to the agency about this position."""
        return Action(label=self.job_labels.apply, href=application_mailto(job.title), icon="send")

    @computed_field
    @property
    def applications(self) -> tuple[Action, ...]:
        """Every position's 'Aplicar ahora' button, in order."""
        return tuple(self.apply(job) for job in self.positions)

    @property
    def positions(self) -> tuple[JobPosting, ...]:
        """Every open position, in the order of its sections."""
        return tuple(
            job
            for section in self.sections
            if isinstance(section, PositionsSection)
            for job in section.positions
        )


CAREERS = Localized(lambda: load("pages/careers.yaml", CareersPage))
