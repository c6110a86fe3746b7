"""Legal pages: a hero, the date of the last update and the Markdown text as numbered sections.

The Markdown is parsed at build time (markdown-it-py, raw HTML off) and turned into the
site's own elements here, so the pages are prerendered like every other and no Markdown
library reaches the browser.
"""

from collections.abc import Callable

import reflex as rx
from markdown_it.tree import SyntaxTreeNode

from agency_site.components import styles
from agency_site.components.actions import link
from agency_site.components.layout import layout
from agency_site.components.sections import hero
from agency_site.content.base import Fact
from agency_site.content.legal import SHARED, STORAGE, LegalPage
from agency_site.content.loader import markdown_tree

PARAGRAPH = "leading-7 text-slate-700"
TEXT_LINK = "font-semibold text-indigo-700 underline underline-offset-4 hover:text-indigo-900 " + (
    styles.FOCUS_RING
)
_LIST = "space-y-2 pl-6 leading-7 text-slate-700 marker:text-indigo-600"

Child = rx.Component | str


def _facts(facts: tuple[Fact, ...]) -> rx.Component:
    """Labelled data, such as the owner's identification."""
    return rx.el.dl(
        *[
            rx.el.div(
                rx.el.dt(fact.label, class_name="font-semibold text-slate-900"),
                rx.el.dd(fact.value, class_name="text-slate-700 sm:col-span-2"),
                class_name="grid gap-1 px-5 py-3 sm:grid-cols-3 sm:gap-4",
            )
            for fact in facts
        ],
        class_name="divide-y divide-slate-200 rounded-xl border border-slate-200 bg-slate-50",
    )


def _storage_table() -> rx.Component:
    """What the site stores in the browser: one labelled card per item."""
    labels = STORAGE.labels
    return rx.el.ul(
        *[
            rx.el.li(
                rx.el.h3(rx.el.code(item.name), class_name="font-semibold text-indigo-800"),
                _facts(
                    tuple(
                        Fact(label=getattr(labels, field), value=getattr(item, field))
                        for field in ("storage", "purpose", "duration", "party")
                    )
                ),
                class_name="space-y-2",
            )
            for item in STORAGE.items
        ],
        aria_label=STORAGE.caption,
        class_name="space-y-6",
    )


BLOCKS: dict[str, Callable[[], rx.Component]] = {
    "identity": lambda: _facts(SHARED.identity),
    "storage": _storage_table,
}


def _inline(node: SyntaxTreeNode) -> list[Child]:
    """The text and inline elements of a paragraph, heading or list item; adjacent text joined."""
    children: list[Child] = []
    for child in node.children:
        if child.type in ("text", "softbreak"):
            text = child.content if child.type == "text" else " "
            if children and isinstance(children[-1], str):
                children[-1] += text
            else:
                children.append(text)
        else:
            children.append(_INLINE[child.type](child))
    return children


_INLINE: dict[str, Callable[[SyntaxTreeNode], rx.Component]] = {
    "link": lambda node: link(str(node.attrs["href"]), *_inline(node), class_name=TEXT_LINK),
    "strong": lambda node: rx.el.strong(*_inline(node), class_name="font-semibold"),
    "em": lambda node: rx.el.em(*_inline(node)),
    "code_inline": lambda node: rx.el.code(node.content),
}


def _text_of(node: SyntaxTreeNode) -> list[Child]:
    """The inline content of a block node (its ``inline`` child)."""
    return _inline(node.children[0]) if node.children else []


def _list_item(node: SyntaxTreeNode) -> rx.Component:
    """One list item: its text (tight lists) or its paragraphs and nested lists."""
    children: list[Child] = []
    for child in node.children:
        if child.type == "paragraph" and child.hidden:
            children += _text_of(child)
        else:
            children.append(_block(child))
    return rx.el.li(*children)


def _block(node: SyntaxTreeNode) -> rx.Component:
    """One paragraph, list, sub-heading or data block."""
    if node.type == "paragraph":
        return rx.el.p(*_text_of(node), class_name=PARAGRAPH)
    if node.type in ("bullet_list", "ordered_list"):
        tag = rx.el.ul if node.type == "bullet_list" else rx.el.ol
        marker = "list-disc" if node.type == "bullet_list" else "list-decimal"
        return tag(*[_list_item(item) for item in node.children], class_name=f"{marker} {_LIST}")
    if node.type == "heading":
        return rx.el.h3(*_text_of(node), class_name="text-lg font-semibold text-slate-900")
    return BLOCKS[node.info.strip()]()  # A fence: the loader let only known blocks through.


def _numbered(number: int, heading: list[Child]) -> list[Child]:
    """A section heading's text after its number: '1. Responsable del tratamiento'."""
    if heading and isinstance(heading[0], str):
        return [f"{number}. {heading[0]}", *heading[1:]]
    return [f"{number}. ", *heading]


def _sections(body: str) -> list[rx.Component]:
    """Each ``##`` heading, numbered, with the blocks up to the next one."""
    sections: list[tuple[list[Child], list[rx.Component]]] = []
    for node in markdown_tree(body).children:
        if node.type == "heading" and node.tag == "h2":
            sections.append((_text_of(node), []))
        else:  # LegalPage made sure a section heading comes first.
            sections[-1][1].append(_block(node))
    return [
        rx.el.section(
            rx.el.h2(*_numbered(number, heading), class_name="text-2xl font-bold text-slate-900"),
            rx.el.div(*blocks, class_name="mt-4 space-y-4"),
        )
        for number, (heading, blocks) in enumerate(sections, start=1)
    ]


def legal_page(page: LegalPage) -> rx.Component:
    """A complete legal page."""
    return layout(
        hero(page.hero),
        rx.el.div(
            rx.el.div(
                rx.el.p(
                    f"{SHARED.updated_label}: {page.updated}",
                    class_name="text-sm font-medium text-slate-600",
                ),
                *_sections(page.body),
                # Shorter lines than the page container: long text reads better.
                class_name="max-w-3xl space-y-12",
            ),
            class_name=styles.CONTAINER + " pb-24",
        ),
    )
