"""Legal pages: a hero, the date of the last update and numbered sections of text."""

import reflex as rx

from agency_site.components import styles
from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.base import Link
from agency_site.content.legal import (
    Block,
    Bullets,
    Fact,
    Facts,
    LegalDocument,
    LegalSection,
    StorageTable,
)

PARAGRAPH = "leading-7 text-slate-700"
TEXT_LINK = "font-semibold text-indigo-700 underline underline-offset-4 hover:text-indigo-900 " + (
    styles.FOCUS_RING
)
STORAGE_LABELS = ("Tipo", "Finalidad", "Duración", "Titular")


def _bullets(block: Bullets) -> rx.Component:
    """A bulleted list."""
    return rx.el.ul(
        *[rx.el.li(item) for item in block.items],
        class_name="list-disc space-y-2 pl-6 leading-7 text-slate-700 marker:text-indigo-600",
    )


def _facts(block: Facts) -> rx.Component:
    """Labelled data, such as the owner's identification."""
    return rx.el.dl(
        *[
            rx.el.div(
                rx.el.dt(fact.label, class_name="font-semibold text-slate-900"),
                rx.el.dd(fact.value, class_name="text-slate-700 sm:col-span-2"),
                class_name="grid gap-1 px-5 py-3 sm:grid-cols-3 sm:gap-4",
            )
            for fact in block.items
        ],
        class_name="divide-y divide-slate-200 rounded-xl border border-slate-200 bg-slate-50",
    )


def _storage_table(block: StorageTable) -> rx.Component:
    """What the site stores in the browser: one labelled card per item."""
    return rx.el.ul(
        *[
            rx.el.li(
                rx.el.h3(rx.el.code(item.name), class_name="font-semibold text-indigo-800"),
                _facts(
                    Facts(
                        items=tuple(
                            Fact(label=label, value=value)
                            for label, value in zip(
                                STORAGE_LABELS,
                                (item.storage, item.purpose, item.duration, item.party),
                                strict=True,
                            )
                        )
                    )
                ),
                class_name="space-y-2",
            )
            for item in block.items
        ],
        aria_label="Datos que guarda el sitio en tu navegador",
        class_name="space-y-6",
    )


def _link(block: Link) -> rx.Component:
    """A paragraph that is a link."""
    return rx.el.p(rx.el.a(block.label, href=block.href, class_name=TEXT_LINK))


def _block(block: Block) -> rx.Component:
    """One paragraph, list, data block, table or link."""
    if isinstance(block, str):
        return rx.el.p(block, class_name=PARAGRAPH)
    renderers = {Bullets: _bullets, Facts: _facts, StorageTable: _storage_table, Link: _link}
    return renderers[type(block)](block)


def _section(section: LegalSection, number: int) -> rx.Component:
    """A numbered section with its heading."""
    return rx.el.section(
        rx.el.h2(f"{number}. {section.heading}", class_name="text-2xl font-bold text-slate-900"),
        rx.el.div(*[_block(block) for block in section.body], class_name="mt-4 space-y-4"),
    )


def legal_page(document: LegalDocument) -> rx.Component:
    """A complete legal page."""
    return layout(
        hero(document.hero),
        rx.el.div(
            rx.el.div(
                rx.el.p(
                    f"Última actualización: {document.updated}",
                    class_name="text-sm font-medium text-slate-600",
                ),
                *[
                    _section(section, number)
                    for number, section in enumerate(document.sections, start=1)
                ],
                # Shorter lines than the page container: long text reads better.
                class_name="max-w-3xl space-y-12",
            ),
            class_name=styles.CONTAINER + " pb-24",
        ),
    )
