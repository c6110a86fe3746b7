"""The case study list and each case study's detail page: ``content/es/case-studies/``
(one YAML file per case) and ``content/es/pages/case-studies.yaml`` (the list's copy).

One ``CaseStudy`` holds both what the list shows (SPEC §3 "summary": client, industry,
tags, challenge, solution, the three results, image) and what its detail page adds
(solution points, metric descriptions, key achievements, testimonial), so no figure
is written twice.
"""

from pydantic import Field

from agency_site.content.base import Content, Hero, Image, PageMeta
from agency_site.content.files import load, load_folder
from agency_site.content.sections import CallToAction
from agency_site.locale import Localized


class CaseMetric(Content):
    """A result of a case: the figure, what it measures, an icon and how it was reached."""

    value: str
    label: str
    icon: str
    description: str


class CaseTestimonial(Content):
    """The client's words about the project."""

    quote: str
    author: str
    role: str
    image: Image


class CaseStudy(Content):
    """A case study: its id in the URL, the summary of the list and the detail page."""

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    title: str
    subtitle: str
    client: str
    industry: str
    tags: tuple[str, ...] = Field(min_length=1)
    challenge: str
    solution: str
    solution_points: tuple[str, ...] = Field(min_length=1)
    results: tuple[CaseMetric, ...] = Field(min_length=3, max_length=3)
    key_achievements: tuple[str, ...] = Field(min_length=1)
    testimonial: CaseTestimonial
    image: Image


class CaseStudyLabels(Content):
    """Fixed headings and labels of the case study pages."""

    eyebrow: str
    client: str
    industry: str
    challenge: str
    solution: str
    results: str
    read_more: str
    solution_points: str
    overview: str
    achievements: str
    testimonial: str
    back: str


class CaseStudiesPage(Content):
    """The case study list's copy, the labels and closing bands of every case page, and the
    order of the cases (one file each in ``case-studies/``).

    ``meta`` is the list's; ``case_meta`` every case page's, named by the case's title, its
    description quoting the case's ``{subtitle}``."""

    meta: PageMeta
    case_meta: PageMeta
    hero: Hero
    labels: CaseStudyLabels
    list_cta: CallToAction
    detail_cta: CallToAction
    order: tuple[str, ...] = Field(min_length=1)


PAGE = Localized(lambda: load("pages/case-studies.yaml", CaseStudiesPage))
CASE_STUDIES = Localized(lambda: load_folder("case-studies", CaseStudy, PAGE.order))
