"""The Contact page and the agency's contact methods (also shown on Home and Schedule):
``content/es/pages/contact.yaml``, validated by the models below."""

from typing import Any

from pydantic import model_validator

from agency_site.content.base import Content, Hero, PageMeta
from agency_site.content.files import load
from agency_site.content.loader import fill
from agency_site.content.sections import Action, SectionHeading
from agency_site.locale import Localized


class ContactMethod(Content):
    """A way to reach the agency: icon, name, the address or number and its button."""

    icon: str
    title: str
    value: str
    description: str
    action: Action


class Office(Content):
    """The office: where it is and when the team answers."""

    title: str
    address_label: str
    address: str
    hours_label: str
    hours: str


class FaqItem(Content):
    """A frequently asked question and its answer."""

    question: str
    answer: str


class ContactPage(Content):
    """The whole Contact page. Its description and answers may quote ``{response_promise}``."""

    meta: PageMeta
    hero: Hero
    response_promise: str
    contact_methods: tuple[ContactMethod, ...]
    office: Office
    quote_heading: SectionHeading  # Over the quote request form.
    methods_heading: SectionHeading
    faq_heading: SectionHeading
    faq: tuple[FaqItem, ...]
    schedule_prompt: SectionHeading
    schedule_action: Action

    @model_validator(mode="before")
    @classmethod
    def _quote_promise(cls, data: Any) -> Any:
        """The answers with ``{response_promise}`` filled in from the page's own field."""
        if isinstance(data, dict) and isinstance(data.get("faq"), list):
            promise = str(data.get("response_promise", ""))
            data = data | {
                "faq": [
                    item
                    | {"answer": fill(item["answer"], {"response_promise": promise}, "faq.answer")}
                    if isinstance(item, dict) and isinstance(item.get("answer"), str)
                    else item
                    for item in data["faq"]
                ]
            }
        return data


PAGE = Localized(lambda: load("pages/contact.yaml", ContactPage))
