"""The language switch of the header and the footer: links to the page being shown in the
other languages (``/about`` ↔ ``/ca/about``), each named in its own language and marked
with ``lang`` and ``hreflang``. Nothing switches by itself (no ``Accept-Language``
redirect): the visitor chooses."""

import reflex as rx

from agency_site.content.language import LANGUAGE
from agency_site.locale import AUTONYMS, HTML_LANG, LOCALES, current, current_page, localized_path


def language_link(language: str, class_name: str) -> rx.Component:
    """A link to the page being rendered in ``language``, named in that language."""
    return rx.el.a(
        AUTONYMS[language],
        href=localized_path(current_page(), language),
        lang=HTML_LANG[language],
        href_lang=HTML_LANG[language],
        class_name=class_name,
    )


def other_languages(class_name: str) -> list[rx.Component]:
    """Links to the page in every language but the one in use."""
    return [language_link(other, class_name) for other in LOCALES if other != current()]


def footer_switch(link_class: str, text_class: str) -> rx.Component:
    """Every language, in order: the one in use as text (marked current), the others as links."""
    return rx.el.nav(
        rx.el.ul(
            *[
                rx.el.li(
                    language_link(language, link_class)
                    if language != current()
                    else rx.el.span(
                        AUTONYMS[language],
                        lang=HTML_LANG[language],
                        aria_current="true",
                        class_name=text_class,
                    )
                )
                for language in LOCALES
            ],
            class_name="flex gap-4",
        ),
        aria_label=LANGUAGE.label,
        class_name="mt-4",
    )
